#include <gtest/gtest.h>

#include <set>
#include <string>

#include "device/compute_request.hpp"
#include "device/sim/sim_device.hpp"

// Compute requests: the op table, and the one-line refusals both backends give.
namespace gputopo::device {
namespace {

DeviceInfo hopper() {
  DeviceInfo info;
  info.cc_major = 9;
  info.max_threads_per_block = 1024;
  return info;
}

TEST(ComputeOps, NamesAreUniqueAndReadBack) {
  std::set<std::string> names;
  for (const ComputeOp op : all_compute_ops()) {
    EXPECT_TRUE(names.insert(std::string(to_string(op))).second) << to_string(op);
    EXPECT_EQ(compute_op_from_string(to_string(op)), op);
    EXPECT_FALSE(op_info(op).sass.empty());
    EXPECT_GE(op_info(op).per_step, 1u);
  }
  EXPECT_EQ(names.size(), static_cast<std::size_t>(kComputeOpCount));
  EXPECT_FALSE(compute_op_from_string("nope"));
}

TEST(ComputeOps, OlderGpusLackNewerInstructions) {
  DeviceInfo volta;
  volta.cc_major = 7;
  EXPECT_FALSE(has_op(volta, ComputeOp::BFma2));
  EXPECT_TRUE(has_op(volta, ComputeOp::Match));
  EXPECT_TRUE(has_op(hopper(), ComputeOp::BFma2));
}

TEST(ComputeRequests, ProblemsAreOneLineAndNameTheField) {
  const DeviceInfo info = hopper();
  EXPECT_FALSE(compute_problem(ComputeRequest{}, info));
  const auto problem = [&](ComputeRequest r) { return compute_problem(r, info).value_or(""); };
  EXPECT_NE(problem({ComputeOp::FFma32, 0, 1, 1, 1}).find("chain_length"), std::string::npos);
  EXPECT_NE(problem({ComputeOp::FFma32, 100, 1, 1, 1}).find("multiple of 32"), std::string::npos);
  EXPECT_NE(problem({ComputeOp::FFma32, 1u << 20, 1, 1, 1}).find("chain_length"),
            std::string::npos);
  EXPECT_NE(problem({ComputeOp::FFma32, 64, 3, 1, 1}).find("ilp"), std::string::npos);
  EXPECT_NE(problem({ComputeOp::FFma32, 64, 1, 33, 1}).find("warps_per_block"), std::string::npos);
  EXPECT_NE(problem({ComputeOp::FFma32, 64, 1, 1, 0}).find("blocks"), std::string::npos);
  EXPECT_NE(problem({static_cast<ComputeOp>(200), 64, 1, 1, 1}).find("unknown"), std::string::npos);
  DeviceInfo volta = info;
  volta.cc_major = 7;
  EXPECT_NE(compute_problem({ComputeOp::BFma2, 64, 1, 1, 1}, volta).value_or("").find("8.0"),
            std::string::npos);
  for (const auto& r : {ComputeRequest{ComputeOp::FFma32, 0, 1, 1, 1},
                        ComputeRequest{ComputeOp::FFma32, 64, 5, 1, 1}})
    EXPECT_EQ(problem(r).find('\n'), std::string::npos);
}

TEST(ComputeRequests, TheSimulatorRefusesBadRequestsAsBadRequest) {
  auto dev = sim::open("h100-sxm");
  ComputeBatch batch;
  batch.requests.push_back({ComputeOp::FFma32, 64, 1, 1, 1});
  batch.requests.push_back({ComputeOp::FFma32, 64, 6, 1, 1});
  try {
    dev->compute(batch);
    FAIL() << "accepted ilp 6";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), Error::Kind::BadRequest);
    EXPECT_NE(std::string(e.what()).find("compute request 1: ilp"), std::string::npos) << e.what();
  }
}

TEST(ComputeRequests, AGpuWithoutAComputeTableRefusesEveryBatch) {
  auto dev = sim::open("toy");
  ComputeBatch batch;
  batch.requests.push_back({});
  try {
    dev->compute(batch);
    FAIL() << "the toy preset has no compute table";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), Error::Kind::BadRequest);
    EXPECT_NE(std::string(e.what()).find("compute"), std::string::npos);
  }
}

}  // namespace
}  // namespace gputopo::device
