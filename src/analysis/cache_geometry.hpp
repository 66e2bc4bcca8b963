#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

// What the capacity of a cache at power-of-two strides says about its sets, ways and index
// function, and which replacement policy explains the victims of access-order experiments.
namespace gputopo::analysis {

// The most lines at a stride of 2^bit bytes that a cyclic chase keeps without a miss. `bounded`:
// the search reached its largest array, so `lines` is a lower bound only.
struct StrideCapacity {
  int bit = 0;
  std::uint64_t lines = 0;
  bool bounded = false;
};

// A linear (XOR) set index over W-way sets gives capacity W x 2^rank at stride 2^bit, where rank is
// the rank of the index function over the address bits from `bit` up: the capacity never rises with
// the stride and at most halves per bit. A plain modulo index on bits [line bit, line bit + b)
// halves at each of those bits from the first and stays at W above them; a hashed index keeps the
// whole capacity at the low bits (the bit groups above fold back into every set) and halves only
// at the highest bits that take part.
struct IndexInference {
  enum class Kind { Plain, Hashed, FullyAssociative, Inconsistent };
  Kind kind = Kind::Inconsistent;
  // FullyAssociative: the capacity never changes over the strides tested: one set, or a hash of
  // every bit tested (ways and sets not separated).
  std::optional<std::uint64_t> ways;  // the capacity where it levels off above the index
  std::optional<std::uint64_t> sets;
  int low_bit = 0;             // the line bit: the lowest index bit
  std::vector<int> halving;    // bits at which the capacity halves (they take part in the index)
  std::optional<int> top_bit;  // the highest bit tested with an exact capacity
  std::string why;             // for Inconsistent, or why ways and sets are not separated
  // Plain: the set count's odd factor, found by odd multiples of the power-of-two set span (a
  // modulo by 3 x 2^m sets looks like 3 W ways at power-of-two strides).
  std::uint64_t odd_factor = 1;
};
// `profile` starts at `line_bit`, or above it with `folds` telling that the first stride already
// holds more than a plain index allows (the upper bits fold in: a hash).
IndexInference infer_index(const std::vector<StrideCapacity>& profile, int line_bit,
                           bool folds = false);

std::string to_string(IndexInference::Kind kind);

// The replacement policies a victim experiment can tell apart.
enum class Policy { Lru, Fifo, TreePlru };
std::string to_string(Policy p);

// An experiment on one set of `ways` ways: lines 0..ways-1 fill it (into the empty ways in order),
// `touches` are accessed (hits), then line `ways` enters. The line it evicts under `policy`, or
// nullopt where the policy does not apply (tree-PLRU on a way count that is no power of two).
std::optional<std::uint64_t> predicted_victim(Policy policy, std::uint64_t ways,
                                              const std::vector<std::uint64_t>& touches);

// Touch orders that tell LRU, FIFO and tree-PLRU apart for `ways` ways (a handful).
std::vector<std::vector<std::uint64_t>> victim_experiments(std::uint64_t ways);

}  // namespace gputopo::analysis
