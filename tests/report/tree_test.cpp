#include "report/tree.hpp"

#include <gtest/gtest.h>

#include <sstream>

namespace gputopo::report {
namespace {
using model::Attribute;
using model::Json;

// A GPU of 8 SMs in TPCs of 2: GPC 0 holds SMs 0-3, GPC 1 SMs 4-5; SMs 6-7 (one TPC) are in no
// GPC found.
model::Report small_gpu() {
  model::Report r;
  r.run.device = 1;
  r.device.emplace_back("name", Attribute::api("Toy GPU"));
  r.compute.emplace_back("smCount", Attribute::api(8));
  r.compute.emplace_back("tpcCount", Attribute::measured(4, "", "test", 1));
  model::set_tpcs(r.topology, 8, {{0, 1}, {2, 3}, {4, 5}, {6, 7}});
  r.compute.emplace_back("gpcCount",
                         Attribute::unavailable(model::Source::Measured, "", "SMs 6-7 ran alone"));
  model::set_gpcs(r.topology, 8, {{0, 1, 2, 3}, {4, 5}}, std::vector<double>(6, 0.9), {{6, 7}});
  model::Element l1{"l1", {}};
  auto size = Attribute::measured(256 * 1024, "B", "test", 0.9);
  size.interval = model::Interval{255 * 1024, 257 * 1024};
  l1.attributes.emplace_back("size", size);
  l1.attributes.emplace_back("sharedWith",
                             Attribute::measured(Json::array({"texture"}), "", "t", 1));
  model::Element texture{"texture", {}};
  texture.attributes.emplace_back("size", size);
  model::Element l2{"l2", {}};
  l2.attributes.emplace_back("apiSize", Attribute::api(4 * 1024 * 1024, "B"));
  l2.attributes.emplace_back("segmentCount",
                             Attribute::unavailable(model::Source::Measured, "", "flat"));
  r.memory = {l1, texture, l2};
  return r;
}

// The tree of `report` once its topology's levels are settled, as discovery leaves them.
std::string drawn(model::Report r, bool full) {
  model::settle_levels(r);
  std::ostringstream out;
  write_tree(out, build_tree(r, full), full);
  return out.str();
}

TEST(Tree, CompactFoldsIdenticalTpcsAndSmsAndMarksWhatIsNotEstablished) {
  EXPECT_EQ(drawn(small_gpu(), false),
            "GPU 1: Toy GPU, 8 SMs\n"
            "  L2 4 MiB: ? segments of ?\n"
            "    near L2 segment of each GPC: ? (not measured: compute.nearL2Segments)\n"
            "    GPC 0 (4 SMs) [2 x TPC [2 x SM: L1 256 KiB (also Texture)]]\n"
            "    GPC 1 (2 SMs) [TPC [2 x SM: L1 256 KiB (also Texture)]]\n"
            "    GPC ? (2 SMs; GPC not established: SMs 6-7 ran alone) [TPC [2 x SM: L1 256 KiB "
            "(also Texture)]]\n");
}

TEST(Tree, FullFormHasEveryNodeWithItsIdsAndIntervals) {
  const std::string full = drawn(small_gpu(), true);
  EXPECT_NE(full.find("\n    GPC 0 (4 SMs)\n      TPC 0\n        SM 0: L1 256 KiB (255-257 KiB) "
                      "[measured 0.9] (also Texture)\n        SM 1: "),
            std::string::npos)
      << full;
  EXPECT_NE(full.find("\n      TPC 1\n        SM 2: "), std::string::npos) << full;
  EXPECT_NE(full.find("\n    GPC ? (2 SMs; GPC not established: SMs 6-7 ran alone)\n      TPC 0\n"
                      "        SM 6: "),
            std::string::npos)
      << full;
}

TEST(Tree, GpcsHangUnderTheL2SegmentTheyLoadThrough) {
  model::Report r = small_gpu();
  r.memory[2].attributes[1].second = Attribute::measured(2, "", "test", 1);
  r.compute.emplace_back("nearL2Segments", Attribute::measured(2, "", "test", 1));
  model::set_segment_of_sm(r.topology, {0, 0, 0, 0, 1, 1, 1, std::nullopt});
  EXPECT_EQ(drawn(r, false),
            "GPU 1: Toy GPU, 8 SMs\n"
            "  L2 4 MiB: 2 segments of ?\n"
            "    L2 segment 0 (near to 4 SMs) [GPC 0 (4 SMs) [2 x TPC [2 x SM: L1 256 KiB (also "
            "Texture)]]]\n"
            "    L2 segment 1 (near to 3 SMs)\n"
            "      GPC 1 (2 SMs) [TPC [2 x SM: L1 256 KiB (also Texture)]]\n"
            "      GPC ? (1 SM; GPC not established: SMs 6-7 ran alone) [SM 6: L1 256 KiB (also "
            "Texture)]\n"
            "    near L2 segment not measured for these SMs\n"
            "    GPC ? (1 SM; GPC not established: SMs 6-7 ran alone) [SM 7: L1 256 KiB (also "
            "Texture)]\n");
}

TEST(Tree, IdenticalGpcsFoldIntoOneLine) {
  model::Report r = small_gpu();
  r.compute[2].second = Attribute::measured(2, "", "test", 0.9);
  model::set_gpcs(r.topology, 8, {{0, 1, 2, 3}, {4, 5, 6, 7}}, std::vector<double>(8, 0.9), {});
  const std::string compact = drawn(r, false);
  EXPECT_NE(compact.find("    2 x GPC (4 SMs) [2 x TPC [2 x SM: L1 256 KiB (also Texture)]]\n"),
            std::string::npos)
      << compact;
  EXPECT_EQ(compact.find("GPC ?"), std::string::npos) << compact;
}

TEST(Tree, WithoutLayoutTheSmsHangInAnUnknownGpc) {
  model::Report r = small_gpu();
  r.compute.resize(1);
  r.topology = {};
  const std::string compact = drawn(r, false);
  EXPECT_NE(compact.find("    GPC ? (8 SMs; GPCs not measured (the layout probe did not run))\n"
                         "      TPCs: not measured\n"
                         "      8 x SM: L1 256 KiB (also Texture)\n"),
            std::string::npos)
      << compact;
}

// AMD: the LDS is the SM's shared memory; a memory-side cache found is drawn once under the GPU,
// one not found is not drawn.
TEST(Tree, AmdLdsIsTheSmsSharedMemoryAndTheMallHangsUnderTheGpu) {
  model::Report r = small_gpu();
  r.compute.resize(1);
  r.topology = {};
  model::Element lds{"lds", {}};
  lds.attributes.emplace_back("apiSize", Attribute::api(64 * 1024, "B"));
  model::Element mall{"mall", {}};
  mall.attributes.emplace_back("size", Attribute::measured(256 * 1024 * 1024, "B", "test", 1));
  mall.attributes.emplace_back("latency", Attribute::measured(520, "cycles", "test", 1));
  r.memory.push_back(lds);
  r.memory.push_back(mall);
  const std::string compact = drawn(r, false);
  EXPECT_NE(compact.find("\n  MALL 256 MiB: latency 520 cycles\n"), std::string::npos) << compact;
  EXPECT_NE(compact.find("8 x SM: L1 256 KiB (also Texture) + LDS 64 KiB\n"), std::string::npos)
      << compact;
  r.memory.back().attributes[0].second =
      Attribute::unavailable(model::Source::Measured, "B", "no memory-side cache");
  EXPECT_EQ(drawn(r, false).find("MALL"), std::string::npos);
}

}  // namespace
}  // namespace gputopo::report

namespace gputopo::report {
namespace {

// A memory-side cache whose latency was not measured (--only mall.size) is drawn without one.
TEST(Tree, MemorySideCacheWithOrWithoutItsLatency) {
  model::Report r = small_gpu();
  model::Element mall{"mall", {}};
  mall.attributes.emplace_back("size", Attribute::measured(256.0 * 1024 * 1024, "B", "test", 1));
  r.memory.push_back(mall);
  EXPECT_NE(drawn(r, false).find("\n  MALL 256 MiB\n"), std::string::npos) << drawn(r, false);
  r.memory.back().attributes.emplace_back("latency",
                                          Attribute::measured(520.0, "cycles", "test", 1));
  EXPECT_NE(drawn(r, false).find("\n  MALL 256 MiB: latency 520 cycles\n"), std::string::npos)
      << drawn(r, false);
}

}  // namespace
}  // namespace gputopo::report
