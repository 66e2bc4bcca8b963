#include "report/format.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <utility>
#include <vector>

#include "model/keys.hpp"

namespace gputopo::report {
namespace {

// Words written in capitals (or otherwise) in labels.
constexpr std::array<std::pair<std::string_view, std::string_view>, 32> kWords{{
    {"sm", "SM"},          {"pci", "PCI"},   {"uuid", "UUID"},    {"id", "ID"},
    {"ecc", "ECC"},        {"mig", "MIG"},   {"l1", "L1"},        {"l2", "L2"},
    {"l15", "L1.5"},       {"cuda", "CUDA"}, {"gpu", "GPU"},      {"rdma", "RDMA"},
    {"mps", "MPS"},        {"numa", "NUMA"}, {"dram", "DRAM"},    {"tpc", "TPC"},
    {"gpc", "GPC"},        {"1d", "1D"},     {"optin", "opt-in"}, {"api", "API"},
    {"tlb", "TLB"},        {"mhz", "MHz"},   {"sms", "SMs"},      {"ns", "(ns)"},
    {"tflops", "TFLOP/s"}, {"clk", "clock"}, {"xcd", "XCD"},      {"cus", "CUs"},
    {"simds", "SIMDs"},    {"cu", "CU"},     {"lds", "LDS"},      {"mall", "MALL"},
}};

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool is_upper(char c) { return std::isupper(static_cast<unsigned char>(c)) != 0; }
bool is_lower(char c) { return std::islower(static_cast<unsigned char>(c)) != 0; }
bool is_digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

// "smClockMax" -> sm Clock Max; "l2Size" -> l2 Size; "maxTexture1DLinear" -> max Texture 1D Linear.
std::vector<std::string> split_camel_case(std::string_view key) {
  std::vector<std::string> words;
  std::string word;
  for (std::size_t i = 0; i < key.size(); ++i) {
    char c = key[i];
    if (i > 0 && !word.empty()) {
      char prev = key[i - 1];
      bool next_lower = i + 1 < key.size() && is_lower(key[i + 1]);
      bool boundary = (is_upper(c) && is_lower(prev)) ||
                      (is_upper(c) && (is_upper(prev) || is_digit(prev)) && next_lower) ||
                      (is_digit(c) && is_lower(prev) && word.size() > 1);
      if (boundary) {
        words.push_back(word);
        word.clear();
      }
    }
    word += c;
  }
  if (!word.empty()) words.push_back(word);
  return words;
}

}  // namespace

std::string format_number(double v) {
  if (std::floor(v) == v && std::fabs(v) < 1e15)
    return fmt::format("{}", static_cast<long long>(v));
  std::string s = fmt::format("{:.2f}", v);
  while (!s.empty() && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  if (s == "0" || s == "-0") return fmt::format("{:.3g}", v);
  return s;
}

std::string format_bytes(double bytes) {
  constexpr std::array<std::pair<double, std::string_view>, 4> kUnits{{
      {1024.0 * 1024 * 1024 * 1024, "TiB"},
      {1024.0 * 1024 * 1024, "GiB"},
      {1024.0 * 1024, "MiB"},
      {1024.0, "KiB"},
  }};
  for (const auto& [size, name] : kUnits)
    if (std::fabs(bytes) >= size) return format_number(bytes / size) + " " + std::string(name);
  return format_number(bytes) + " B";
}

namespace {

// [at least, at most] bytes: a size known to lie between the two.
bool byte_range(const model::Json& e) {
  return e.is_array() && e.size() == 2 && e[0].is_number() && e[1].is_number();
}

}  // namespace

std::string format_value(const model::Json& value, std::string_view unit) {
  if (value.is_null()) return "";
  if (value.is_boolean()) return value.get<bool>() ? "yes" : "no";
  if (value.is_string()) {
    std::string s = value.get<std::string>();
    return unit.empty() ? s : s + " " + std::string(unit);
  }
  if (value.is_array()) {
    if (value.empty()) return "none";
    if (unit == "B" && std::all_of(value.begin(), value.end(), byte_range)) {
      std::string out;
      for (const auto& r : value)
        out += (out.empty() ? "" : ", ") + format_bytes(r[0].get<double>()) + " to " +
               format_bytes(r[1].get<double>());
      return out;
    }
    const bool numbers =
        std::all_of(value.begin(), value.end(), [](const model::Json& e) { return e.is_number(); });
    std::string out;
    for (const auto& element : value) {
      if (!out.empty()) out += numbers ? " x " : ", ";
      out += format_value(element, "");
    }
    return unit.empty() ? out : out + " " + std::string(unit);
  }
  if (value.is_number()) {
    double v = value.get<double>();
    if (unit == "B") return format_bytes(v);
    if (unit.empty()) return format_number(v);
    return format_number(v) + " " + std::string(unit);
  }
  return value.dump(-1, ' ', false, model::Json::error_handler_t::replace);
}

std::string label_for(std::string_view key) {
  // A member of a key family keeps its own name (a compute op such as mmaE4m3).
  if (const auto member = model::family_member(key)) {
    std::string rest = label_for(member->first->suffix);
    if (rest.size() > 1 && std::islower(static_cast<unsigned char>(rest[1])))
      rest[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(rest[0])));
    return std::string(member->second) + " " + rest;
  }
  std::string label;
  for (const std::string& word : split_camel_case(key)) {
    std::string w = lower(word);
    std::string shown = w;
    for (const auto& [from, to] : kWords)
      if (w == from) shown = std::string(to);
    if (label.empty() && shown == w && !shown.empty())
      shown[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(shown[0])));
    if (!label.empty()) label += ' ';
    label += shown;
  }
  return label;
}

std::string attribute_text(const model::Attribute& a) {
  if (!a.available()) return "not available" + (a.reason.empty() ? "" : ": " + a.reason);
  std::string text = format_value(a.value, a.unit);
  if (!a.interval) return text;
  const model::Json lo = a.interval->lo;
  const model::Json hi = a.interval->hi;
  const std::string lo_text = format_value(lo, a.unit);
  const std::string hi_text = format_value(hi, a.unit);
  // A bound reads as one: "at least 64 KiB", or "70 KiB (at least 64 KiB)".
  if (std::isinf(a.interval->hi) && std::isfinite(a.interval->lo))
    return lo_text == text ? "at least " + text : text + " (at least " + lo_text + ")";
  if (std::isinf(a.interval->lo) && std::isfinite(a.interval->hi))
    return hi_text == text ? "at most " + text : text + " (at most " + hi_text + ")";
  if (lo_text == text && hi_text == text) return text;
  // "128 B (128-255 B)": the unit once where both ends have it.
  const auto space = lo_text.rfind(' ');
  if (space != std::string::npos && hi_text.size() > space &&
      hi_text.ends_with(lo_text.substr(space)))
    return text + " (" + lo_text.substr(0, space) + "-" + hi_text + ")";
  return text + " (" + lo_text + " to " + hi_text + ")";
}

std::string provenance_mark(const model::Attribute& a) {
  switch (a.source) {
    case model::Source::Api:
      return "";
    case model::Source::Table:
      return "[table]";
    case model::Source::Derived:
      return "[derived]";
    case model::Source::Measured:
      // A bound's confidence is the point's (0 where only the bound is known): not printed.
      if (a.interval && (std::isinf(a.interval->lo) || std::isinf(a.interval->hi)))
        return "[measured, a bound]";
      return a.confidence ? "[measured " + format_number(*a.confidence) + "]" : "[measured]";
  }
  return "";
}

}  // namespace gputopo::report
