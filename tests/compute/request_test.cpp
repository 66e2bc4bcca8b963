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
  info.compute_capability = model::ComputeCapability{9, 0};
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
  volta.compute_capability = model::ComputeCapability{7, 0};
  EXPECT_FALSE(has_op(volta, ComputeOp::BFma2));
  EXPECT_TRUE(has_op(volta, ComputeOp::Match));
  EXPECT_TRUE(has_op(hopper(), ComputeOp::BFma2));
}

TEST(ComputeRequests, ProblemsAreOneLineAndNameTheField) {
  const DeviceInfo info = hopper();
  EXPECT_FALSE(compute_problem(ComputeRequest{}, info));
  const auto problem = [&](ComputeRequest r) { return compute_problem(r, info).value_or(""); };
  EXPECT_NE(problem({ComputeOp::FFma32, 0, 1, 1, 1, std::nullopt}).find("chain_length"),
            std::string::npos);
  EXPECT_NE(problem({ComputeOp::FFma32, 100, 1, 1, 1, std::nullopt}).find("multiple of 32"),
            std::string::npos);
  EXPECT_NE(problem({ComputeOp::FFma32, 1u << 20, 1, 1, 1, std::nullopt}).find("chain_length"),
            std::string::npos);
  EXPECT_NE(problem({ComputeOp::FFma32, 64, 3, 1, 1, std::nullopt}).find("ilp"), std::string::npos);
  EXPECT_NE(problem({ComputeOp::FFma32, 64, 1, 33, 1, std::nullopt}).find("warps_per_block"),
            std::string::npos);
  EXPECT_NE(problem({ComputeOp::FFma32, 64, 1, 1, 0, std::nullopt}).find("blocks"),
            std::string::npos);
  EXPECT_NE(problem({static_cast<ComputeOp>(200), 64, 1, 1, 1, std::nullopt}).find("unknown"),
            std::string::npos);
  DeviceInfo volta = info;
  volta.compute_capability = model::ComputeCapability{7, 0};
  EXPECT_NE(compute_problem({ComputeOp::BFma2, 64, 1, 1, 1, std::nullopt}, volta)
                .value_or("")
                .find("8.0"),
            std::string::npos);
  for (const auto& r : {ComputeRequest{ComputeOp::FFma32, 0, 1, 1, 1, std::nullopt},
                        ComputeRequest{ComputeOp::FFma32, 64, 5, 1, 1, std::nullopt}})
    EXPECT_EQ(problem(r).find('\n'), std::string::npos);
  // The op's argument: a shared load's stride is a multiple of its access, other ops take none.
  EXPECT_EQ(problem({ComputeOp::LdShared64, 64, 1, 1, 1, 24}), "");
  EXPECT_NE(problem({ComputeOp::LdShared64, 64, 1, 1, 1, 12}).find("multiple of 8"),
            std::string::npos);
  EXPECT_NE(problem({ComputeOp::LdShared32, 64, 1, 1, 1, 2048}).find("1024"), std::string::npos);
  EXPECT_NE(problem({ComputeOp::FFma32, 64, 1, 1, 1, 4}).find("no arg"), std::string::npos);
  // The code body's constant chase: a multiple of its stride within the constant space, and only
  // for the code body.
  ComputeRequest chase{ComputeOp::CodeBody, 128, 1, 1, 1, 64};
  chase.data_bytes = 65536;
  EXPECT_EQ(problem(chase), "");
  for (const std::uint32_t bad : {0u, 100u, 65536u + kCodeChaseStride}) {
    chase.data_bytes = bad;
    EXPECT_NE(problem(chase).find("data_bytes"), std::string::npos) << bad;
  }
  ComputeRequest not_code{ComputeOp::FFma32, 64, 1, 1, 1, std::nullopt};
  not_code.data_bytes = 256;
  EXPECT_NE(problem(not_code).find("chases no data"), std::string::npos);
  // FP8 mma.sync: 8.9 has it, 9.x does not (ptxas emulates it there).
  DeviceInfo ada = info;
  ada.compute_capability = model::ComputeCapability{8, 9};
  EXPECT_TRUE(has_op(ada, ComputeOp::MmaE4M3));
  EXPECT_FALSE(has_op(info, ComputeOp::MmaE4M3));
  EXPECT_NE(problem({ComputeOp::MmaE5M2, 64, 1, 1, 1, std::nullopt}).find("wgmma"),
            std::string::npos);
}

TEST(ComputeRequests, BankWavefrontsCountDistinctWordsPerBank) {
  // 32 banks of 4 B: a stride of k words is a gcd(k, 32)-way conflict; one address is a broadcast.
  EXPECT_EQ(bank_wavefronts(4, 0, 32, 4), 1u);
  EXPECT_EQ(bank_wavefronts(4, 4, 32, 4), 1u);
  EXPECT_EQ(bank_wavefronts(4, 8, 32, 4), 2u);
  EXPECT_EQ(bank_wavefronts(4, 12, 32, 4), 1u);
  EXPECT_EQ(bank_wavefronts(4, 128, 32, 4), 32u);
  EXPECT_EQ(bank_wavefronts(4, 512, 32, 4), 32u);
  // 8-byte loads of consecutive lanes span 256 B: two passes over 128 B of banks.
  EXPECT_EQ(bank_wavefronts(8, 8, 32, 4), 2u);
  EXPECT_EQ(bank_wavefronts(8, 8, 32, 8), 1u);
  // 8-byte banks: two lanes 4 B apart read one bank word.
  EXPECT_EQ(bank_wavefronts(4, 8, 32, 8), 1u);
  EXPECT_EQ(bank_wavefronts(4, 16, 32, 8), 2u);
  // Fewer banks than lanes conflict at stride 1.
  EXPECT_EQ(bank_wavefronts(4, 4, 16, 4), 2u);
}

TEST(ComputeRequests, TheSimulatorRefusesBadRequestsAsBadRequest) {
  auto dev = sim::open("h100-sxm");
  ComputeBatch batch;
  batch.requests.push_back({ComputeOp::FFma32, 64, 1, 1, 1, std::nullopt});
  batch.requests.push_back({ComputeOp::FFma32, 64, 6, 1, 1, std::nullopt});
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
