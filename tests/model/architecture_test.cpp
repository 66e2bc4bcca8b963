#include "model/architecture.hpp"

#include <gtest/gtest.h>

#include "model/report.hpp"

namespace gputopo::model {

TEST(ArchitectureTable, NamesAndCoresPerSmByComputeCapability) {
  struct Row {
    int major, minor;
    std::string_view name;
    int cores;
  };
  for (const Row& r : {Row{6, 0, "Pascal", 64}, Row{6, 1, "Pascal", 128}, Row{7, 0, "Volta", 64},
                       Row{7, 5, "Turing", 64}, Row{8, 0, "Ampere", 64}, Row{8, 6, "Ampere", 128},
                       Row{8, 9, "Ada Lovelace", 128}, Row{9, 0, "Hopper", 128},
                       Row{10, 0, "Blackwell", 128}, Row{12, 0, "Blackwell", 128}}) {
    auto f = architecture_facts(r.major, r.minor);
    ASSERT_TRUE(f) << r.major << "." << r.minor;
    EXPECT_EQ(f->name, r.name) << r.major << "." << r.minor;
    EXPECT_EQ(f->fp32_cores_per_sm, r.cores) << r.major << "." << r.minor;
  }
}

TEST(ArchitectureTable, UnknownCapabilityIsNotGuessed) {
  EXPECT_FALSE(architecture_facts(9, 9));
  EXPECT_FALSE(architecture_facts(1, 0));
  EXPECT_FALSE(architecture_facts(0, 0));
}

TEST(Merge, ReplacesInPlaceAndAppendsNew) {
  AttributeList into{{"a", Attribute::api(1)}, {"b", Attribute::api(2)}};
  merge(into, {{"b", Attribute::measured(3, "", "m", 0.5)}, {"c", Attribute::api(4)}});
  ASSERT_EQ(into.size(), 3u);
  EXPECT_EQ(into[1].first, "b");
  EXPECT_EQ(into[1].second.value, 3);
  EXPECT_EQ(into[2].first, "c");
}

TEST(Merge, ElementsMergeByKey) {
  std::vector<Element> into{{"l2", {{"apiSize", Attribute::api(50)}}}};
  merge(into, {{"l2", {{"size", Attribute::measured(25, "B", "m", 0.9)}}}, {"l1", {}}});
  ASSERT_EQ(into.size(), 2u);
  EXPECT_EQ(into[0].attributes.size(), 2u);
  EXPECT_EQ(into[1].key, "l1");
}

}  // namespace gputopo::model
