#include "analysis/union_find.hpp"

#include <numeric>

namespace gputopo::analysis {

DisjointSets::DisjointSets(std::size_t n) : parent_(n) {
  std::iota(parent_.begin(), parent_.end(), std::size_t{0});
}

std::size_t DisjointSets::find(std::size_t x) {
  while (parent_[x] != x) x = parent_[x] = parent_[parent_[x]];
  return x;
}

void DisjointSets::join(std::size_t a, std::size_t b) { parent_[find(a)] = find(b); }

}  // namespace gputopo::analysis
