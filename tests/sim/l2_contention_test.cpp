#include "device/sim/l2_contention.hpp"

#include <gtest/gtest.h>

#include <string>

#include "device/device.hpp"
#include "device/sim/presets.hpp"
#include "device/sim/sim_device.hpp"

namespace gputopo::device::sim {
namespace {

using model::Json;

// The toy GPU (6 SMs; SMs 0, 2, 4 in GPC 0 and segment 0, SMs 1, 3, 5 in GPC 1 and segment 1;
// 64 B lines) with 4 slices a segment: slice bit 0 is line-index bits 0 ^ 4 (address bits 6 ^ 10),
// bit 1 is line-index bit 1 (address bit 7).
Json sliced_toy() {
  for (const auto& [name, text] : embedded_presets())
    if (name == "toy") {
      Json toy = Json::parse(text);
      toy["l2"]["slices_per_segment"] = 4;
      toy["l2"]["slice_hash"] = Json::array({0x11, 0x2});
      toy["l2"]["slice_read_gbps"] = 50;
      toy["bandwidth"]["sm_l2_read_gbps"] = 60;
      toy["bandwidth"]["gpc_port_gbps"] = 120;
      return toy;
    }
  return {};
}

struct Sliced {
  SimConfig config = parse_config(sliced_toy().dump(), "sliced-toy");
  Topology topology = build_topology(config.layout, config.device.sm_count);
  double rate(const std::vector<int>& sms, const std::vector<std::uint64_t>& lines) const {
    return l2_read_rate_gbps(config, topology, sms, lines);
  }
};

std::vector<std::uint64_t> consecutive_lines(int count) {
  std::vector<std::uint64_t> out;
  for (int i = 0; i < count; ++i) out.push_back(static_cast<std::uint64_t>(i) * 64);
  return out;
}

TEST(L2Contention, TheHashGivesEachLineItsSlice) {
  const Sliced s;
  EXPECT_EQ(s.config.l2.slices_per_segment, 4);
  EXPECT_EQ(slice_of(s.config.l2, 0x0), 0);
  EXPECT_EQ(slice_of(s.config.l2, 0x40), 1);
  EXPECT_EQ(slice_of(s.config.l2, 0x400), 1);
  EXPECT_EQ(slice_of(s.config.l2, 0x440), 0);
  EXPECT_EQ(slice_of(s.config.l2, 0x80), 2);
  EXPECT_EQ(slice_of(s.config.l2, 0xc0 + 0x13), 3);  // bytes inside a line do not count
  const SimConfig plain = parse_config(Json::parse(embedded_presets().front().second).dump(), "p");
  EXPECT_EQ(plain.l2.slices_per_segment, 1);
  EXPECT_EQ(slice_of(plain.l2, 0x12345680), 0);
}

TEST(L2Contention, TwoLinesOfOneSliceReadAtHalfTheRateOfTwoSlices) {
  const Sliced s;
  // One segment's SMs: one slice serves both lines (50), or two slices one each (100).
  EXPECT_DOUBLE_EQ(s.rate({0, 2, 4}, {0x0, 0x440}), 50);
  EXPECT_DOUBLE_EQ(s.rate({0, 2, 4}, {0x0, 0x40}), 100);
  // Every SM: each segment's slice carries half the traffic.
  EXPECT_DOUBLE_EQ(s.rate({0, 1, 2, 3, 4, 5}, {0x0, 0x440}), 100);
  EXPECT_DOUBLE_EQ(s.rate({0, 1, 2, 3, 4, 5}, {0x0, 0x80}), 200);
}

TEST(L2Contention, AGpcPortBoundsItsSmsAndAnSmOfItsOwnGpcAddsNothing) {
  const Sliced s;
  EXPECT_DOUBLE_EQ(s.rate({0}, consecutive_lines(64)), 60);         // one SM's own rate
  EXPECT_DOUBLE_EQ(s.rate({0, 2}, consecutive_lines(64)), 120);     // two SMs reach GPC 0's port
  EXPECT_DOUBLE_EQ(s.rate({0, 2, 4}, consecutive_lines(64)), 120);  // a third of GPC 0 adds nothing
  EXPECT_DOUBLE_EQ(s.rate({0, 2, 1}, consecutive_lines(64)),
                   180);  // one of GPC 1 adds its own rate
  EXPECT_DOUBLE_EQ(s.rate({}, consecutive_lines(4)), 0);
  EXPECT_DOUBLE_EQ(s.rate({0}, {}), 0);
}

TEST(L2Contention, TheSimulatedDeviceTimesReadRatesAndRefusesBadSets) {
  auto device = make_device(parse_config(sliced_toy().dump(), "sliced-toy"));
  ReadRateRequest request;
  request.sms = {0, 2, 4};
  request.line_offsets = {0x0, 0x440};
  const ReadRateResult same = device->read_rate(request);
  request.line_offsets = {0x0, 0x40};
  const ReadRateResult apart = device->read_rate(request);
  ASSERT_EQ(same.gbps.size(), 3u);
  for (std::size_t r = 0; r < 3; ++r) {
    EXPECT_NEAR(same.gbps[r], 50, 50 * 0.15);
    EXPECT_NEAR(apart.gbps[r], 100, 100 * 0.15);
  }
  request.sms = {0, 0};
  EXPECT_THROW(device->read_rate(request), Error);
  request.sms = {6};
  EXPECT_THROW(device->read_rate(request), Error);
  request.sms = {};
  EXPECT_THROW(device->read_rate(request), Error);
}

std::string slice_config_error(const Json& json) {
  try {
    parse_config(json.dump(), "bad.json");
  } catch (const Error& e) {
    return e.what();
  }
  return {};
}

TEST(L2Contention, BadSliceFieldsAreRejectedNamingFieldAndReason) {
  const Json good = sliced_toy();
  ASSERT_EQ(slice_config_error(good), "");
  const std::vector<std::tuple<const char*, Json, const char*>> cases{
      {"/l2/slices_per_segment", 3, "l2.slices_per_segment: must be a power of two"},
      {"/l2/slice_hash", Json::array({0x1}), "l2.slice_hash: lists 1 masks for 4 slices"},
      {"/l2/slice_hash", Json::array({0x11, 0x11}), "l2.slice_hash[1]: is a combination"},
      {"/l2/slice_hash", nullptr, "l2.slice_hash: missing"},
      {"/bandwidth/gpc_port_gbps", -1, "bandwidth.gpc_port_gbps: must be in"},
  };
  for (const auto& [pointer, value, message] : cases) {
    Json bad = good;
    const Json::json_pointer at(pointer);
    if (value.is_null())
      bad[at.parent_pointer()].erase(at.back());
    else
      bad[at] = value;
    EXPECT_NE(slice_config_error(bad).find(std::string("bad.json: ") + message), std::string::npos)
        << pointer << " -> " << slice_config_error(bad);
  }
}

}  // namespace
}  // namespace gputopo::device::sim
