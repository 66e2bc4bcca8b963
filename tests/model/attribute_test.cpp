#include "model/attribute.hpp"

#include <gtest/gtest.h>

namespace gputopo::model {

TEST(Attribute, UnavailableKeepsKeyWithNullValueAndReason) {
  auto a = Attribute::unavailable(Source::Api, "MHz", "NVML not found");
  auto j = to_json(a);
  EXPECT_TRUE(j["value"].is_null());
  EXPECT_EQ(j["available"], false);
  EXPECT_EQ(j["reason"], "NVML not found");
  EXPECT_EQ(j["source"], "api");
}

TEST(Attribute, MeasuredCarriesMethodConfidenceAndInterval) {
  auto a = Attribute::measured(245760, "B", "pchase-size-sweep", 0.98);
  a.interval = Interval{243712, 247808};
  auto j = to_json(a);
  EXPECT_EQ(j["value"], 245760);
  EXPECT_EQ(j["method"], "pchase-size-sweep");
  EXPECT_DOUBLE_EQ(j["confidence"].get<double>(), 0.98);
  EXPECT_EQ(j["interval"][0], 243712);
  EXPECT_FALSE(j.contains("available"));
}

TEST(AttributeList, KeepsInsertionOrder) {
  AttributeList list{{"b", Attribute::api(1)}, {"a", Attribute::api(2)}};
  auto j = to_json(list);
  EXPECT_EQ(j.begin().key(), "b");
  ASSERT_NE(find(list, "a"), nullptr);
  EXPECT_EQ(find(list, "a")->value, 2);
  EXPECT_EQ(find(list, "c"), nullptr);
}

}  // namespace gputopo::model
