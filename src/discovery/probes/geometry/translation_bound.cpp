#include "discovery/probes/geometry/translation_bound.hpp"

#include <algorithm>
#include <limits>
#include <numeric>
#include <string>

namespace gputopo::discovery {
namespace {

constexpr int kLevels = 3;

std::string level_element(int k) { return "tlb" + std::to_string(k); }

// Pages a level holds of a chase `stride` apart, as lines: consecutive pages fill every set
// (stride under a page: page / stride lines each); pages stride / page apart use sets / gcd of
// the two, `ways` each.
std::uint64_t lines_held(const TranslationLevel& l, std::uint64_t stride) {
  if (stride < l.page) return l.entries * (l.page / stride);
  const std::uint64_t ways = l.ways ? l.ways : 1;
  const std::uint64_t sets = std::max<std::uint64_t>(1, l.entries / ways);
  const std::uint64_t apart = stride / l.page;
  return ways * (sets / std::gcd(sets, apart));
}

}  // namespace

std::vector<Finding> translation_findings() {
  std::vector<Finding> out;
  for (int k = 1; k <= kLevels; ++k)
    for (const model::Key* key :
         {&keys::entries, &keys::associativity, &keys::pageSize, &keys::missPenalty})
      out.push_back({level_element(k), key});
  return out;
}

std::vector<TranslationLevel> translation_levels(const Context& ctx) {
  std::vector<TranslationLevel> out;
  for (int k = 1; k <= kLevels; ++k) {
    const std::string e = level_element(k);
    const Input entries = ctx.input(e, keys::entries);
    const Input page = ctx.input(e, keys::pageSize);
    const Input penalty = ctx.input(e, keys::missPenalty);
    if (!entries || !page || !penalty || *page.value < 1 || *entries.value < 1) continue;
    const Input ways = ctx.input(e, keys::associativity);
    out.push_back({static_cast<std::uint64_t>(*page.value),
                   static_cast<std::uint64_t>(*entries.value),
                   ways ? static_cast<std::uint64_t>(*ways.value) : 0, *penalty.value});
  }
  return out;
}

std::uint64_t translated_lines(const std::vector<TranslationLevel>& levels, std::uint64_t stride,
                               double tolerated) {
  std::uint64_t most = std::numeric_limits<std::uint64_t>::max();
  double penalty = 0;  // a miss at a level missed every level before it too
  for (const auto& l : levels) {
    penalty += l.penalty;
    if (penalty > tolerated) most = std::min(most, lines_held(l, stride));
  }
  return most;
}

}  // namespace gputopo::discovery
