#pragma once

#include <span>

namespace gputopo::analysis {

// Two-sample Kolmogorov-Smirnov test, two-sided, with scipy.stats.ks_2samp's method='auto'
// behaviour: the exact null distribution when both samples have at most 10000 values, the
// asymptotic (Kolmogorov distribution with n = round(n1*n2/(n1+n2))) one otherwise, and the
// asymptotic one as a fallback where the exact computation would lose precision.
struct KsResult {
  double d = 0;        // sup |F1 - F2|
  double p_value = 1;  // P(D >= d) under "same distribution"
  bool exact = false;  // which null distribution gave p_value
};

// NaNs are left out. Either sample empty (after that): d = 0, p_value = 1.
KsResult ks_2samp(std::span<const double> a, std::span<const double> b);

// The statistic alone, O((n1 + n2) log(n1 + n2)).
double ks_statistic(std::span<const double> a, std::span<const double> b);

// P(D >= d) for the Kolmogorov distribution of a one-sample statistic with n values
// (scipy.stats.kstwo.sf). Used by the asymptotic two-sample p-value.
double kolmogorov_n_sf(double d, long n);

}  // namespace gputopo::analysis
