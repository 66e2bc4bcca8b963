#include "device/sim/cache.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <limits>
#include <utility>

namespace gputopo::device::sim {
namespace {
constexpr std::array<std::pair<Replacement, std::string_view>, 4> kNames{{
    {Replacement::Lru, "lru"},
    {Replacement::Fifo, "fifo"},
    {Replacement::Random, "random"},
    {Replacement::TreePlru, "tree-plru"},
}};

int log2_floor(std::uint64_t v) { return 63 - std::countl_zero(v); }
int log2_ceil(std::uint64_t v) { return v <= 1 ? 0 : 64 - std::countl_zero(v - 1); }
}  // namespace

std::string_view to_string(Replacement r) {
  for (const auto& [value, name] : kNames)
    if (value == r) return name;
  return "unknown";
}

std::optional<Replacement> replacement_from_string(std::string_view name) {
  for (const auto& [value, n] : kNames)
    if (n == name) return value;
  return std::nullopt;
}

Cache::Cache(const CacheGeometry& geometry, std::uint64_t seed)
    : geometry_(geometry),
      seed_(seed),
      sets_(geometry.sets()),
      ways_(geometry.ways),
      sets_pow2_(std::has_single_bit(sets_)),
      set_mask_(sets_ - 1),
      set_bits_(std::max(1, log2_ceil(sets_))),
      line_shift_(log2_floor(geometry.line_bytes)),
      sector_shift_(log2_floor(geometry.sector_bytes)),
      sector_index_mask_(geometry.line_bytes / geometry.sector_bytes - 1),
      sectors_per_fetch_(geometry.fetch_bytes / geometry.sector_bytes),
      fetch_block_(sectors_per_fetch_ >= 32 ? ~0u : (1u << sectors_per_fetch_) - 1),
      tags_(sets_ * ways_, kInvalid),
      sectors_(sets_ * ways_),
      stamps_(sets_ * ways_),
      set_dirty_(sets_),
      rng_(seed) {
  dirty_sets_.reserve(sets_);
  if (geometry_.hashed_index) xor_shifts_ = {set_bits_, 2 * set_bits_};
  for (const std::uint32_t bit : geometry_.index_xor_bits)
    xor_shifts_.push_back(static_cast<int>(bit) - line_shift_);
  if (geometry_.replacement == Replacement::TreePlru) {
    plru_levels_ = log2_floor(ways_);
    plru_.resize(sets_);
  }
  reset();
}

void Cache::set_fetch_bytes(std::uint32_t fetch_bytes) {
  geometry_.fetch_bytes = fetch_bytes;
  sectors_per_fetch_ = fetch_bytes / geometry_.sector_bytes;
  fetch_block_ = sectors_per_fetch_ >= 32 ? ~0u : (1u << sectors_per_fetch_) - 1;
}

void Cache::reset() {
  if (dirty_sets_.size() * 2 > sets_) {
    std::fill(tags_.begin(), tags_.end(), kInvalid);
    std::fill(sectors_.begin(), sectors_.end(), 0u);
    std::fill(stamps_.begin(), stamps_.end(), 0u);
    std::fill(plru_.begin(), plru_.end(), 0u);
    std::fill(set_dirty_.begin(), set_dirty_.end(), std::uint8_t{0});
  } else {
    for (const std::uint64_t set : dirty_sets_) {
      const auto first = static_cast<std::ptrdiff_t>(set * ways_);
      const auto last = first + static_cast<std::ptrdiff_t>(ways_);
      std::fill(tags_.begin() + first, tags_.begin() + last, kInvalid);
      std::fill(sectors_.begin() + first, sectors_.begin() + last, 0u);
      std::fill(stamps_.begin() + first, stamps_.begin() + last, 0u);
      if (!plru_.empty()) plru_[set] = 0;
      set_dirty_[set] = 0;
    }
  }
  dirty_sets_.clear();
  clock_ = 0;
  lines_ = 0;
  rng_ = Rng(seed_);
}

void Cache::touch_plru(std::int64_t slot) {
  // Point every node on the way's path away from it.
  const auto s = static_cast<std::uint64_t>(slot);
  const std::uint64_t way = s % ways_;
  std::uint64_t& bits = plru_[s / ways_];
  std::uint64_t node = 1;
  for (int level = plru_levels_ - 1; level >= 0; --level) {
    const std::uint64_t dir = (way >> level) & 1u;
    if (dir)
      bits &= ~(std::uint64_t{1} << node);
    else
      bits |= std::uint64_t{1} << node;
    node = node * 2 + dir;
  }
}

std::uint32_t Cache::tick() {
  if (clock_ == std::numeric_limits<std::uint32_t>::max()) {
    // Replace each set's stamps by their rank: order within a set is all that matters.
    std::vector<std::pair<std::uint32_t, std::uint64_t>> order(ways_);
    for (std::uint64_t base = 0; base < tags_.size(); base += ways_) {
      for (std::uint64_t w = 0; w < ways_; ++w) order[w] = {stamps_[base + w], w};
      std::sort(order.begin(), order.end());
      for (std::uint64_t r = 0; r < ways_; ++r)
        if (order[r].first != 0)
          stamps_[base + order[r].second] = static_cast<std::uint32_t>(r + 1);
    }
    clock_ = static_cast<std::uint32_t>(ways_ + 1);
  }
  return ++clock_;
}

std::uint64_t Cache::victim(std::uint64_t base) {
  switch (geometry_.replacement) {
    case Replacement::Lru:
    case Replacement::Fifo: {
      // Empty ways carry stamp 0 and every line a later one: the first minimum is the first empty
      // way, or else the least recently used (inserted) line.
      std::uint64_t best = base;
      for (std::uint64_t w = 1; w < ways_; ++w)
        if (stamps_[base + w] < stamps_[best]) best = base + w;
      return best;
    }
    case Replacement::Random:
    case Replacement::TreePlru:
      break;
  }
  for (std::uint64_t w = 0; w < ways_; ++w)
    if (tags_[base + w] == kInvalid) return base + w;
  switch (geometry_.replacement) {
    case Replacement::Lru:
    case Replacement::Fifo:
      break;
    case Replacement::Random:
      return base + rng_.below(ways_);
    case Replacement::TreePlru: {
      const std::uint64_t bits = plru_[base / ways_];
      std::uint64_t node = 1;
      std::uint64_t way = 0;
      for (int level = 0; level < plru_levels_; ++level) {
        const std::uint64_t dir = (bits >> node) & 1u;
        way = way * 2 + dir;
        node = node * 2 + dir;
      }
      return base + way;
    }
  }
  return base;
}

std::optional<Cache::Line> Cache::insert(std::uint64_t line, std::uint32_t sectors) {
  const std::uint64_t set = set_of(line);
  if (!set_dirty_[set]) {
    set_dirty_[set] = 1;
    dirty_sets_.push_back(set);
  }
  const std::uint64_t slot = victim(set * ways_);
  std::optional<Line> evicted;
  if (tags_[slot] != kInvalid)
    evicted = Line{tags_[slot], sectors_[slot]};
  else
    ++lines_;
  tags_[slot] = line;
  sectors_[slot] = sectors;
  stamps_[slot] = tick();  // insertion time for FIFO, use time for LRU
  if (geometry_.replacement == Replacement::TreePlru) touch_plru(static_cast<std::int64_t>(slot));
  return evicted;
}

Cache::Line Cache::remove(std::int64_t slot) {
  const Line line{tags_[slot], sectors_[slot]};
  --lines_;
  tags_[slot] = kInvalid;
  sectors_[slot] = 0;
  stamps_[slot] = 0;
  return line;
}

std::vector<Cache::Line> Cache::contents() const {
  std::vector<Line> lines;
  for (std::size_t i = 0; i < tags_.size(); ++i)
    if (tags_[i] != kInvalid) lines.push_back({tags_[i], sectors_[i]});
  return lines;
}

}  // namespace gputopo::device::sim
