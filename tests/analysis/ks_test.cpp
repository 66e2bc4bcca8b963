#include "analysis/ks.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace gputopo::analysis {
namespace {

nlohmann::json load_vectors() {
  std::ifstream in(std::string(GPUTOPO_TEST_DATA) + "/analysis/ks_vectors.json");
  EXPECT_TRUE(in.good()) << "missing tests/data/analysis/ks_vectors.json";
  return nlohmann::json::parse(in);
}

TEST(KsTwoSample, MatchesScipyVectors) {
  const auto vectors = load_vectors();
  ASSERT_GE(vectors["ks_2samp"].size(), 15u);
  for (const auto& c : vectors["ks_2samp"]) {
    const auto a = c["a"].get<std::vector<double>>();
    const auto b = c["b"].get<std::vector<double>>();
    const KsResult r = ks_2samp(a, b);
    const std::string name = c["name"];
    EXPECT_NEAR(r.d, c["d"].get<double>(), 1e-12) << name;
    EXPECT_NEAR(r.p_value, c["p"].get<double>(), 1e-6) << name;
    EXPECT_EQ(r.exact, std::max(a.size(), b.size()) <= 10000) << name;
  }
}

TEST(KsTwoSample, KolmogorovDistributionMatchesScipy) {
  const auto vectors = load_vectors();
  ASSERT_GE(vectors["kstwo_sf"].size(), 100u);
  for (const auto& c : vectors["kstwo_sf"]) {
    const long n = c["n"];
    const double x = c["x"];
    EXPECT_NEAR(kolmogorov_n_sf(x, n), c["sf"].get<double>(), 1e-6) << "n=" << n << " x=" << x;
  }
}

TEST(KsTwoSample, StatisticIsSymmetricAndOrderFree) {
  const std::vector<double> a{3, 1, 2, 2, 5, 9};
  const std::vector<double> b{4, 4, 7, 8, 1};
  const std::vector<double> a_shuffled{9, 2, 5, 1, 3, 2};
  EXPECT_DOUBLE_EQ(ks_statistic(a, b), ks_statistic(b, a));
  EXPECT_DOUBLE_EQ(ks_statistic(a, b), ks_statistic(a_shuffled, b));
  EXPECT_DOUBLE_EQ(ks_2samp(a, b).p_value, ks_2samp(b, a).p_value);
}

TEST(KsTwoSample, EmptyAndIdenticalSamples) {
  const std::vector<double> a{1, 2, 3};
  EXPECT_EQ(ks_2samp(a, {}).p_value, 1.0);
  EXPECT_EQ(ks_2samp(a, a).d, 0.0);
  EXPECT_EQ(ks_2samp(a, a).p_value, 1.0);
}

TEST(KsTwoSample, NaNsAreLeftOut) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<double> a{3, 1, 2, 2, 5, 9};
  const std::vector<double> b{4, 4, 7, 8, 1};
  const std::vector<double> a_nan{3, nan, 1, 2, 2, 5, nan, 9};
  const std::vector<double> b_nan{nan, 4, 4, 7, 8, 1};
  EXPECT_DOUBLE_EQ(ks_statistic(a_nan, b_nan), ks_statistic(a, b));
  EXPECT_DOUBLE_EQ(ks_2samp(a_nan, b_nan).p_value, ks_2samp(a, b).p_value);
  EXPECT_EQ(ks_2samp(a, std::vector<double>{nan, nan}).p_value, 1.0);
}

}  // namespace
}  // namespace gputopo::analysis
