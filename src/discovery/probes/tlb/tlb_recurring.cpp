#include "discovery/probes/tlb/tlb_recurring.hpp"

#include <algorithm>
#include <vector>

#include "analysis/clean_level.hpp"

namespace gputopo::discovery {
namespace {

// The segments of a chain and how they line up from pass to pass.
struct Passes {
  std::span<const double> s;
  std::int64_t loads = 0;  // per segment
  std::int64_t pass = 0;   // loads per pass (the elements)
  double top = 0;          // the highest value that is not high

  std::int64_t n() const { return static_cast<std::int64_t>(s.size()); }
  bool high(std::int64_t k) const {
    return k >= 0 && k < n() && s[static_cast<std::size_t>(k)] > top;
  }
  // Whether segment k's loads, `d` loads away, lie in a high segment: 1 or 0, or -1 where the
  // chain did not time them.
  int again(std::int64_t k, std::int64_t d) const {
    const std::int64_t first = k * loads + d;
    if (first < 0 || first + loads > n() * loads) return -1;
    return high(first / loads) || high((first + loads - 1) / loads) ? 1 : 0;
  }
  // Whether segment k's loads are high again in every pass within two that the chain timed.
  bool recurs(std::int64_t k) const {
    int timed = 0;
    for (const std::int64_t d : {-2 * pass, -pass, pass, 2 * pass}) {
      const int a = again(k, d);
      if (a == 0) return false;
      if (a > 0) ++timed;
    }
    return timed > 0;
  }
};

}  // namespace

RecurringMean recurring_mean(std::span<const double> segments, std::uint32_t segment_loads,
                             std::uint64_t elements) {
  RecurringMean out;
  out.segments = segments.size();
  if (segments.empty()) return out;
  std::vector<double> sorted(segments.begin(), segments.end());
  std::sort(sorted.begin(), sorted.end());
  const auto clean = analysis::high_trimmed(segments, 4.0, 0.01);
  const Passes p{segments, segment_loads, static_cast<std::int64_t>(elements),
                 sorted[std::max<std::size_t>(clean.clean, 1) - 1]};
  const bool passes = p.pass >= p.loads && p.n() * p.loads >= 2 * p.pass;
  std::vector<bool> kept(segments.size(), true);
  std::vector<std::size_t> recurring;
  std::size_t slow = 0;
  for (std::size_t k = 0; k < segments.size(); ++k) {
    if (!p.high(static_cast<std::int64_t>(k))) continue;
    if (passes && p.recurs(static_cast<std::int64_t>(k)))
      recurring.push_back(k);
    else
      kept[k] = false, ++slow;
  }
  // A slow load's segment can meet another's by chance a pass away: as many of the recurring
  // segments, the highest, as such meetings explain (analysis::outlier_allowance at the chance
  // that the two segments a pass away hold a high one) are left out as well.
  if (slow > 0 && !recurring.empty()) {
    const double meets = std::min(1.0, 2.0 * static_cast<double>(slow + recurring.size()) /
                                           static_cast<double>(segments.size()));
    const std::size_t chance = std::min(recurring.size(), analysis::outlier_allowance(slow, meets));
    std::sort(recurring.begin(), recurring.end(),
              [&](std::size_t a, std::size_t b) { return segments[a] > segments[b]; });
    for (std::size_t i = 0; i < chance; ++i) kept[recurring[i]] = false;
  }
  double sum = 0;
  std::size_t count = 0;
  for (std::size_t k = 0; k < segments.size(); ++k)
    if (kept[k]) sum += segments[k], ++count;
  out.left_out = segments.size() - count;
  out.cycles = count > 0 ? sum / static_cast<double>(count) : sorted.front();
  return out;
}

}  // namespace gputopo::discovery
