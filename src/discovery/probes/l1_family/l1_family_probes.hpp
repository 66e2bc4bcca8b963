#pragma once

#include <string>
#include <vector>

#include "analysis/inference.hpp"
#include "device/info.hpp"
#include "device/requests.hpp"
#include "device/results.hpp"
#include "discovery/target.hpp"

// What the L1-family probes (L1, texture, read-only, constant L1 and L1.5, shared memory, sharing)
// share; each kind lives in its own file, and the chase probes work on any target (the L2 reuses
// the fetch probe).
namespace gputopo::discovery {

// Probe names are "<element>.<kind>".
std::string probe_name(const Target& t, const std::string& kind);

// The targets whose physical sharing is tested, in target order.
std::vector<Target> sharing_targets(const device::DeviceInfo& info);

// The earlier sharing targets that could be the same physical cache as `t` (level-1 views the
// carve-out applies to alike, with no space limit): the size and line probes test their sizes
// and lines on `t` first.
std::vector<Target> one_cache_with(const device::DeviceInfo& info, const Target& t);

// One view of a cache in the sharing test: its size and the stride its chases use.
struct SharingView {
  Target target;
  double size = 0;
  std::uint32_t stride = 0;
};
// Adds the sharing test of `a` (the smaller view) against `b` to `batch`: two requests, A after a
// tiny B (the reference), then A after B.
void add_sharing_test(const SharingView& a, const SharingView& b, device::InterferenceBatch& batch);
// The test-th sharing test of a batch's result: did B raise A's misses significantly?
analysis::DisturbanceResult sharing_test_result(const device::ChaseBatchResult& result,
                                                std::size_t test);

}  // namespace gputopo::discovery
