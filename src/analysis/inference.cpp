#include "analysis/inference.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "analysis/changepoint.hpp"
#include "analysis/cluster.hpp"
#include "analysis/distributions.hpp"
#include "analysis/summary.hpp"

namespace gputopo::analysis {
namespace {

Estimate not_established(std::string reason) {
  Estimate e;
  e.reason = std::move(reason);
  return e;
}

Clustering pooled_levels(const std::vector<SweepPoint>& points) {
  std::vector<std::span<const double>> spans;
  for (const SweepPoint& p : points) spans.emplace_back(p.samples);
  return cluster_levels(std::span<const std::span<const double>>(spans));
}

// Below the 0.5 at which dependents take a value as established.
constexpr double kCoinFlip = 0.45;

double stabilize(double fraction) { return std::asin(std::sqrt(std::clamp(fraction, 0.0, 1.0))); }

}  // namespace

Estimate fetch_granularity(const std::vector<SweepPoint>& stride_sweep) {
  if (stride_sweep.size() < 2) return not_established("fewer than two strides measured");
  const Clustering levels = pooled_levels(stride_sweep);
  if (levels.k() < 2) return not_established("no hit/miss contrast anywhere in the stride sweep");
  std::vector<double> x, miss, n;
  for (const SweepPoint& p : stride_sweep) {
    if (p.samples.empty() || !(p.x > 0)) continue;
    x.push_back(p.x);
    miss.push_back(miss_fraction(p.samples, levels));
    n.push_back(static_cast<double>(p.samples.size()));
  }
  // Past some stride the array fits in the cache and misses fall again (a warm sweep): the model
  // does not describe those points, so the fit ends where the miss fraction falls below half its
  // peak after that peak.
  const std::size_t peak =
      static_cast<std::size_t>(std::max_element(miss.begin(), miss.end()) - miss.begin());
  std::size_t end = peak + 1;
  while (end < x.size() && miss[end] >= 0.5 * miss[peak]) ++end;
  x.resize(end);
  miss.resize(end);
  n.resize(end);
  if (x.size() < 2) return not_established("fewer than two usable strides");
  // Misfit of g in units of the binomial noise: arcsine-transformed residuals times 2 sqrt(n).
  auto misfit = [&](double g) {
    double chi2 = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
      const double r = stabilize(miss[i]) - stabilize(std::min(1.0, x[i] / g));
      chi2 += 4 * n[i] * r * r;
    }
    return chi2;
  };
  std::vector<double> chi2(x.size());
  for (std::size_t j = 0; j < x.size(); ++j) chi2[j] = misfit(x[j]);
  const std::size_t best =
      static_cast<std::size_t>(std::min_element(chi2.begin(), chi2.end()) - chi2.begin());
  // Extra-binomial scatter (real sweeps have it) widens the likelihood by the same factor.
  const double dof = static_cast<double>(std::max<std::size_t>(x.size() - 1, 1));
  const double dispersion = std::max(1.0, chi2[best] / dof);
  double total = 0;
  for (double c : chi2) total += std::exp(-0.5 * (c - chi2[best]) / dispersion);
  Estimate e;
  e.value = x[best];
  e.hi = x[best];
  e.lo = best > 0 ? x[best - 1] : 0.0;
  e.confidence = 1 / total;
  e.established = true;
  if (best + 1 == x.size()) {
    e.confidence *= 0.5;
    e.reason = "the largest stride tested; the granularity may be larger";
  } else if (best == 0) {
    e.reason = "the smallest stride tested; the granularity may be smaller";
  }
  return e;
}

namespace {

// The sweep without strides that alias: a modulo index whose set count shares a factor with the
// stride in lines maps the array into a fraction of the sets, which then thrash although the array
// fits. Such a stride misses far more than both its neighbours (by more than a quarter of the
// sweep's largest share); a change of the curve never does, since it falls from one side.
std::vector<SweepPoint> without_alias_spikes(const std::vector<SweepPoint>& sweep) {
  if (sweep.size() < 3) return sweep;
  const Clustering levels = pooled_levels(sweep);
  std::vector<double> miss;
  for (const SweepPoint& p : sweep) miss.push_back(miss_fraction(p.samples, levels));
  const double margin = 0.25 * *std::max_element(miss.begin(), miss.end());
  std::vector<SweepPoint> kept = {sweep.front()};
  for (std::size_t i = 1; i + 1 < sweep.size(); ++i)
    if (!(miss[i] > std::max(miss[i - 1], miss[i + 1]) + margin)) kept.push_back(sweep[i]);
  kept.push_back(sweep.back());
  return kept;
}

}  // namespace

Estimate line_size(const std::vector<SweepPoint>& sweep, double array_bytes, double cache_bytes) {
  if (!(cache_bytes > 0) || !(array_bytes > cache_bytes)) {
    return not_established("the array must be larger than the cache");
  }
  const std::vector<SweepPoint> stride_sweep = without_alias_spikes(sweep);
  const ReducedSweep reduced = reduce(stride_sweep, Reduction::LevelFractions);
  const Segmentation s = segment(reduced);
  // A change's way is read off the fraction of loads above the lowest level, not off the mean
  // latency: rare loads held up tens of times the miss latency weigh on a mean as much as a
  // quarter of the loads missing, and turn the rise from stride/line to all misses below the line
  // into a "drop".
  std::vector<double> miss;
  for (const SweepPoint& p : stride_sweep) miss.push_back(miss_fraction(p.samples, reduced.levels));
  auto plateau_miss = [&](const Plateau& p) {
    std::vector<double> m(miss.begin() + static_cast<std::ptrdiff_t>(p.begin),
                          miss.begin() + static_cast<std::ptrdiff_t>(p.end));
    return median(m);
  };
  const auto drop = std::find_if(s.changes.begin(), s.changes.end(), [&](const ChangePoint& c) {
    const auto k = static_cast<std::size_t>(&c - s.changes.data());
    return plateau_miss(s.plateaus[k + 1]) < plateau_miss(s.plateaus[k]);
  });
  if (drop == s.changes.end()) {
    return not_established("no stride made the over-sized array fit (no miss-to-hit change)");
  }
  // stride_lo still missed and stride_hi fits: line * array / cache lies in (stride_lo, stride_hi].
  const double scale = cache_bytes / array_bytes;
  Estimate e;
  e.established = true;
  e.lo = drop->x_lo * scale;
  e.hi = drop->x_hi * scale;
  std::vector<double> powers;
  for (double p = 1; p <= e.hi; p *= 2) {
    if (p > e.lo) powers.push_back(p);
  }
  if (powers.size() == 1) {
    e.value = powers[0];
    e.confidence = drop->confidence;
  } else if (powers.empty()) {
    // Lines are powers of two: a change that brackets none misread the sweep (set imbalance past
    // the line on a modulo index of few sets), and its value must not be used as a line.
    e.value = std::sqrt(e.lo * e.hi);
    e.confidence = 0.25 * drop->confidence;
    e.reason = "no power of two in the interval";
  } else {
    // Each of the n powers inside is as likely as the others: at best a coin flip, which stays
    // under the 0.5 at which a dependent takes a value as established (a second sweep whose
    // interval leaves one of them resolves it, line_sweeps.cpp).
    e.value = powers.back();
    e.confidence = std::min(drop->confidence / static_cast<double>(powers.size()), kCoinFlip);
    e.reason = "several powers of two in the interval; strides too coarse";
  }
  return e;
}

DisturbanceResult disturbance_test(std::span<const double> reference, std::span<const double> timed,
                                   const DisturbanceOptions& options) {
  DisturbanceResult r;
  if (reference.empty() || timed.empty()) return r;
  const std::span<const double> both[] = {reference, timed};
  const Clustering levels = cluster_levels(std::span<const std::span<const double>>(both));
  r.median_ratio = median(timed) / median(reference);
  if (levels.k() < 2) return r;
  r.reference_miss = miss_fraction(reference, levels);
  r.disturbed_miss = miss_fraction(timed, levels);
  r.effect = r.disturbed_miss - r.reference_miss;
  const double n1 = static_cast<double>(reference.size());
  const double n2 = static_cast<double>(timed.size());
  const double pooled = (r.reference_miss * n1 + r.disturbed_miss * n2) / (n1 + n2);
  const double se = std::sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2));
  r.p_value = se > 0 ? normal_sf(r.effect / se) : (r.effect > 0 ? 0.0 : 1.0);
  r.disturbed = r.p_value < options.alpha && r.effect > 0;
  return r;
}

std::vector<double> holm_adjusted(std::span<const double> p_values) {
  const std::size_t m = p_values.size();
  std::vector<std::size_t> order(m);
  for (std::size_t i = 0; i < m; ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return p_values[a] < p_values[b]; });
  std::vector<double> adjusted(m, 1.0);
  double running = 0;
  for (std::size_t k = 0; k < m; ++k) {
    const double scaled = static_cast<double>(m - k) * p_values[order[k]];
    running = std::min(1.0, std::max(running, scaled));
    adjusted[order[k]] = running;
  }
  return adjusted;
}

Fraction nearest_fraction(double measured, double api_size, long max_denominator,
                          double measured_sd) {
  Fraction best;
  if (!(api_size > 0) || !(measured > 0) || !std::isfinite(measured) || max_denominator < 1) {
    return best;
  }
  struct Candidate {
    long p, q;
    double value;
  };
  std::vector<Candidate> candidates;
  for (long q = 1; q <= max_denominator; ++q) {
    for (long p = 1; p <= q; ++p) {
      if (std::gcd(p, q) == 1) {
        candidates.push_back({p, q, api_size * static_cast<double>(p) / static_cast<double>(q)});
      }
    }
  }
  std::sort(candidates.begin(), candidates.end(),
            [](const Candidate& a, const Candidate& b) { return a.value < b.value; });
  std::size_t i = 0;
  for (std::size_t j = 1; j < candidates.size(); ++j) {
    if (std::abs(candidates[j].value - measured) < std::abs(candidates[i].value - measured)) i = j;
  }
  const Candidate& c = candidates[i];
  best.numerator = c.p;
  best.denominator = c.q;
  best.value = c.value;
  best.relative_distance = std::abs(measured - c.value) / c.value;
  // The cell of measurements nearer to this fraction than to any other candidate.
  const double below = i > 0 ? 0.5 * (candidates[i - 1].value + c.value) : 0.0;
  const double above = i + 1 < candidates.size() ? 0.5 * (c.value + candidates[i + 1].value)
                                                 : c.value + (c.value - below);
  if (measured_sd > 0) {
    best.confidence =
        normal_cdf((above - measured) / measured_sd) - normal_cdf((below - measured) / measured_sd);
  } else {
    const double half = measured >= c.value ? above - c.value : c.value - below;
    best.confidence = std::max(0.0, 1 - std::abs(measured - c.value) / half);
  }
  return best;
}

}  // namespace gputopo::analysis
