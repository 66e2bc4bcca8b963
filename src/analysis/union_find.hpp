#pragma once

#include <cstddef>
#include <vector>

namespace gputopo::analysis {

// Disjoint sets of the indices 0..n-1 (union-find with path halving).
class DisjointSets {
 public:
  explicit DisjointSets(std::size_t n);

  // The representative of x's set.
  std::size_t find(std::size_t x);
  // Joins the sets of a and b; b's representative stays the representative.
  void join(std::size_t a, std::size_t b);
  bool same(std::size_t a, std::size_t b) { return find(a) == find(b); }

 private:
  std::vector<std::size_t> parent_;
};

}  // namespace gputopo::analysis
