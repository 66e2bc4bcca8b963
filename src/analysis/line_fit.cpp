#include "analysis/line_fit.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace gputopo::analysis {

double FootprintCurve::at(double footprint) const {
  if (bytes.empty()) return 0;
  if (footprint <= bytes.front()) return miss.front();
  if (footprint >= bytes.back()) return miss.back();
  const auto it = std::upper_bound(bytes.begin(), bytes.end(), footprint);
  const auto i = static_cast<std::size_t>(it - bytes.begin());
  const double t = (footprint - bytes[i - 1]) / (bytes[i] - bytes[i - 1]);
  return miss[i - 1] + t * (miss[i] - miss[i - 1]);
}

std::optional<LineFit> fit_line_size(const FootprintCurve& footprint,
                                     const std::vector<StrideCurve>& sweeps, std::uint32_t fg) {
  if (footprint.bytes.size() < 2 || sweeps.empty() || fg == 0) return std::nullopt;
  LineFit fit;
  for (double line = fg; line <= 4096; line *= 2) {
    double error = 0;
    for (const auto& s : sweeps) {
      for (std::size_t i = 0; i < s.strides.size(); ++i) {
        const double fp = s.strides[i] < line ? s.array_bytes : s.array_bytes / s.strides[i] * line;
        const double d = s.miss[i] - footprint.at(fp);
        error += d * d;
      }
    }
    fit.candidates.push_back(line);
    fit.errors.push_back(error);
  }
  const auto best = std::min_element(fit.errors.begin(), fit.errors.end());
  const auto b = static_cast<std::size_t>(best - fit.errors.begin());
  double second = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < fit.errors.size(); ++i)
    if (i != b) second = std::min(second, fit.errors[i]);
  fit.line = fit.candidates[b];
  fit.confidence = second > 0 && std::isfinite(second) ? 1.0 - *best / second : 0.0;
  return fit;
}

}  // namespace gputopo::analysis
