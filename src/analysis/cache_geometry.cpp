#include "analysis/cache_geometry.hpp"

#include <algorithm>
#include <bit>
#include <numeric>

namespace gputopo::analysis {

std::string to_string(IndexInference::Kind kind) {
  switch (kind) {
    case IndexInference::Kind::Plain:
      return "plain";
    case IndexInference::Kind::Hashed:
      return "hashed";
    case IndexInference::Kind::FullyAssociative:
      return "fully associative";
    case IndexInference::Kind::Inconsistent:
      break;
  }
  return "inconsistent";
}

IndexInference infer_index(const std::vector<StrideCapacity>& profile, int line_bit, bool folds) {
  IndexInference out;
  out.low_bit = line_bit;
  std::vector<StrideCapacity> exact;
  for (const auto& p : profile) {
    if (p.bounded || p.lines == 0) break;
    if (!exact.empty() && p.bit != exact.back().bit + 1) break;
    exact.push_back(p);
  }
  if (folds && exact.size() < 3) {
    out.kind = IndexInference::Kind::Hashed;
    out.why =
        "hashed index: the capacity at the first stride tested exceeds what a plain index "
        "leaves, and larger strides hold more lines than the search allowed";
    return out;
  }
  if (exact.size() < 3 || (exact.front().bit != line_bit && !folds)) {
    out.why = "fewer than three consecutive strides from the first have an exact capacity";
    return out;
  }
  out.top_bit = exact.back().bit;
  for (std::size_t i = 1; i < exact.size(); ++i) {
    const auto before = exact[i - 1].lines;
    const auto now = exact[i].lines;
    if (now == before) continue;
    if (now * 2 == before) {
      out.halving.push_back(exact[i - 1].bit);
      continue;
    }
    out.why = "the capacity goes from " + std::to_string(before) + " lines at stride 2^" +
              std::to_string(exact[i - 1].bit) + " to " + std::to_string(now) + " at 2^" +
              std::to_string(exact[i].bit) +
              ": a linear set index keeps it or halves it (a set count that is no power of two, "
              "or noise)";
    return out;
  }
  const std::uint64_t top = exact.back().lines;
  // Levelled off above the last halving, over at least two strides: those bits are above the index.
  const bool level = exact.size() >= 2 && exact[exact.size() - 2].lines == top &&
                     (out.halving.empty() || out.halving.back() + 1 < exact.back().bit);
  if (folds) {
    out.kind = IndexInference::Kind::Hashed;
    if (level && !out.halving.empty()) {
      out.ways = top;
      out.sets = (exact.front().lines << (exact.front().bit - line_bit)) / top;
    } else {
      out.why =
          "hashed index: the capacity at stride 2^" + std::to_string(exact.front().bit) +
          " exceeds what a plain index leaves, and no stride tested puts all lines in one set";
    }
    return out;
  }
  if (out.halving.empty()) {
    out.kind = IndexInference::Kind::FullyAssociative;
    out.why =
        "the capacity is the same at every stride tested: one set, or an index hashed from bits "
        "above 2^" +
        std::to_string(exact.back().bit);
    return out;
  }
  // Plain: halvings at consecutive bits starting at the line bit.
  bool consecutive = out.halving.front() == line_bit;
  for (std::size_t i = 1; i < out.halving.size(); ++i)
    consecutive = consecutive && out.halving[i] == out.halving[i - 1] + 1;
  out.kind = consecutive ? IndexInference::Kind::Plain : IndexInference::Kind::Hashed;
  if (level) {
    out.ways = top;
    out.sets = exact.front().lines / top;
  } else {
    out.why = "the capacity still halves at the largest stride tested (2^" +
              std::to_string(exact.back().bit) + "): bits above it may take part";
  }
  if (out.kind == IndexInference::Kind::Hashed && !level)
    out.why = "hashed index: the capacity stays at " + std::to_string(exact.front().lines) +
              " lines up to stride 2^" + std::to_string(out.halving.front()) +
              ", so upper bit groups fold into every set; " + out.why;
  return out;
}

std::string to_string(Policy p) {
  switch (p) {
    case Policy::Lru:
      return "LRU";
    case Policy::Fifo:
      return "FIFO";
    case Policy::TreePlru:
      return "tree-PLRU";
  }
  return "unknown";
}

namespace {

// One set under a policy: ways hold line numbers; `order` is recency (LRU) or insertion (FIFO).
class SetModel {
 public:
  SetModel(Policy p, std::uint64_t ways) : policy_(p), ways_(ways), lines_(ways, kEmpty) {
    levels_ = std::countr_zero(ways);
  }
  void access(std::uint64_t line) {
    const auto it = std::find(lines_.begin(), lines_.end(), line);
    if (it != lines_.end()) {
      use(static_cast<std::uint64_t>(it - lines_.begin()), false);
      return;
    }
    const std::uint64_t way = victim_way();
    evicted_ = lines_[way];
    lines_[way] = line;
    use(way, true);
  }
  std::uint64_t evicted() const { return evicted_; }
  static constexpr std::uint64_t kEmpty = ~std::uint64_t{0};

 private:
  void use(std::uint64_t way, bool inserted) {
    if (policy_ == Policy::TreePlru) {
      std::uint64_t node = 1;
      for (int level = levels_ - 1; level >= 0; --level) {
        const std::uint64_t dir = (way >> level) & 1u;
        bits_ = dir ? bits_ & ~(std::uint64_t{1} << node) : bits_ | (std::uint64_t{1} << node);
        node = node * 2 + dir;
      }
      return;
    }
    if (policy_ == Policy::Fifo && !inserted) return;
    std::erase(order_, way);
    order_.push_back(way);
  }
  std::uint64_t victim_way() const {
    for (std::uint64_t w = 0; w < ways_; ++w)
      if (lines_[w] == kEmpty) return w;
    if (policy_ != Policy::TreePlru) return order_.front();
    std::uint64_t node = 1;
    std::uint64_t way = 0;
    for (int level = 0; level < levels_; ++level) {
      const std::uint64_t dir = (bits_ >> node) & 1u;
      way = way * 2 + dir;
      node = node * 2 + dir;
    }
    return way;
  }

  Policy policy_;
  std::uint64_t ways_;
  std::vector<std::uint64_t> lines_;
  std::vector<std::uint64_t> order_;
  std::uint64_t bits_ = 0;
  int levels_ = 0;
  std::uint64_t evicted_ = kEmpty;
};

}  // namespace

std::optional<std::uint64_t> predicted_victim(Policy policy, std::uint64_t ways,
                                              const std::vector<std::uint64_t>& touches) {
  if (ways == 0) return std::nullopt;
  if (policy == Policy::TreePlru && (!std::has_single_bit(ways) || ways > 64)) return std::nullopt;
  SetModel set(policy, ways);
  for (std::uint64_t line = 0; line < ways; ++line) set.access(line);
  for (const auto line : touches) set.access(line);
  set.access(ways);
  return set.evicted();
}

std::vector<std::vector<std::uint64_t>> victim_experiments(std::uint64_t ways) {
  std::vector<std::vector<std::uint64_t>> out;
  out.push_back({});   // LRU and FIFO: line 0
  out.push_back({0});  // LRU: line 1; FIFO: line 0
  std::vector<std::uint64_t> reverse(ways);
  std::iota(reverse.rbegin(), reverse.rend(), std::uint64_t{0});
  out.push_back(reverse);  // LRU: the last line filled
  std::vector<std::uint64_t> odd;
  for (std::uint64_t l = 1; l < ways; l += 2) odd.push_back(l);
  out.push_back(odd);
  std::vector<std::uint64_t> half;
  for (std::uint64_t l = 0; l < ways / 2; ++l) half.push_back((l * 5 + 3) % ways);
  out.push_back(half);
  std::vector<std::uint64_t> last{ways - 1, 0, ways / 2};
  out.push_back(last);
  return out;
}

}  // namespace gputopo::analysis
