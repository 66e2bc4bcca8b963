#pragma once

namespace gputopo::analysis {

// Regularized upper incomplete gamma Q(a, x) = Gamma(a, x) / Gamma(a), a > 0, x >= 0.
double gamma_q(double a, double x);

// Upper tail P(X >= x) of a chi-square variable with k degrees of freedom.
double chi2_sf(double x, double k);

// The x with chi2_sf(x, k) = p, for p in (0, 1).
double chi2_isf(double p, double k);

// Standard normal CDF and upper tail.
double normal_cdf(double z);
double normal_sf(double z);

}  // namespace gputopo::analysis
