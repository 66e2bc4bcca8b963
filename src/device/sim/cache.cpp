#include "device/sim/cache.hpp"

#include <algorithm>
#include <array>
#include <bit>
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
      words_((ways_ + 7) / 8),
      empty_words_((ways_ + 63) / 64),
      tags_(sets_ * ways_, kInvalid),
      sectors_(sets_ * ways_),
      prints_(sets_ * words_),
      empty_(sets_ * empty_words_),
      state_(sets_),
      rng_(seed) {
  if (geometry_.hashed_index) xor_shifts_ = {set_bits_, 2 * set_bits_};
  for (const std::uint32_t bit : geometry_.index_xor_bits)
    xor_shifts_.push_back(static_cast<int>(bit) - line_shift_);
  if (geometry_.replacement == Replacement::Lru || geometry_.replacement == Replacement::Fifo) {
    links_.resize(sets_ * ways_);
  }
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

void Cache::clear_set(std::uint64_t set) {
  const auto at = [](auto& v, std::uint64_t first, std::uint64_t n, auto value) {
    std::fill_n(v.begin() + static_cast<std::ptrdiff_t>(first), n, value);
  };
  at(tags_, set * ways_, ways_, kInvalid);  // sectors_ is written when a way is taken
  at(prints_, set * words_, words_, std::uint64_t{0});
  at(empty_, set * empty_words_, empty_words_, ~std::uint64_t{0});
  if (ways_ % 64 != 0)
    empty_[set * empty_words_ + empty_words_ - 1] = (std::uint64_t{1} << (ways_ % 64)) - 1;
  state_[set].oldest = state_[set].newest = kNone;
  if (!plru_.empty()) plru_[set] = 0;
}

void Cache::reset() {
  if (++generation_ == 0) {  // after 2^32 resets: no stale stamp may match again
    for (SetState& state : state_) state.stamp = 0;
    generation_ = 1;
  }
  lines_ = 0;
  rng_ = Rng(seed_);
}

void Cache::touch_plru(std::uint64_t set, std::uint64_t way) {
  // Point every node on the way's path away from it.
  std::uint64_t& bits = plru_[set];
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

void Cache::unlink(std::uint64_t set, std::uint64_t way) {
  const std::uint64_t base = set * ways_;
  const Link link = links_[base + way];
  (link.older == kNone ? state_[set].oldest : links_[base + link.older].newer) = link.newer;
  (link.newer == kNone ? state_[set].newest : links_[base + link.newer].older) = link.older;
}

void Cache::append(std::uint64_t set, std::uint64_t way) {
  const std::uint64_t base = set * ways_;
  SetState& state = state_[set];
  const std::uint16_t last = state.newest;
  links_[base + way] = {last, kNone};
  (last == kNone ? state.oldest : links_[base + last].newer) = static_cast<std::uint16_t>(way);
  state.newest = static_cast<std::uint16_t>(way);
}

std::uint64_t Cache::victim(std::uint64_t set) {
  // The lowest empty way, or else the policy's choice among the full set's lines.
  const std::uint64_t* empty = &empty_[set * empty_words_];
  for (std::uint64_t k = 0; k < empty_words_; ++k)
    if (empty[k] != 0) return k * 64 + static_cast<std::uint64_t>(std::countr_zero(empty[k]));
  switch (geometry_.replacement) {
    case Replacement::Lru:
    case Replacement::Fifo:
      return state_[set].oldest;
    case Replacement::Random:
      return rng_.below(ways_);
    case Replacement::TreePlru: {
      const std::uint64_t bits = plru_[set];
      std::uint64_t node = 1;
      std::uint64_t way = 0;
      for (int level = 0; level < plru_levels_; ++level) {
        const std::uint64_t dir = (bits >> node) & 1u;
        way = way * 2 + dir;
        node = node * 2 + dir;
      }
      return way;
    }
  }
  return 0;
}

std::uint64_t Cache::allocate(std::uint64_t set) {
  if (state_[set].stamp != generation_) {
    clear_set(set);
    state_[set].stamp = generation_;
  }
  return victim(set);
}

std::optional<Cache::Line> Cache::insert(std::uint64_t line, std::uint32_t sectors) {
  const std::uint64_t set = set_of(line);
  const std::uint64_t way = allocate(set);
  const std::uint64_t i = set * ways_ + way;
  std::optional<Line> evicted;
  if ((empty_[set * empty_words_ + way / 64] >> (way % 64) & 1u) == 0)
    evicted = Line{tags_[i], sectors_[i]};
  place(set, way, line, sectors);
  return evicted;
}

void Cache::fill(std::uint64_t line, std::uint32_t sectors) {
  const std::uint64_t set = set_of(line);
  place(set, allocate(set), line, sectors);
}

void Cache::place(std::uint64_t set, std::uint64_t way, std::uint64_t line, std::uint32_t sectors) {
  const std::uint64_t i = set * ways_ + way;
  std::uint64_t& empty = empty_[set * empty_words_ + way / 64];
  const std::uint64_t bit = std::uint64_t{1} << (way % 64);
  if ((empty & bit) == 0) {
    if (!links_.empty()) unlink(set, way);
  } else {
    empty &= ~bit;
    ++lines_;
  }
  tags_[i] = line;
  set_print(set, way, fingerprint(line));
  sectors_[i] = sectors;
  if (!links_.empty()) append(set, way);  // insertion order for FIFO, use order for LRU
  if (geometry_.replacement == Replacement::TreePlru) touch_plru(set, way);
}

Cache::Line Cache::remove(std::int64_t slot) {
  const auto s = static_cast<std::uint64_t>(slot);
  const std::uint64_t set = s >> 8;
  const std::uint64_t way = s & 0xff;
  const std::uint64_t i = set * ways_ + way;
  const Line line{tags_[i], sectors_[i]};
  --lines_;
  tags_[i] = kInvalid;
  sectors_[i] = 0;
  set_print(set, way, 0);
  empty_[set * empty_words_ + way / 64] |= std::uint64_t{1} << (way % 64);
  if (!links_.empty()) unlink(set, way);
  return line;
}

std::vector<Cache::Line> Cache::contents() const {
  std::vector<Line> lines;
  for (std::uint64_t set = 0; set < sets_; ++set)
    for (std::uint64_t i = set * ways_; state_[set].stamp == generation_ && i < (set + 1) * ways_;
         ++i)
      if (tags_[i] != kInvalid) lines.push_back({tags_[i], sectors_[i]});
  return lines;
}

}  // namespace gputopo::device::sim
