#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "device/sim/rng.hpp"

namespace gputopo::device::sim {

enum class Replacement : std::uint8_t { Lru, Fifo, Random, TreePlru };

std::string_view to_string(Replacement r);
std::optional<Replacement> replacement_from_string(std::string_view name);

// Shape of one set-associative cache. Line, sector and fetch sizes are powers of two with
// sector <= fetch <= line; a line holds at most 32 sectors.
struct CacheGeometry {
  std::uint64_t size_bytes = 0;
  std::uint32_t line_bytes = 128;
  std::uint32_t sector_bytes = 32;
  std::uint32_t fetch_bytes = 32;  // bytes brought in by one miss, aligned: the fetch granularity
  std::uint32_t ways = 4;
  Replacement replacement = Replacement::Lru;
  // XOR-folds upper line-address bits into the set index: the groups of log2(sets) line bits
  // above the index, at line bits log2(sets) and 2 log2(sets) (shorthand for index_xor_bits).
  bool hashed_index = false;
  // Address bits where further XOR groups start: each group of log2(sets) address bits from there
  // is XORed into the plain index (bits from log2(line)). Empty with hashed_index: plain modulo.
  std::vector<std::uint32_t> index_xor_bits{};
  // What a store does where the line is absent: bring it in (the written sector) or pass on.
  bool write_allocate = true;
  // Write-back: a store the cache takes (a hit, or an allocated miss) ends there; write-through:
  // it goes on to the next level too. (The L2's own policy is L2Spec::write_back.)
  bool write_back = false;

  std::uint64_t sets() const { return size_bytes / (std::uint64_t{line_bytes} * ways); }
};

// A set-associative cache over flat arrays: no allocation after construction. Lines are named by
// their line number (address / line size). A line is present with a mask of valid sectors; a load
// hits when its line is present and its sector valid.
class Cache {
 public:
  struct Line {
    std::uint64_t number = 0;
    std::uint32_t sectors = 0;
  };
  static constexpr std::int64_t kAbsent = -1;

  // `geometry` must already be valid (see config validation).
  Cache(const CacheGeometry& geometry, std::uint64_t seed);

  const CacheGeometry& geometry() const { return geometry_; }

  // Forgets every line and all replacement state; the random policy restarts its sequence. Costs
  // time in proportion to the sets used since the last reset, not to the cache size.
  void reset();

  // Loads the byte at `address`: true on a hit. A miss fetches the aligned fetch block, allocating
  // the line (and evicting one) when it is absent.
  bool access(std::uint64_t address) {
    const std::uint64_t line = address >> line_shift_;
    const std::uint32_t sector = sector_bit(address);
    const std::int64_t slot = find(line);
    if (slot != kAbsent) {
      touch(slot);
      if (sectors_[slot] & sector) return true;
      sectors_[slot] |= fetch_mask(address);
      return false;
    }
    insert(line, fetch_mask(address));
    return false;
  }

  // Fetches `fetch_bytes` per miss from now on: a power of two from the sector to the line size
  // (the L2's fetch under a driver limit). Lines already present keep their sectors.
  void set_fetch_bytes(std::uint32_t fetch_bytes);

  // The pieces the segmented L2 composes.
  std::uint64_t line_of(std::uint64_t address) const { return address >> line_shift_; }
  std::uint32_t sector_bit(std::uint64_t address) const {
    return 1u << ((address >> sector_shift_) & sector_index_mask_);
  }
  std::uint32_t fetch_mask(std::uint64_t address) const {
    const auto first = static_cast<std::uint32_t>((address >> sector_shift_) & sector_index_mask_) &
                       ~(sectors_per_fetch_ - 1);
    return fetch_block_ << first;
  }
  std::int64_t find(std::uint64_t line) const {
    const std::uint64_t base = set_of(line) * ways_;
    for (std::uint64_t w = 0; w < ways_; ++w)
      if (tags_[base + w] == line) return static_cast<std::int64_t>(base + w);
    return kAbsent;
  }
  std::uint32_t sectors(std::int64_t slot) const { return sectors_[slot]; }
  void add_sectors(std::int64_t slot, std::uint32_t mask) { sectors_[slot] |= mask; }
  // Replacement bookkeeping for a use of a present line.
  void touch(std::int64_t slot) {
    if (geometry_.replacement == Replacement::Lru)
      stamps_[slot] = tick();
    else if (geometry_.replacement == Replacement::TreePlru)
      touch_plru(slot);
  }
  // Allocates `line` (absent) with `sectors` valid; returns the line it evicted, if any.
  std::optional<Line> insert(std::uint64_t line, std::uint32_t sectors);
  // Takes a present line out of the cache.
  Line remove(std::int64_t slot);

  // Continues the replacement clock from `stamp`, so that tests reach its wrap-around quickly.
  void advance_clock(std::uint32_t stamp) { clock_ = std::max(clock_, stamp); }
  // Number of lines present.
  std::uint64_t lines() const { return lines_; }
  // Lines currently present (for tests and debugging), in slot order.
  std::vector<Line> contents() const;

 private:
  static constexpr std::uint64_t kInvalid = ~std::uint64_t{0};

  void touch_plru(std::int64_t slot);
  std::uint64_t set_of(std::uint64_t line) const {
    std::uint64_t h = line;
    for (const int shift : xor_shifts_) h ^= line >> shift;
    return sets_pow2_ ? (h & set_mask_) : (h % sets_);
  }
  std::uint64_t victim(std::uint64_t base);
  std::uint32_t tick();  // the next stamp; renumbers all stamps before the clock wraps

  CacheGeometry geometry_;
  std::uint64_t seed_;
  std::uint64_t sets_;
  std::uint64_t ways_;
  bool sets_pow2_;
  std::uint64_t set_mask_;
  int set_bits_;
  int line_shift_;
  int sector_shift_;
  std::uint64_t sector_index_mask_;
  std::uint32_t sectors_per_fetch_;
  std::uint32_t fetch_block_;
  int plru_levels_ = 0;
  std::vector<int> xor_shifts_;  // line-number shifts XORed into the index

  std::vector<std::uint64_t> tags_;
  std::vector<std::uint32_t> sectors_;
  std::vector<std::uint32_t> stamps_;  // LRU: last use; FIFO: insertion; 0: empty
  std::vector<std::uint64_t> plru_;    // tree-PLRU node bits, one word per set
  // Sets that received a line since the last reset, so that reset() touches only those.
  std::vector<std::uint8_t> set_dirty_;
  std::vector<std::uint64_t> dirty_sets_;
  std::uint32_t clock_ = 0;
  std::uint64_t lines_ = 0;  // lines present
  Rng rng_;
};

}  // namespace gputopo::device::sim
