#pragma once

// Synthetic latency samples and sweeps with known truth, for the analysis tests and benchmark.
#include <cmath>
#include <cstddef>
#include <functional>
#include <random>
#include <vector>

#include "analysis/sweep.hpp"

namespace gputopo::analysis::synthetic {

struct Mix {
  double latency;  // level in cycles
  double weight;   // probability of a load at this level
};

struct Noise {
  double jitter = 0.02;        // relative sd of a level's latency
  double outliers = 0.0;       // fraction of loads replaced by 2000..20000-cycle outliers
  bool integer_cycles = true;  // round to whole cycles like %clock
};

inline std::vector<double> draw(std::mt19937_64& rng, std::size_t n, const std::vector<Mix>& mix,
                                const Noise& noise = {}) {
  std::vector<double> weights;
  for (const Mix& m : mix) weights.push_back(m.weight);
  std::discrete_distribution<std::size_t> pick(weights.begin(), weights.end());
  std::normal_distribution<double> gauss(0, 1);
  std::uniform_real_distribution<double> unit(0, 1);
  std::vector<double> out(n);
  for (double& v : out) {
    if (unit(rng) < noise.outliers) {
      v = std::exp(std::log(2000.0) + unit(rng) * std::log(10.0));
    } else {
      v = mix[pick(rng)].latency * (1 + noise.jitter * gauss(rng));
    }
    if (noise.integer_cycles) v = std::round(v);
    v = std::max(v, 1.0);
  }
  return out;
}

// A sweep over xs where the load mix at each x comes from truth(x).
inline std::vector<SweepPoint> sweep(std::mt19937_64& rng, const std::vector<double>& xs,
                                     const std::function<std::vector<Mix>(double)>& truth,
                                     std::size_t samples, const Noise& noise = {}) {
  std::vector<SweepPoint> points;
  for (double x : xs) points.push_back({x, draw(rng, samples, truth(x), noise)});
  return points;
}

inline std::vector<double> range(double first, double step, std::size_t count) {
  std::vector<double> xs;
  for (std::size_t i = 0; i < count; ++i) xs.push_back(first + step * static_cast<double>(i));
  return xs;
}

// Hit/miss mix with a miss fraction.
inline std::vector<Mix> hit_miss(double miss, double hit = 35, double missed = 300) {
  return {{hit, 1 - miss}, {missed, miss}};
}

}  // namespace gputopo::analysis::synthetic
