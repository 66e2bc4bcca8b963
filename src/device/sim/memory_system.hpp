#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "device/sim/cache.hpp"
#include "device/sim/config.hpp"

namespace gputopo::device::sim {

// Where a load was served. Private levels are numbered by their position in the space's path.
struct Served {
  enum Kind : std::uint8_t { Private, L2Near, L2Far, Mall, Dram };
  Kind kind;
  std::uint8_t position;  // Private: index in the path; L2Far: the segment that held the line
};

// The caches one SM sees, plus the whole L2, for one request at a time.
//
// The L2 is split into segments. An SM loads through its near segment; a line evicted there
// moves to one of the other (far) segments, chosen by address, and a far hit moves the line back.
// One SM therefore sees near hits up to one segment's capacity, far hits up to the whole L2, and
// DRAM beyond it.
class MemorySystem {
 public:
  explicit MemorySystem(const SimConfig& config);

  // Sizes the SM-private caches for a carve-out and extra shared bytes (rebuilt only on change).
  void configure(std::optional<int> carveout_percent, std::uint64_t extra_shared_bytes);
  // Bytes each L2 miss fetches from now on (SimConfig::l2_fetch_bytes gives the value for a
  // driver limit).
  void set_l2_fetch_bytes(std::uint32_t fetch_bytes);
  // Forgets everything cached: each request starts cold, as after an L2 flush.
  void reset();

  // The caches a thread in `warp` passes through for `space`, nearest first. With `other_sm`, the
  // thread runs on another SM than `sm` (two-SM interference): it shares an instance with `sm`
  // only where the cache is shared by SMs of one group that holds both; elsewhere it gets the
  // other SM's own instance.
  std::vector<Cache*> path(Space space, std::uint32_t warp, int sm = 0, int other_sm = -1);
  // Capacity of SM-private cache `index` as currently configured.
  const CacheGeometry& geometry(std::size_t index) const {
    return private_[index].front().geometry();
  }

  Served load(Cache* const* path, std::size_t levels, int segment, std::uint64_t address) {
    for (std::size_t i = 0; i < levels; ++i)
      if (path[i]->access(address)) return {Served::Private, static_cast<std::uint8_t>(i)};
    return l2_load(segment, address);
  }
  // A store of one sector: each level on the path keeps the line it holds (the sector becomes
  // valid), allocates it where it writes-allocate, or lets the store pass; a write-back level that
  // took the store ends it. What passes every level reaches the L2, which allocates likewise.
  void store(Cache* const* path, std::size_t levels, int segment, std::uint64_t address);

 private:
  Served l2_load(int segment, std::uint64_t address);
  void l2_install(int segment, std::uint64_t line, std::uint32_t sectors);
  // Makes the sector of `address` valid in `cache`, allocating the line where the cache
  // writes-allocate; false where the store passed the cache by.
  static bool take_store(Cache& cache, std::uint64_t address);
  // An L2 miss: served by the memory-side cache where there is one and it holds the line. The
  // memory-side cache sees the whole block the L2 fetches.
  Served beyond_l2(std::uint64_t address);

  const SimConfig* config_;
  std::vector<std::vector<Cache>> private_;  // [cache][instance]
  std::vector<std::vector<Cache>> other_;    // another SM's instances, [cache][instance]
  std::vector<Cache> segments_;
  std::vector<Cache> mall_;  // empty, or the memory-side cache
};

}  // namespace gputopo::device::sim
