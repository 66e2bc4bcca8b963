#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <utility>

#include "device/compute_request.hpp"
#include "device/cuda/compute_job.hpp"

// The SASS each compute kernel compiled to (tests/data/compute/, made by scripts/sass-opcodes.py
// from cuobjdump; docs/compute.md, "Evidence"): every kernel holds at least one timed instruction
// per step of every chain, so the compiler neither dropped nor merged the steps that are timed.
namespace gputopo::device {
namespace {

constexpr auto kUnroll = cuda::kComputeUnroll;  // steps per chain per loop trip
constexpr auto kStraightSteps = static_cast<int>(cuda::kStraightMarks * cuda::kStraightMarkSteps);
constexpr int kStraightIlp = 0;  // the key of an op's straight kernel

using Counts = std::map<std::string, int>;

// (op, ilp) -> opcode counts; (op, kStraightIlp) for the straight kernel.
std::map<std::pair<int, int>, Counts> read_opcodes(const std::string& file) {
  std::ifstream in(file);
  std::map<std::pair<int, int>, Counts> kernels;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream s(line);
    std::string kernel;
    std::string word;
    int op = -1;
    int ilp = -1;
    s >> kernel >> word >> op >> word >> ilp >> word;
    Counts& counts = kernels[{op, kernel == "straight_kernel" ? kStraightIlp : ilp}];
    while (s >> word) {
      const auto eq = word.find('=');
      if (eq != std::string::npos) counts[word.substr(0, eq)] = std::stoi(word.substr(eq + 1));
    }
  }
  return kernels;
}

int with_prefix(const Counts& counts, std::string_view prefix) {
  int n = 0;
  for (const auto& [opcode, count] : counts)
    if (opcode.starts_with(prefix)) n += count;
  return n;
}

TEST(ComputeSass, EveryKernelKeepsEveryTimedStep) {
  const auto kernels = read_opcodes(std::string(GPUTOPO_TEST_DATA) + "/compute/sm_90.opcodes");
  ASSERT_FALSE(kernels.empty()) << "tests/data/compute/sm_90.opcodes is missing";
  DeviceInfo sm90;
  sm90.compute_capability = model::ComputeCapability{9, 0};
  for (const ComputeOp op : all_compute_ops()) {
    const auto& info = op_info(op);
    // An op sm_90 lacks (FP8 mma.sync) compiles to a placeholder there, which the host refuses.
    if (!has_op(sm90, op)) continue;
    // The code body is PTX written and compiled at run time: no listing of it is built here.
    if (op == ComputeOp::CodeBody) continue;
    for (const int ilp : {kStraightIlp, 1, 2, 4, 8}) {
      // Ops of probes of their own run one chain per thread, unless multi-chain: their other
      // kernels never run.
      if (info.own_probe && !info.multi_chain && ilp > 1) continue;
      if (ilp == kStraightIlp && !has_straight_kernel(op)) continue;
      const auto it = kernels.find({static_cast<int>(op), ilp});
      ASSERT_NE(it, kernels.end()) << info.name << " ilp " << ilp << " has no listing";
      // Straight code lets ptxas merge the first step into the chain's set-up and the last into
      // what stores it (an integer add chain: IMAD first, VIADD last); the marks between hold all.
      const int steps = ilp == kStraightIlp ? kStraightSteps - 2 : static_cast<int>(kUnroll) * ilp;
      EXPECT_GE(with_prefix(it->second, info.sass), steps * static_cast<int>(info.per_step))
          << info.name << " ilp " << ilp << ": the compiler did not keep " << info.sass;
      if (!info.extra.empty()) {
        EXPECT_GE(with_prefix(it->second, info.extra), steps) << info.name << " ilp " << ilp;
      }
    }
  }
}

// The step instructions are all the loop holds of the op's unit: a listing where the compiler
// turned the chain into something else (a MUFU chain folded away, an atomic aggregated over the
// warp with shuffles) fails here.
TEST(ComputeSass, NoKernelAggregatesOrFoldsItsChain) {
  const auto kernels = read_opcodes(std::string(GPUTOPO_TEST_DATA) + "/compute/sm_90.opcodes");
  for (const auto& [key, counts] : kernels) {
    const auto op = static_cast<ComputeOp>(key.first);
    if (op == ComputeOp::Shfl) continue;
    EXPECT_EQ(with_prefix(counts, "SHFL"), 0) << to_string(op) << " ilp " << key.second;
  }
}

}  // namespace
}  // namespace gputopo::device
