#include "device/cuda/plan/tuning_memo.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "../record/test_recordings.hpp"

namespace gputopo::device::cuda {
namespace {

namespace fs = std::filesystem;

class Memo : public record::testing::TempDirTest {
 protected:
  void SetUp() override {
    TempDirTest::SetUp();
    file_ = dir_ / "tuning-GPU-x.json";
  }

  static MemoEntry entry(int kernel, std::uint64_t bytes, double rate) {
    return {kernel, bytes, {{16, 2, 16, 128}, {8, 4, 4, 512}}, rate};
  }

  fs::path file_;
};

TEST_F(Memo, AnEntryPutIsFoundByTheNextRunOfTheSameKeyWithinTheFactor) {
  {
    TuningMemo memo(file_, "key 1");
    EXPECT_EQ(memo.find(0, 30 << 20, 4.0), nullptr);
    memo.put(entry(0, 30 << 20, 8.2e12), 4.0);
  }
  TuningMemo again(file_, "key 1");
  const MemoEntry* e = again.find(0, 45 << 20, 4.0);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->bytes, 30u << 20);
  EXPECT_DOUBLE_EQ(e->rate, 8.2e12);
  ASSERT_EQ(e->ranked.size(), 2u);
  EXPECT_EQ(e->ranked[1], (MemoConfig{8, 4, 4, 512}));
  EXPECT_EQ(again.find(0, 200 << 20, 4.0), nullptr);  // another regime
  EXPECT_EQ(again.find(1, 30 << 20, 4.0), nullptr);   // another kernel
}

TEST_F(Memo, APutReplacesTheEntryOfItsRegimeAndKeepsTheOthers) {
  TuningMemo memo(file_, "k");
  memo.put(entry(0, 30 << 20, 8e12), 4.0);
  memo.put(entry(0, 2ull << 30, 4e12), 4.0);
  memo.put(entry(0, 40 << 20, 9e12), 4.0);
  TuningMemo again(file_, "k");
  ASSERT_NE(again.find(0, 30 << 20, 4.0), nullptr);
  EXPECT_DOUBLE_EQ(again.find(0, 30 << 20, 4.0)->rate, 9e12);
  ASSERT_NE(again.find(0, 2ull << 30, 4.0), nullptr);
  EXPECT_DOUBLE_EQ(again.find(0, 2ull << 30, 4.0)->rate, 4e12);
}

TEST_F(Memo, AnotherKeyOrADamagedFileIsIgnoredAndReplaced) {
  {
    TuningMemo memo(file_, "driver 580");
    memo.put(entry(2, 1 << 30, 3e12), 4.0);
  }
  EXPECT_EQ(TuningMemo(file_, "driver 590").find(2, 1 << 30, 4.0), nullptr);
  for (const std::string text : {"{not json", "{\"format\":1,\"key\":\"k\",\"entries\":[{}]}",
                                 "{\"format\":1,\"key\":\"k\",\"entries\":[{\"kernel\":2,"
                                 "\"bytes\":1,\"rate\":0,\"ranked\":[]}]}",
                                 "[]", ""}) {
    std::ofstream(file_) << text;
    TuningMemo memo(file_, "k");
    EXPECT_EQ(memo.find(2, 1, 4.0), nullptr) << text;
    memo.put(entry(2, 1, 1e12), 4.0);
    EXPECT_NE(TuningMemo(file_, "k").find(2, 1, 4.0), nullptr) << text;
  }
}

TEST_F(Memo, WithoutAFileTheMemoHoldsThisRunOnly) {
  TuningMemo memo(std::nullopt, "k");
  memo.put(entry(0, 1 << 20, 1e12), 4.0);
  EXPECT_NE(memo.find(0, 1 << 20, 4.0), nullptr);
  TuningMemo unwritable(fs::path("/proc/gputopo-no/tuning.json"), "k");
  unwritable.put(entry(0, 1 << 20, 1e12), 4.0);  // the write fails quietly
  EXPECT_NE(unwritable.find(0, 1 << 20, 4.0), nullptr);
}

// Over later runs every stored configuration is timed again: the leaders each run, the rest two
// at a time in turn; one the build would not try is never picked.
TEST(MemoPicks, LeadersEachRunAndTheRestInTurn) {
  MemoEntry e{0, 1, {}, 1e12, 0};
  for (std::uint32_t t = 1; t <= 7; ++t) e.ranked.push_back({16, 2, 1, 128 * t});
  const auto usable = [](const MemoConfig& c) { return c.threads != 128 * 5; };
  std::vector<int> seen(7, 0);
  for (e.uses = 0; e.uses < 3; ++e.uses) {
    const auto picks = memo_picks(e, 3, 2, usable);
    ASSERT_EQ(picks.size(), 5u);
    EXPECT_EQ(picks[0], 0u);
    EXPECT_EQ(picks[1], 1u);
    EXPECT_EQ(picks[2], 2u);
    EXPECT_NE(picks[3], picks[4]);
    for (const auto i : picks) ++seen[i];
  }
  EXPECT_EQ(seen[4], 0);  // the unusable one
  for (const int i : {3, 5, 6}) EXPECT_GE(seen[static_cast<std::size_t>(i)], 1) << i;
  EXPECT_EQ(memo_picks(e, 3, 2, [](const MemoConfig&) { return false; }).size(), 0u);
  MemoEntry two{0, 1, {{16, 2, 1, 128}, {8, 4, 2, 256}}, 1e12, 5};
  EXPECT_EQ(memo_picks(two, 3, 2, usable).size(), 2u);
}

TEST(MemoAfter, TheTimedOnesLeadAndTheOthersFollowInTheirOrder) {
  const MemoConfig a{16, 2, 1, 128}, b{8, 4, 2, 256}, c{4, 8, 4, 512}, d{16, 4, 1, 1024};
  const MemoEntry e{3, 64, {a, b, c, d}, 9e12, 4};
  const MemoEntry after = memo_after(e, {c, a}, 9.3e12);
  EXPECT_EQ(after.ranked, (std::vector<MemoConfig>{c, a, b, d}));
  EXPECT_DOUBLE_EQ(after.rate, 9.3e12);
  EXPECT_EQ(after.uses, 5u);
  EXPECT_EQ(after.kernel, 3);
  EXPECT_EQ(after.bytes, 64u);
}

TEST_F(Memo, ThePathComesFromTheEnvironment) {
  const auto restore = [](const char* name, const char* old) {
    if (old != nullptr)
      ::setenv(name, old, 1);
    else
      ::unsetenv(name);
  };
  const std::string memo_old =
      std::getenv("GPUTOPO_TUNING_MEMO") ? std::getenv("GPUTOPO_TUNING_MEMO") : "";
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  const std::string xdg_old = xdg ? xdg : "";
  ::setenv("GPUTOPO_TUNING_MEMO", "off", 1);
  EXPECT_FALSE(tuning_memo_path("GPU-1"));
  ::setenv("GPUTOPO_TUNING_MEMO", "/tmp/memo", 1);
  EXPECT_EQ(tuning_memo_path("GPU-1"), fs::path("/tmp/memo/tuning-GPU-1.json"));
  ::unsetenv("GPUTOPO_TUNING_MEMO");
  ::setenv("XDG_CACHE_HOME", "/var/cache/u", 1);
  EXPECT_EQ(tuning_memo_path("GPU-1"), fs::path("/var/cache/u/gputopo/tuning-GPU-1.json"));
  restore("GPUTOPO_TUNING_MEMO", memo_old.empty() ? nullptr : memo_old.c_str());
  restore("XDG_CACHE_HOME", xdg ? xdg_old.c_str() : nullptr);
}

}  // namespace
}  // namespace gputopo::device::cuda
