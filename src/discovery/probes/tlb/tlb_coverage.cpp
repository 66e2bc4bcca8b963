#include "discovery/probes/tlb/tlb_coverage.hpp"

namespace gputopo::discovery {
namespace {

// The count's share of `entries` at a test, nullopt where it was not run or saw no miss.
std::optional<double> share(std::uint64_t entries, const StrideTest& t) {
  if (!t.tested || !t.first_miss || entries == 0) return std::nullopt;
  return static_cast<double>(*t.first_miss - 1) / static_cast<double>(entries);
}

}  // namespace

Coverage read_coverage(std::uint64_t entries, const StrideTest& at_one_and_a_half,
                       const StrideTest& at_three) {
  Coverage c;
  if (at_three.tested) {
    // Odd multiples of a power-of-two page fill every set of a modulo index alike.
    const auto third = share(entries, at_three);
    if (!third || *third > (1.0 + 1.0 / 2) / 2) return c;
    c.pages = *third > (1.0 / 2 + 1.0 / 3) / 2 ? 2 : 4;
    c.at_least = c.pages == 4;
    return c;
  }
  const auto first = share(entries, at_one_and_a_half);
  if (!first || *first > (2.0 / 3 + 1.0) / 2) return c;
  c.pages = 2;
  c.at_least = true;  // 4 pages and more not ruled out
  return c;
}

}  // namespace gputopo::discovery
