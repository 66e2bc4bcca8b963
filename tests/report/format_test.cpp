#include "report/format.hpp"

#include <gtest/gtest.h>

namespace gputopo::report {

TEST(FormatBytes, PicksTheLargestBinaryUnit) {
  EXPECT_EQ(format_bytes(48), "48 B");
  EXPECT_EQ(format_bytes(1024), "1 KiB");
  EXPECT_EQ(format_bytes(232448), "227 KiB");
  EXPECT_EQ(format_bytes(52428800), "50 MiB");
  EXPECT_EQ(format_bytes(85899345920.0), "80 GiB");
  EXPECT_EQ(format_bytes(85029158912.0), "79.19 GiB");
  EXPECT_EQ(format_bytes(245760 + 512), "240.5 KiB");
}

TEST(FormatNumber, DropsNeedlessDigits) {
  EXPECT_EQ(format_number(1980), "1980");
  EXPECT_EQ(format_number(0.98), "0.98");
  EXPECT_EQ(format_number(295.456), "295.46");
  EXPECT_EQ(format_number(3352.3), "3352.3");
  EXPECT_EQ(format_number(0.0012), "0.0012");
  EXPECT_EQ(format_number(-4), "-4");
}

TEST(FormatValue, UsesNaturalUnits) {
  using model::Json;
  EXPECT_EQ(format_value(Json(52428800), "B"), "50 MiB");
  EXPECT_EQ(format_value(Json(1980), "MHz"), "1980 MHz");
  EXPECT_EQ(format_value(Json(295.5), "cycles"), "295.5 cycles");
  EXPECT_EQ(format_value(Json(3352.32), "GB/s"), "3352.32 GB/s");
  EXPECT_EQ(format_value(Json(true), ""), "yes");
  EXPECT_EQ(format_value(Json(false), ""), "no");
  EXPECT_EQ(format_value(Json("Hopper"), ""), "Hopper");
  EXPECT_EQ(format_value(Json::array({1024, 1024, 64}), ""), "1024 x 1024 x 64");
  EXPECT_EQ(format_value(Json(132), ""), "132");
  EXPECT_EQ(format_value(Json::array({"texture", "readOnly"}), ""), "texture, readOnly");
  EXPECT_EQ(format_value(Json::array(), ""), "none");
  EXPECT_EQ(format_value(Json(), "B"), "");
}

TEST(LabelFor, SplitsCamelCaseAndKeepsAcronyms) {
  EXPECT_EQ(label_for("smClockMax"), "SM clock max");
  EXPECT_EQ(label_for("l2PersistingMax"), "L2 persisting max");
  EXPECT_EQ(label_for("constantL15"), "Constant L1.5");
  EXPECT_EQ(label_for("mmaE4m3Latency"), "mmaE4m3 latency");
  EXPECT_EQ(label_for("hfma2PerClkPerSm"), "hfma2 per clock per SM");
  EXPECT_EQ(label_for("mmaBf16Tflops"), "mmaBf16 TFLOP/s");
  EXPECT_EQ(label_for("nearLatency"), "Near latency");
  EXPECT_EQ(label_for("pciBusId"), "PCI bus ID");
  EXPECT_EQ(label_for("uuid"), "UUID");
  EXPECT_EQ(label_for("sharedMemoryPerBlockOptin"), "Shared memory per block opt-in");
  EXPECT_EQ(label_for("maxTexture1DLinearWidth"), "Max texture 1D linear width");
  EXPECT_EQ(label_for("readOnly"), "Read only");
  EXPECT_EQ(label_for("l2"), "L2");
  EXPECT_EQ(label_for("gpuDirectRdma"), "GPU direct RDMA");
}

}  // namespace gputopo::report
