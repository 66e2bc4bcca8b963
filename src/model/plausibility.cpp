#include "model/plausibility.hpp"

#include <array>
#include <cmath>
#include <cstdio>
#include <string_view>

#include "model/keys.hpp"

namespace gputopo::model {
namespace {

// Far beyond what any GPU has or will soon have, per unit: 1 PiB, 100 GHz, 1 PB/s, a latency of
// 10^8 cycles or ns (0.1 s a load), 10^6 TFLOP/s.
struct Ceiling {
  std::string_view unit;
  double max;
};
constexpr std::array kBeyondAnyHardware{
    Ceiling{"B", 0x1p50},
    Ceiling{"bit", 65536},
    Ceiling{"MHz", 1e5},
    Ceiling{"GB/s", 1e6},
    Ceiling{"cycles", 1e8},
    Ceiling{"ns", 1e8},
    Ceiling{"W", 1e5},
    Ceiling{"TFLOP/s", 1e6},
    Ceiling{"TOPS", 1e6},
    Ceiling{"FLOP/clk/SM", 1e6},
    Ceiling{"OPS/clk/SM", 1e6},
    Ceiling{"instr/clk/SM", 1e4},
    Ceiling{"thread instructions/clk/SM", 1e4},
    Ceiling{"B/clk", 1e5},
    Ceiling{"registers/clk", 1e4},
    Ceiling{"banks", 1e4},
};

std::string number_text(double v) {
  std::array<char, 32> text{};
  std::snprintf(text.data(), text.size(), "%.6g", v);
  return text.data();
}

// Why the number `v` in unit `unit` cannot be physical, or empty. Plain counts (no unit) may be
// negative markers (a NUMA node of -1 is none).
std::string why_not(double v, std::string_view unit) {
  if (unit.empty()) return {};
  if (!std::isfinite(v)) return "not a finite number";
  if (v < 0) return number_text(v) + " " + std::string(unit) + " is negative";
  for (const auto& c : kBeyondAnyHardware)
    if (c.unit == unit && v > c.max)
      return number_text(v) + " " + std::string(unit) + " is beyond any hardware (above " +
             number_text(c.max) + " " + std::string(unit) + ")";
  return {};
}

void refuse(Attribute& a, const std::string& why) {
  Json evidence = a.evidence.is_object() ? a.evidence : Json::object();
  if (!a.evidence.is_null() && !a.evidence.is_object()) evidence["detail"] = a.evidence;
  evidence["implausibleValue"] = a.value;
  a.evidence = std::move(evidence);
  a.value = nullptr;
  a.confidence.reset();
  a.interval.reset();
  a.reason = "cannot be physical: " + why;
}

// Within `list`, the bandwidths above the derived peak's interval, and percentages of it above
// 100 % as far.
void refuse_above_peak(AttributeList& list) {
  const Attribute* peak = find(list, keys::peakBandwidth.str());
  if (peak == nullptr || !peak->available() || !peak->value.is_number() || !peak->interval) return;
  const double value = peak->value.get<double>();
  const double hi = peak->interval->hi;
  if (!(value > 0)) return;
  for (auto& [key, a] : list) {
    if (&a == peak || !a.available() || !a.value.is_number() || a.source == Source::Api) continue;
    const double lowest = a.interval ? a.interval->lo : a.value.get<double>();
    if (a.unit == "GB/s" && lowest > hi)
      refuse(a, number_text(a.value.get<double>()) + " GB/s is above the derived peak " +
                    number_text(value) + " GB/s (at most " + number_text(hi) + ")");
    else if (a.unit == "%" && key.ends_with("OfPeak") && lowest > 100 * hi / value)
      refuse(a, number_text(a.value.get<double>()) + " % of the derived peak is above 100 %");
  }
}

void refuse_all(AttributeList& list) {
  for (auto& [key, a] : list)
    if (a.available())
      if (std::string why = implausible(a); !why.empty()) refuse(a, why);
  refuse_above_peak(list);
}

}  // namespace

std::string implausible(const Attribute& a) {
  if (a.value.is_number()) return why_not(a.value.get<double>(), a.unit);
  if (a.value.is_array())
    for (const auto& v : a.value)
      if (v.is_number())
        if (std::string why = why_not(v.get<double>(), a.unit); !why.empty()) return why;
  return {};
}

void refuse_implausible(Report& r) {
  refuse_all(r.device);
  refuse_all(r.compute);
  for (auto& e : r.memory) refuse_all(e.attributes);
}

}  // namespace gputopo::model
