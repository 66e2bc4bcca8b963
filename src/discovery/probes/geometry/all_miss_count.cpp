#include "discovery/probes/geometry/all_miss_count.hpp"

#include <algorithm>
#include <numeric>
#include <random>
#include <vector>

#include "discovery/measure.hpp"
#include "discovery/probes/geometry/line_chase.hpp"

namespace gputopo::discovery {
namespace {

// Counts a sweep tries.
constexpr std::uint64_t kSweepCounts = 24;

// The hits in the last pass of chases of lines 0..n-1 for each n in `counts`, in one batch (-1
// where a result is short).
std::vector<double> hits(Context& ctx, const DrawSite& s,
                         const std::vector<std::uint64_t>& counts) {
  device::ChaseBatch batch;
  batch.carveout_percent = carveout_for(ctx, *s.target);
  const std::uint64_t region = counts.back();
  for (const std::uint64_t n : counts) {
    std::vector<std::uint64_t> lines(n);
    std::iota(lines.begin(), lines.end(), std::uint64_t{0});
    std::mt19937_64 rng(n);
    shuffle_after_first(lines, rng);
    batch.requests.push_back(lines_request(*s.target, s.line_bytes, lines, region));
  }
  const auto result = ctx.chase(batch);
  record_carveout(ctx, *s.target, result.conditions);
  std::vector<double> out;
  for (std::size_t i = 0; i < counts.size() && i < result.results.size(); ++i) {
    const double share = last_pass_miss_share(result.results[i], counts[i], *s.classifier);
    out.push_back(share < 0 ? -1 : (1 - share) * static_cast<double>(counts[i]));
  }
  return out;
}

// The bracket [the last count with a set's worth of hits, the count after it] of a sweep, where
// that one and every count after it missed entirely (a slow hit read as a miss can make a lower
// count look all missed; a set that keeps its lines hits `ways` times a pass, and under half of
// that is such a slip, never a set).
std::optional<AllMissCount> bracket(const std::vector<std::uint64_t>& counts,
                                    const std::vector<double>& hit, int ways) {
  const std::size_t n = std::min(counts.size(), hit.size());
  for (std::size_t i = n; i-- > 1;) {
    if (hit[i] < 0 || hit[i] > ways / 2.0) return std::nullopt;
    if (hit[i - 1] > ways / 2.0) return AllMissCount{counts[i - 1], counts[i]};
  }
  return std::nullopt;
}

std::vector<std::uint64_t> sweep(std::uint64_t lo, std::uint64_t hi) {
  std::vector<std::uint64_t> counts;
  for (std::uint64_t k = 0; k <= kSweepCounts; ++k) {
    const std::uint64_t n = lo + (hi - lo) * k / kSweepCounts;
    if (counts.empty() || n > counts.back()) counts.push_back(n);
  }
  return counts;
}

}  // namespace

std::optional<AllMissCount> all_miss_count(Context& ctx, const DrawSite& s, int ways,
                                           std::uint64_t guess) {
  if (kLinePasses * (guess + guess / 4) > device::kMaxSequence) return std::nullopt;
  ctx.expect_batches(2);
  const auto coarse_counts = sweep(guess - guess / 4, guess + guess / 4);
  const auto coarse = bracket(coarse_counts, hits(ctx, s, coarse_counts), ways);
  if (!coarse || coarse->all - coarse->not_all <= 1) return coarse;
  const auto fine_counts = sweep(coarse->not_all, coarse->all);
  return bracket(fine_counts, hits(ctx, s, fine_counts), ways);
}

}  // namespace gputopo::discovery
