#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "device/requests.hpp"
#include "device/sim/cache.hpp"

namespace gputopo::device::sim {

class JsonReader;

// One level of address translation: `entries` pages of `page_bytes`, `ways`-associative (ways ==
// entries: fully associative), indexed by the page number.
struct TlbLevelSpec {
  std::string name;
  std::uint32_t entries = 0;
  std::uint32_t ways = 0;
  std::uint64_t page_bytes = 0;
  Replacement replacement = Replacement::Lru;
  double miss_cycles = 0;  // added to a load that misses this level
};

// The translation of loads into device memory: named levels and, per space, the levels its
// loads go through, nearest first. Spaces naming the same level share it.
struct TlbSpec {
  std::vector<TlbLevelSpec> levels;
  std::array<std::vector<int>, 6> paths;  // indexed by Space; empty: no translation
};

// Parses the optional "tlb" section. Throws through `r` on a bad field.
TlbSpec parse_tlb(const JsonReader& r);

// The TLB levels of one SM. A load that leaves the SM's private caches (the L2 or device memory
// serves it) looks its page up in its space's levels, nearest first: the first level holding the
// page ends the walk; every level missed on the way costs its miss cycles and takes the page in.
class Translation {
 public:
  explicit Translation(const TlbSpec& spec);

  void reset();
  // The extra cycles of translating `address` for a load of `space` that reached the L2.
  double translate(Space space, std::uint64_t address) {
    double cycles = 0;
    for (const int level : paths_[static_cast<std::size_t>(space)]) {
      if (levels_[static_cast<std::size_t>(level)].access(address)) break;
      cycles += miss_cycles_[static_cast<std::size_t>(level)];
    }
    return cycles;
  }
  bool translates(Space space) const { return !paths_[static_cast<std::size_t>(space)].empty(); }

 private:
  std::vector<Cache> levels_;
  std::vector<double> miss_cycles_;
  std::array<std::vector<int>, 6> paths_;
};

}  // namespace gputopo::device::sim
