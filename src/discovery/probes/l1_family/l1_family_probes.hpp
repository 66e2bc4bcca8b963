#pragma once

#include <memory>
#include <string>
#include <vector>

#include "analysis/inference.hpp"
#include "device/info.hpp"
#include "device/requests.hpp"
#include "device/results.hpp"
#include "discovery/probe.hpp"
#include "discovery/target.hpp"
#include "model/keys.hpp"

// The L1-family probes (L1, texture, read-only, constant L1 and L1.5, shared memory, sharing); each
// kind lives in its own file, and the chase probes work on any target (the L2 reuses the fetch
// probe).
namespace gputopo::discovery {

// Registers the L1-family probes (l1_family_probes.cpp).
void add_l1_family_probes(std::vector<std::unique_ptr<Probe>>& probes,
                          const device::DeviceInfo& info);

// Probe names are "<element>.<kind>".
std::string probe_name(const Target& t, const std::string& kind);

// Cold stride sweep -> fetch granularity (fetch_probe.cpp).
std::unique_ptr<Probe> make_fetch_probe(const Target& t);
// Doubling bracket + per-SM sweep -> size with interval (size_probe.cpp). With `one_cache_with`
// (earlier views that may be the same physical cache), a sharing test and a few sizes around each
// view's size come first, in turn, and the full search runs only where none confirms.
std::unique_ptr<Probe> make_size_probe(const Target& t, std::vector<Target> one_cache_with = {});
// Stride sweep just past capacity -> line size (line_probe.cpp). Where this view's size was
// confirmed as that of a view of `one_cache_with`, strides around that view's line confirm it
// first.
std::unique_ptr<Probe> make_line_probe(const Target& t, std::vector<Target> one_cache_with = {});
// Hit latency in cycles and ns (latency_probe.cpp).
std::unique_ptr<Probe> make_latency_probe(const Target& t);
// Miss latency minus hit latency (miss_penalty_probe.cpp).
std::unique_ptr<Probe> make_miss_penalty_probe(const Target& t);
// Latency against the L2's: a level-2 target served at the L2's latency is absent, and its
// attributes say so (presence_probe.cpp).
std::unique_ptr<Probe> make_presence_probe(const Target& t);
// Two threads on different warps evicting each other -> instances per SM (amount_probe.cpp).
std::unique_ptr<Probe> make_amount_probe(const Target& t);
// One thread, two spaces evicting each other -> physically shared caches (sharing_probe.cpp).
std::unique_ptr<Probe> make_sharing_probe(std::vector<Target> candidates);
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
// The views the sharing probe found to be one physical cache -> one size for them
// (physical_cache_probe.cpp).
std::unique_ptr<Probe> make_physical_cache_probe(std::vector<Target> candidates);
// Global loads through L1 against L2-only loads -> are global loads cached in L1
// (l1_cached_probe.cpp).
std::unique_ptr<Probe> make_l1_cached_probe(const Target& l1);
// Read bandwidth of the SMs' L1s and shared memories, whole GPU and per SM clock
// (bandwidth_probes.cpp).
std::unique_ptr<Probe> make_l1_bandwidth_probe();
std::unique_ptr<Probe> make_shared_bandwidth_probe(const std::string& element);
// Shared memory (AMD: the LDS) under its element name: size from the API, latency measured
// (shared_memory_probe.cpp).
std::unique_ptr<Probe> make_shared_memory_probe(const std::string& element);
// Which SMs share one instance of a cache, by two-SM interference (sm_sharing_probe.cpp).
struct SmSharingSpec {
  const model::Key* size_key = &model::keys::size;  // the finding that holds the cache's size
  // True: every SM is grouped (all pairs not yet grouped); false: only SM 0's group, the count
  // derived from its size (for a large cache, where every pair would take too long).
  bool all_groups = true;
};
std::unique_ptr<Probe> make_sm_sharing_probe(const Target& t, SmSharingSpec spec);

}  // namespace gputopo::discovery
