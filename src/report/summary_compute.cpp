#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "model/keys.hpp"
#include "report/format.hpp"
#include "report/summary_text.hpp"
#include "report/text_layout.hpp"

namespace gputopo::report {
namespace {
using model::Attribute;

struct Op {
  const Attribute* latency = nullptr;
  const Attribute* throughput = nullptr;
  const Attribute* rate = nullptr;  // TFLOP/s (TOPS) of a tensor op
};

bool number(const Attribute* a) { return a && a->available() && a->value.is_number(); }

std::string throughput_text(const Op& op) {
  if (number(op.rate)) return short_number(op.rate->value.get<double>()) + " " + op.rate->unit;
  if (number(op.throughput)) return short_number(op.throughput->value.get<double>()) + "/clk";
  return "?";
}

// The measured ops in report order, by name.
std::vector<std::pair<std::string, Op>> ops_of(const model::AttributeList& compute) {
  std::vector<std::pair<std::string, Op>> ops;
  for (const auto& [key, a] : compute) {
    const auto member = model::family_member(key);
    if (!member) continue;
    const std::string name(member->second);
    auto it = std::find_if(ops.begin(), ops.end(), [&](const auto& o) { return o.first == name; });
    if (it == ops.end()) it = ops.insert(ops.end(), {name, Op{}});
    const std::string_view suffix = member->first->suffix;
    if (suffix == model::keys::opLatency.suffix) it->second.latency = &a;
    if (suffix == model::keys::opThroughput.suffix) it->second.throughput = &a;
    if (suffix == model::keys::opTflops.suffix) it->second.rate = &a;
  }
  std::erase_if(ops, [](const auto& o) {
    return !number(o.second.latency) && !number(o.second.throughput) && !number(o.second.rate);
  });
  return ops;
}

// Measured compute values that are not an op's, nor in the header: "Warp schedulers 4".
std::string also_measured(const model::AttributeList& compute) {
  static const std::set<std::string_view> in_header{
      "tpcCount", "smsPerTpc", "gpcCount", "smsPerGpc", "cores", "coresPerSm", "pipelines"};
  std::string out;
  for (const auto& [key, a] : compute) {
    if (a.source == model::Source::Api || !a.available() || in_header.count(key) ||
        model::family_member(key) || a.value.is_array() || a.value.is_object())
      continue;
    out += (out.empty() ? "" : "; ") + label_for(key) + " " + report::cell(&a);
  }
  return out;
}

// Two halves of `rows` side by side where they fit the width, else one under the other.
std::vector<std::string> side_by_side(const std::vector<std::vector<std::string>>& rows) {
  const std::vector<bool> right{true, true, false};
  const std::size_t half = (rows.size() + 1) / 2;
  const auto left = align({rows.begin(), rows.begin() + static_cast<std::ptrdiff_t>(half)}, right);
  const auto rest = align({rows.begin() + static_cast<std::ptrdiff_t>(half), rows.end()}, right);
  std::size_t width = 0;
  for (const auto& l : left) width = std::max(width, columns(l));
  std::size_t rest_width = 0;
  for (const auto& l : rest) rest_width = std::max(rest_width, columns(l));
  if (rows.size() < 8 || 2 + width + 4 + rest_width > kTextWidth) {
    auto all = align(rows, right);
    for (auto& l : all) l = "  " + l;
    return all;
  }
  std::vector<std::string> out;
  for (std::size_t i = 0; i < left.size(); ++i) {
    std::string line = "  " + left[i];
    if (i < rest.size()) line += std::string(width - columns(left[i]) + 4, ' ') + rest[i];
    out.push_back(line);
  }
  return out;
}

}  // namespace

std::vector<std::string> compute_table(const model::Report& r) {
  const auto ops = ops_of(r.compute);
  std::vector<std::string> lines;
  if (!ops.empty()) {
    // Ops of the same latency and throughput share a row, the fastest first.
    std::map<std::pair<double, std::string>, std::vector<std::string>> rows;
    for (const auto& [name, op] : ops) {
      const double latency = number(op.latency)
                                 ? std::stod(short_number(op.latency->value.get<double>()))
                                 : std::numeric_limits<double>::infinity();
      rows[{latency, throughput_text(op)}].push_back(name);
    }
    std::vector<std::vector<std::string>> cells;
    for (const auto& [key, names] : rows) {
      std::string list;
      for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
      cells.push_back({std::isinf(key.first) ? "?" : short_number(key.first), key.second, list});
    }
    lines.push_back("Compute: latency in cycles, throughput per SM and clock (or the GPU's rate)");
    const auto table = side_by_side(cells);
    lines.insert(lines.end(), table.begin(), table.end());
  }
  if (std::string also = also_measured(r.compute); !also.empty()) {
    const auto more = wrap(also, kTextWidth, lines.empty() ? "Compute: " : "  Also: ", "    ");
    lines.insert(lines.end(), more.begin(), more.end());
  }
  return lines;
}

}  // namespace gputopo::report
