#include "discovery/probes/layout/l2_slice_map.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <optional>
#include <utility>

#include "model/topology.hpp"

namespace gputopo::discovery::slice_map {

model::Json class_text(const std::vector<int>& label, int count) {
  if (count > 36) return label;
  std::string text;
  for (const int k : label) text += "0123456789abcdefghijklmnopqrstuvwxyz"[k];
  return text;
}

std::vector<std::string> address_masks(const analysis::XorHash& hash, std::uint64_t line_bytes) {
  std::vector<std::string> masks;
  for (const auto m : hash.masks)
    masks.push_back(fmt::format("{:#x}", m << std::countr_zero(line_bytes)));
  return masks;
}

model::SmList nearest(const Map& map, const std::vector<int>& sms, std::size_t k) {
  std::size_t best = 0;
  for (std::size_t m = 1; m < sms.size(); ++m)
    if (map.mean[m][k] < map.mean[best][k]) best = m;
  model::SmList near;
  for (std::size_t m = 0; m < sms.size(); ++m)
    if (map.mean[m][k] - map.half[m][k] <= map.mean[best][k] + map.half[best][k])
      near.push_back(sms[m]);
  return near;
}

void add_slices(Context& ctx, const Map& map, const std::vector<int>& sms, double confidence) {
  for (std::size_t k = 0; k < map.mean.front().size(); ++k) {
    std::vector<double> cycles;
    for (const auto& row : map.mean) cycles.push_back(row[k]);
    model::add_slice(
        ctx.topology(),
        {static_cast<int>(k), std::nullopt, nearest(map, sms, k), confidence, std::move(cycles)},
        "l2.sliceCount");
  }
  ctx.topology().slice_sms = sms;
}

model::Attribute spread(const Map& map, const std::vector<int>& sms, std::string method,
                        double confidence, const std::string& map_key, const std::string& column) {
  std::size_t lo_m = 0, lo_k = 0, hi_m = 0, hi_k = 0;
  std::vector<std::vector<double>> rounded(map.mean.size());
  for (std::size_t m = 0; m < map.mean.size(); ++m)
    for (std::size_t k = 0; k < map.mean[m].size(); ++k) {
      if (map.mean[m][k] < map.mean[lo_m][lo_k]) lo_m = m, lo_k = k;
      if (map.mean[m][k] > map.mean[hi_m][hi_k]) hi_m = m, hi_k = k;
      rounded[m].push_back(std::round(map.mean[m][k] * 10) / 10);
    }
  const double value = map.mean[hi_m][hi_k] - map.mean[lo_m][lo_k];
  const double half = map.half[hi_m][hi_k] + map.half[lo_m][lo_k];
  auto a = model::Attribute::measured(value, "cycles", std::move(method), confidence);
  a.interval = model::Interval{std::max(0.0, value - half), value + half};
  a.evidence = {{"sms", sms},
                {map_key, rounded},
                {"least", {{"sm", sms[lo_m]}, {column, lo_k}}},
                {"most", {{"sm", sms[hi_m]}, {column, hi_k}}}};
  return a;
}

}  // namespace gputopo::discovery::slice_map
