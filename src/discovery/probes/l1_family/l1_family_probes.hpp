#pragma once

#include <memory>
#include <string>
#include <vector>

#include "device/info.hpp"
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
// Doubling bracket + per-SM sweep -> size with interval (size_probe.cpp).
std::unique_ptr<Probe> make_size_probe(const Target& t);
// Stride sweep just past capacity -> line size (line_probe.cpp).
std::unique_ptr<Probe> make_line_probe(const Target& t);
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
