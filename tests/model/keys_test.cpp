#include "model/keys.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace gputopo::model {
namespace {

// The keys docs/schema.md lists in the first column of its memory table (rows like
// "| `segmentSize`, `segmentCount` | B, | ...").
std::set<std::string> schema_keys() {
  std::ifstream in(GPUTOPO_SCHEMA_DOC);
  std::set<std::string> out;
  std::string line;
  bool in_table = false;
  while (std::getline(in, line)) {
    if (line.rfind("| Key | Unit | Elements | Meaning |", 0) == 0) {
      in_table = true;
      continue;
    }
    if (in_table && line.rfind("|", 0) != 0) break;
    if (!in_table || line.rfind("|---", 0) == 0) continue;
    const std::string first = line.substr(1, line.find('|', 1) - 1);
    static const std::regex key("`([A-Za-z]+)`");
    for (std::sregex_iterator it(first.begin(), first.end(), key), end; it != end; ++it)
      out.insert((*it)[1]);
  }
  return out;
}

// The names keys.def declares, in its order: the first argument of each GPUTOPO_KEY or
// GPUTOPO_OP_KEY line.
std::vector<std::string> declared_keys() {
  std::ifstream in(GPUTOPO_KEYS_DEF);
  std::vector<std::string> out;
  static const std::regex declaration(R"(^GPUTOPO_(?:OP_)?KEY\((\w+),)");
  std::smatch m;
  for (std::string line; std::getline(in, line);)
    if (std::regex_search(line, m, declaration)) out.push_back(m[1]);
  return out;
}

// grep finds every key: the catalogue is keys.def's literal declarations, one a line, in its order.
TEST(Keys, TheCatalogueIsTheLiteralDeclarationsInTheirOrder) {
  const auto declared = declared_keys();
  ASSERT_FALSE(declared.empty()) << GPUTOPO_KEYS_DEF;
  std::vector<std::string> catalogued;
  for (const Key* k : catalogue()) catalogued.emplace_back(k->name);
  EXPECT_EQ(catalogued, declared);
}

// A family member's name is its op and the family's suffix, and every family has members.
TEST(Keys, EachFamilyMemberEndsWithItsFamilysSuffix) {
  std::set<const KeyFamily*> used;
  for (const Key* k : catalogue()) {
    if (!k->family) continue;
    used.insert(k->family);
    EXPECT_TRUE(k->name.ends_with(k->family->suffix)) << k->name;
    EXPECT_FALSE(k->member().empty()) << k->name;
    EXPECT_EQ(k->elements, "compute") << k->name;
  }
  EXPECT_EQ(used.size(), key_families().size());
}

TEST(Keys, TheCatalogueHasNoDuplicates) {
  std::set<std::string_view> seen;
  for (const Key* k : catalogue()) EXPECT_TRUE(seen.insert(k->name).second) << k->name;
}

TEST(Keys, TheSchemaDocumentListsEveryMemoryKeyOfTheCatalogueAndNoOther) {
  const auto documented = schema_keys();
  ASSERT_FALSE(documented.empty()) << GPUTOPO_SCHEMA_DOC;
  std::set<std::string> memory;
  for (const Key* k : catalogue())
    if (k->elements != "compute") memory.insert(std::string(k->name));
  for (const auto& name : memory) EXPECT_TRUE(documented.count(name)) << name << " not in docs";
  for (const auto& name : documented) EXPECT_TRUE(memory.count(name)) << name << " not a key";
}

TEST(Keys, RankFollowsTheCatalogue) {
  EXPECT_LT(report_rank("size"), report_rank("lineSize"));
  EXPECT_LT(report_rank("nearLatency"), report_rank("nearLatencyNs"));
  EXPECT_EQ(report_rank("noSuchKey"), catalogue().size());
  EXPECT_EQ(key_named("capacity"), &keys::capacity);
  EXPECT_EQ(key_named("noSuchKey"), nullptr);
}

TEST(Keys, AFamilyMemberIsFoundByItsSuffixAndACatalogueKeyIsNot) {
  const auto ffma = family_member("ffmaLatency");
  ASSERT_TRUE(ffma);
  EXPECT_EQ(ffma->first, &keys::opLatency);
  EXPECT_EQ(ffma->second, "ffma");
  EXPECT_EQ(keys::ffmaLatency.member(), "ffma");
  EXPECT_EQ(keys::ffmaLatency.family, &keys::opLatency);
  // A name of another version's report, an op this catalogue does not know, still is a member.
  const auto unknown = family_member("fooThroughput");
  ASSERT_TRUE(unknown);
  EXPECT_EQ(unknown->first, &keys::opThroughput);
  EXPECT_FALSE(family_member("nearLatency"));
  EXPECT_FALSE(family_member("Latency"));
  EXPECT_FALSE(family_member("smCount"));
}

}  // namespace
}  // namespace gputopo::model
