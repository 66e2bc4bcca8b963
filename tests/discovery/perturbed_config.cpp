#include "perturbed_config.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "device/sim/config.hpp"
#include "device/sim/rng.hpp"

namespace gputopo::discovery::testing {
namespace {

using device::sim::Rng;
using nlohmann::json;

double log_uniform(Rng& rng, double lo, double hi) {
  return lo * std::exp(rng.uniform() * std::log(hi / lo));
}

// `sets` scaled by `factor`, at least `least`. An index that XORs address bits together keeps a
// power-of-two set count, as such indices have: the factor is rounded to a power of two.
std::uint64_t scaled_sets(const json& cache, std::uint64_t sets, double factor,
                          std::uint64_t least) {
  const bool hashed = cache.value("hashed_index", false) || cache.contains("index_xor_bits");
  if (hashed) factor = std::exp2(std::round(std::log2(factor)));
  return std::max<std::uint64_t>(
      least, static_cast<std::uint64_t>(std::llround(static_cast<double>(sets) * factor)));
}

// A cache given by size and ways keeps its line and ways and gets another set count. A cache
// unified with shared memory ("sets") follows the carve-out and keeps its geometry.
void scale_sets(json& cache, double factor) {
  if (!cache.contains("size_bytes") || !cache.contains("ways")) return;
  const auto way_bytes =
      cache["line_bytes"].get<std::uint64_t>() * cache["ways"].get<std::uint64_t>();
  const auto sets = cache["size_bytes"].get<std::uint64_t>() / way_bytes;
  cache["size_bytes"] = scaled_sets(cache, sets, factor, 1) * way_bytes;
}

void scale_latency(json& v, double factor) {
  if (v.is_array()) {
    for (auto& x : v) scale_latency(x, factor);
    return;
  }
  v = std::max(1.0, std::round(v.get<double>() * factor));
}

double first_latency(const json& v) {
  return v.is_array() ? v.front().get<double>() : v.get<double>();
}

// Each space's caches in path order, then the L2 and device memory: every level slower than the
// one in front, with room for a test to tell them apart (5 % and 4 cycles); the far L2 no faster
// than the near one.
bool ordered(const json& cfg) {
  const double l2 = first_latency(cfg["l2"]["near_latency_cycles"]);
  const double dram = cfg["dram"]["latency_cycles"].get<double>();
  const auto apart = [](double a, double b) { return b >= a * 1.05 && b >= a + 4; };
  if (!apart(l2, dram)) return false;
  if (cfg["l2"].contains("far_latency_cycles") &&
      first_latency(cfg["l2"]["far_latency_cycles"]) < l2)
    return false;
  for (const auto& [space, spec] : cfg["spaces"].items()) {
    if (!spec.contains("path")) continue;
    double before = 0;
    for (const auto& name : spec["path"]) {
      const double lat = cfg["caches"][name.get<std::string>()]["latency_cycles"].get<double>();
      if (before > 0 && !apart(before, lat)) return false;
      before = lat;
    }
    if (before > 0 && !apart(before, l2)) return false;
  }
  return true;
}

// An instruction cache that holds constants is the constant space's last cache: it takes that
// cache's drawn size.
void sync_constant_icache(json& cfg) {
  if (!cfg.contains("compute") || !cfg["compute"].contains("instruction_caches")) return;
  for (auto& icache : cfg["compute"]["instruction_caches"])
    if (icache.value("holds_constants", false))
      icache["size_bytes"] =
          cfg["caches"][cfg["spaces"]["constant"]["path"].back().get<std::string>()]["size_bytes"];
}

json draw(const json& preset, Rng& rng) {
  json cfg = preset;
  const double clock = log_uniform(rng, 0.8, 1.3);
  const auto latency = [&] { return clock * log_uniform(rng, 0.9, 1.1); };
  for (auto& [name, cache] : cfg["caches"].items()) {
    scale_sets(cache, log_uniform(rng, 0.55, 1.8));
    scale_latency(cache["latency_cycles"], latency());
  }
  sync_constant_icache(cfg);
  json& l2 = cfg["l2"];
  if (!l2.contains("sets")) {
    const auto segments = l2.value("segments", 1);
    const auto way_bytes = l2["line_bytes"].get<std::uint64_t>() * l2["ways"].get<std::uint64_t>();
    const auto sets =
        l2["size_bytes"].get<std::uint64_t>() / way_bytes / static_cast<std::uint64_t>(segments);
    const auto scaled = scaled_sets(l2, sets, log_uniform(rng, 0.55, 1.8), 16);
    l2["size_bytes"] = scaled * way_bytes * static_cast<std::uint64_t>(segments);
  }
  const double l2_factor = latency();
  for (const char* key : {"near_latency_cycles", "far_latency_cycles"})
    if (l2.contains(key)) scale_latency(l2[key], l2_factor * log_uniform(rng, 0.95, 1.05));
  if (cfg.contains("mall")) {
    scale_sets(cfg["mall"], log_uniform(rng, 0.55, 1.8));
    scale_latency(cfg["mall"]["latency_cycles"], latency());
  }
  scale_latency(cfg["dram"]["latency_cycles"], latency());
  if (cfg["spaces"].contains("shared") && cfg["spaces"]["shared"].contains("latency_cycles"))
    scale_latency(cfg["spaces"]["shared"]["latency_cycles"], latency());
  for (auto& [key, value] : cfg["bandwidth"].items())
    if (key.ends_with("_gbps") || key.ends_with("_per_clk"))
      value = value.get<double>() * log_uniform(rng, 0.6, 1.6);
  return cfg;
}

}  // namespace

json perturbed_config(const json& preset, std::uint64_t seed) {
  Rng rng(device::sim::mix64(seed, device::sim::text_hash(preset.value("name", ""))));
  for (int attempt = 0; attempt < 32; ++attempt) {
    json cfg = draw(preset, rng);
    if (!ordered(cfg)) continue;
    cfg["name"] = preset.value("name", "") + "~" + std::to_string(seed);
    try {
      device::sim::parse_config(cfg.dump(), cfg["name"].get<std::string>());
    } catch (const device::Error&) {
      continue;  // a draw the simulator refuses, such as a second level smaller than the first
    }
    return cfg;
  }
  throw std::runtime_error("no draw keeps the levels of " + preset.value("name", "") + " in order");
}

}  // namespace gputopo::discovery::testing
