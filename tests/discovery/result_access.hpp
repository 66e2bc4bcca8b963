#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <tuple>
#include <utility>

#include "device/sim/config.hpp"
#include "device/sim/presets.hpp"
#include "device/sim/sim_device.hpp"
#include "discovery/discover.hpp"

// What the discovery tests read from a Result, and one discovery per preset shared by a suite.
namespace gputopo::discovery::testing {

inline const model::Attribute* attr(const Result& r, const std::string& element,
                                    const std::string& key) {
  for (const auto& e : r.memory)
    if (e.key == element) return model::find(e.attributes, key);
  return nullptr;
}

inline double number(const model::Attribute* a) {
  return a && a->value.is_number() ? a->value.get<double>() : -1.0;
}

// The embedded preset `name`'s JSON (null, and a test failure, where there is none).
inline nlohmann::json preset_json(const std::string& name) {
  for (const auto& [preset, text] : device::sim::embedded_presets())
    if (preset == name) return nlohmann::json::parse(text);
  ADD_FAILURE() << "no " << name << " preset";
  return {};
}

// A simulated GPU of the embedded preset `name` with `change` applied to its JSON first.
template <class Change>
device::sim::SimConfig preset_changed(const std::string& name, Change&& change) {
  auto j = preset_json(name);
  if (j.is_null()) return {};
  change(j);
  return device::sim::parse_config(j.dump(), name + ", changed");
}

struct TimedResult {
  Result result;
  double seconds = 0;
};

// The discovery of `only` on a simulated GPU of `config` with its noise `seed`.
// What the driver says of an H100 that compute requests are checked against.
inline device::DeviceInfo h100_info() {
  device::DeviceInfo h100;
  h100.compute_capability = model::ComputeCapability{9, 0};
  h100.warp_size = 32;
  h100.max_threads_per_block = 1024;
  return h100;
}

inline Result discover_config(device::sim::SimConfig config, std::set<std::string> only,
                              std::uint64_t seed, Depth depth = Depth::Quick) {
  auto dev = device::sim::make_device(std::move(config), seed);
  NullProgress progress;
  Options o;
  o.only = std::move(only);
  o.depth = depth;
  return discover(*dev, o, progress, nullptr);
}

// The discovery of `only` on `preset` with the simulator's `seed`, run once per preset, selection
// and seed and kept.
inline const TimedResult& discover_preset(const std::string& preset, std::set<std::string> only,
                                          std::uint64_t seed = 7) {
  static std::map<std::tuple<std::string, std::set<std::string>, std::uint64_t>, TimedResult> done;
  auto key = std::make_tuple(preset, only, seed);
  if (const auto it = done.find(key); it != done.end()) return it->second;
  auto dev = device::sim::open(preset, seed);
  NullProgress progress;
  Options o;
  o.only = std::move(only);
  const auto t0 = std::chrono::steady_clock::now();
  TimedResult r;
  r.result = discover(*dev, o, progress, nullptr);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return done[key] = std::move(r);
}

}  // namespace gputopo::discovery::testing
