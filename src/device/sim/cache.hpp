#pragma once

#include <algorithm>
#include <bit>
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
  // A slot names a way of a set: (set << 8) | way, so that no operation divides.
  static constexpr std::int64_t kAbsent = -1;

  // `geometry` must already be valid (see config validation).
  Cache(const CacheGeometry& geometry, std::uint64_t seed);

  const CacheGeometry& geometry() const { return geometry_; }

  // Forgets every line and all replacement state; the random policy restarts its sequence. Takes
  // constant time: a set is cleared when it is next used (see SetState::stamp).
  void reset();

  // Loads the byte at `address`: true on a hit. A miss fetches the aligned fetch block, allocating
  // the line (and evicting one) when it is absent.
  bool access(std::uint64_t address) {
    const std::uint64_t line = address >> line_shift_;
    const std::uint32_t sector = sector_bit(address);
    const std::int64_t slot = find(line);
    if (slot != kAbsent) {
      touch(slot);
      if (sectors(slot) & sector) return true;
      add_sectors(slot, fetch_mask(address));
      return false;
    }
    fill(line, fetch_mask(address));
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
    // Compares the set's one-byte fingerprints eight at a time and the full tag only where a
    // fingerprint matches: the lowest way that holds `line`, as a scan of the tags would find.
    const std::uint64_t set = set_of(line);
    if (state_[set].stamp != generation_) return kAbsent;
    const std::uint64_t* prints = &prints_[set * words_];
    const std::uint64_t pattern = kBytes * fingerprint(line);
    for (std::uint64_t k = 0; k < words_; ++k) {
      const std::uint64_t x = prints[k] ^ pattern;
      // A byte of x that is zero sets its high bit here; a byte above one may too (checked).
      for (std::uint64_t m = (x - kBytes) & ~x & (kBytes << 7); m != 0; m &= m - 1) {
        const std::uint64_t w = k * 8 + static_cast<std::uint64_t>(std::countr_zero(m)) / 8;
        if (w < ways_ && tags_[set * ways_ + w] == line) return slot_of(set, w);
      }
    }
    return kAbsent;
  }
  std::uint32_t sectors(std::int64_t slot) const { return sectors_[index(slot)]; }
  void add_sectors(std::int64_t slot, std::uint32_t mask) { sectors_[index(slot)] |= mask; }
  // Replacement bookkeeping for a use of a present line.
  void touch(std::int64_t slot) {
    const auto s = static_cast<std::uint64_t>(slot);
    if (geometry_.replacement == Replacement::Lru)
      make_newest(s >> 8, s & 0xff);
    else if (geometry_.replacement == Replacement::TreePlru)
      touch_plru(s >> 8, s & 0xff);
  }
  // Allocates `line` (absent) with `sectors` valid; returns the line it evicted, if any.
  std::optional<Line> insert(std::uint64_t line, std::uint32_t sectors);
  // The same where the evicted line does not matter: the victim's tag is not read.
  void fill(std::uint64_t line, std::uint32_t sectors);
  // Takes a present line out of the cache.
  Line remove(std::int64_t slot);

  // Number of lines present.
  std::uint64_t lines() const { return lines_; }
  // Lines currently present (for tests and debugging), in slot order.
  std::vector<Line> contents() const;

 private:
  static constexpr std::uint64_t kInvalid = ~std::uint64_t{0};
  static constexpr std::uint64_t kBytes = 0x0101010101010101ULL;
  static constexpr std::uint16_t kNone = 0xffff;

  // A byte of the line number's hash: ways whose byte differs cannot hold the line.
  static std::uint64_t fingerprint(std::uint64_t line) {
    return (line * 0x9e3779b97f4a7c15ULL) >> 56;
  }
  static std::int64_t slot_of(std::uint64_t set, std::uint64_t way) {
    return static_cast<std::int64_t>(set << 8 | way);
  }
  std::uint64_t index(std::int64_t slot) const {
    const auto s = static_cast<std::uint64_t>(slot);
    return (s >> 8) * ways_ + (s & 0xff);
  }
  void set_print(std::uint64_t set, std::uint64_t way, std::uint64_t print) {
    std::uint64_t& word = prints_[set * words_ + way / 8];
    const int shift = static_cast<int>(way % 8) * 8;
    word = (word & ~(std::uint64_t{0xff} << shift)) | (print << shift);
  }
  void touch_plru(std::uint64_t set, std::uint64_t way);
  void clear_set(std::uint64_t set);  // empty, with no replacement state
  // The way that `line` takes in its set (cleared first where it is stale); `line` is absent.
  std::uint64_t allocate(std::uint64_t set);
  // Puts `line` with `sectors` in (set, way), which allocate() returned.
  void place(std::uint64_t set, std::uint64_t way, std::uint64_t line, std::uint32_t sectors);
  // LRU and FIFO keep each set's lines in a list from the oldest (use or insertion) to the newest.
  void make_newest(std::uint64_t set, std::uint64_t way) {
    if (state_[set].newest == way) return;
    unlink(set, way);
    append(set, way);
  }
  void unlink(std::uint64_t set, std::uint64_t way);
  void append(std::uint64_t set, std::uint64_t way);
  std::uint64_t set_of(std::uint64_t line) const {
    std::uint64_t h = line;
    for (const int shift : xor_shifts_) h ^= line >> shift;
    return sets_pow2_ ? (h & set_mask_) : (h % sets_);
  }
  std::uint64_t victim(std::uint64_t set);  // the way an insertion into `set` takes

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
  std::uint64_t words_;          // fingerprint words per set: ways / 8, rounded up
  std::uint64_t empty_words_;    // words of a set's empty-way mask: ways / 64, rounded up

  std::vector<std::uint64_t> tags_;  // [set * ways + way]
  std::vector<std::uint32_t> sectors_;
  std::vector<std::uint64_t> prints_;  // way w's fingerprint in byte w % 8 of word w / 8
  std::vector<std::uint64_t> empty_;   // bit w of word w / 64: way w holds no line
  // LRU and FIFO: the list's links, kNone at its ends; empty for the other policies.
  struct Link {
    std::uint16_t older = kNone;
    std::uint16_t newer = kNone;
  };
  std::vector<Link> links_;          // [set * ways + way]
  std::vector<std::uint64_t> plru_;  // tree-PLRU node bits, one word per set
  // What one set keeps beside its ways, together so that one memory line holds it.
  struct SetState {
    // The set's content is valid while this is the current generation; reset() starts a new
    // generation, so that a big cache is not swept after every request.
    std::uint32_t stamp = 0;
    std::uint16_t oldest = kNone;  // LRU and FIFO: the list's ends
    std::uint16_t newest = kNone;
  };
  std::vector<SetState> state_;
  std::uint32_t generation_ = 1;
  std::uint64_t lines_ = 0;  // lines present
  Rng rng_;
};

}  // namespace gputopo::device::sim
