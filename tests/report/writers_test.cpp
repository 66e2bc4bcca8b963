#include "report/writers.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "fake_device.hpp"
#include "model/info_report.hpp"
#include "report/json_writer.hpp"
#include "report/mt4g_writer.hpp"
#include "report/multi_writer.hpp"
#include "report/summary_text.hpp"
#include "report/text_writer.hpp"

namespace gputopo::report {
namespace {
namespace fs = std::filesystem;

model::Report small_report() {
  model::Report r;
  r.device.emplace_back("name", model::Attribute::api("Test GPU"));
  r.memory.push_back({"l2", {{"apiSize", model::Attribute::api(1024, "B")}}});
  return r;
}

std::string written_by(const Writer& w, const model::Report& r) {
  std::ostringstream out;
  w.write(out, r);
  return out.str();
}

TEST(Writers, EachFormatHasItsOwnNameAndExtension) {
  std::set<std::string_view> names;
  std::set<std::string_view> extensions;
  for (const auto& w : writers()) {
    EXPECT_TRUE(names.insert(w->name()).second) << w->name();
    EXPECT_TRUE(extensions.insert(w->extension()).second) << w->extension();
    EXPECT_EQ(w->extension().substr(0, 1), ".") << w->name();
    EXPECT_EQ(find_writer(w->name()), w.get());
  }
  EXPECT_EQ(find_writer("no such format"), nullptr);
}

TEST(Writers, TextAndJsonWriteWhatTheirFunctionsWrite) {
  const model::Report r = small_report();
  std::ostringstream text;
  write_text(text, r);
  EXPECT_EQ(written_by(*find_writer("text-full"), r), text.str());
  std::ostringstream summary;
  write_summary(summary, r);
  EXPECT_EQ(written_by(*find_writer("text"), r), summary.str());
  EXPECT_EQ(written_by(*find_writer("json"), r), to_json_text(r));
}

TEST(MultiWriter, WritesFilesThenStreamsAndGoesOnPastAFileItCannotWrite) {
  const fs::path dir =
      fs::path(::testing::TempDir()) / ("gputopo-multi-writer-" + std::to_string(getpid()));
  fs::create_directories(dir);
  MultiWriter outputs;
  std::ostringstream text;
  outputs.add_file(*find_writer("json"), (dir / "missing" / "r.json").string());
  outputs.add_file(*find_writer("json"), (dir / "r.json").string());
  outputs.add_stream(*find_writer("text"), text);
  std::vector<std::string> failures;
  outputs.write(small_report(), [&](const std::string& why) { failures.push_back(why); });
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_NE(failures[0].find("missing"), std::string::npos) << failures[0];
  std::ifstream in(dir / "r.json");
  std::stringstream json;
  json << in.rdbuf();
  EXPECT_EQ(json.str(), to_json_text(small_report()));
  EXPECT_NE(text.str().find("Test GPU"), std::string::npos);
  fs::remove_all(dir);
}

// MT4G's six driver keys from the driver's facts (null, with the reason, where there is none), and
// sharedWith in MT4G's order, so that sys-sage names the L1 "L1+Read Only+Texture".
TEST(Mt4gWriter, HasMt4gsDriverKeysAndSharedWithOrder) {
  model::Report r = make_info_report(test::h100_like_info());
  auto shared = model::Attribute::measured(model::Json::array({"texture", "readOnly"}), "", "m", 1);
  r.memory.push_back({"l1", {{"sharedWith", shared}}});
  const model::Json m = to_mt4g(r);
  EXPECT_EQ(m["memory"]["l1"]["sharedWith"], model::Json::parse(R"(["Read Only", "Texture"])"));
  EXPECT_EQ(m["compute"]["concurrentKernels"], true);
  EXPECT_EQ(m["compute"]["supportsCooperativeLaunch"], true);
  EXPECT_EQ(m["memory"]["l2"]["persistingL2CacheMaxSize"]["value"], 34'603'008);
  EXPECT_EQ(m["memory"]["l2"]["persistingL2CacheMaxSize"]["unit"], "bytes");
  for (const char* key : {"globalL1CacheSupported", "localL1CacheSupported"})
    EXPECT_TRUE(m["memory"]["l1"].contains(key)) << key;
  EXPECT_TRUE(m["general"].contains("asicRevision"));
  EXPECT_TRUE(m["general"]["asicRevision"].is_null());
  EXPECT_TRUE(m["meta"]["notAvailable"]["general.asicRevision"].is_string());
}

}  // namespace
}  // namespace gputopo::report
