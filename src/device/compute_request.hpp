#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "device/compute_op.hpp"
#include "device/info.hpp"
#include "device/results.hpp"

namespace gputopo::device {

// What a compute op is: its report name, the SASS the CUDA kernel compiles its step to, and the
// oldest GPU that has it.
struct ComputeOpInfo {
  ComputeOp op;
  std::string_view name;  // camelCase report name, e.g. "ffma"
  // The SASS opcode timed (prefix match, e.g. "HFMA2" covers HFMA2 and HFMA2.MMA) and how many of
  // them one dependent step holds; `extra` names other instructions in the step, "" when none.
  std::string_view sass;
  std::uint32_t per_step;
  std::string_view extra;
  int min_cc_major;
  int min_cc_minor;
  // Tensor-core ops: floating-point (or integer) operations of one warp instruction, 2 M N K;
  // 0 for every other op.
  std::uint32_t warp_flops = 0;
  // A compute-capability major that lacks the op although it is newer than the minimum (0: none),
  // and why.
  int lacking_major = 0;
  std::string_view lacking_why = {};
  // Timed by a probe of its own (barriers, divergence), one chain per thread; the pipeline probe
  // leaves it out.
  bool own_probe = false;
  // Architecture-specific code (sm_90a): only the minimum compute capability has it.
  bool only_minimum = false;
  // An op of a probe of its own that may still keep several chains a thread (ILP).
  bool multi_chain = false;
  // Distinct vector registers each instruction of the step reads, where a probe depends on it
  // (the register-read probe's op); 0 elsewhere.
  std::uint32_t register_reads = 0;
};
const ComputeOpInfo& op_info(ComputeOp op);
std::string_view to_string(ComputeOp op);
std::optional<ComputeOp> compute_op_from_string(std::string_view name);
std::vector<ComputeOp> all_compute_ops();
// True when a GPU of `info`'s compute capability has the op.
bool has_op(const DeviceInfo& info, ComputeOp op);
// Why a GPU of `info`'s compute capability lacks the op, or nullopt when it has it.
std::optional<std::string> lacks_op(const DeviceInfo& info, ComputeOp op);

// Dependent steps per chain in one trip of the kernels' timed loop: chain lengths are multiples.
inline constexpr std::uint32_t kComputeStepsPerTrip = 32;
inline constexpr std::uint32_t kMaxComputeChain = std::uint32_t{1} << 16;
inline constexpr std::uint32_t kMaxComputeBlocks = 4096;
// Shared-memory load ops: the largest stride between lanes (32 lanes x 1024 B fit the 48 KiB a
// block gets without opt-in).
inline constexpr std::uint32_t kMaxSharedStride = 1024;
// The code-body op's instructions (its arg): 8 to 2^17 FFMAs, 128 B to 2 MiB of SASS.
inline constexpr std::uint32_t kMinCodeInstructions = 8;
inline constexpr std::uint32_t kMaxCodeInstructions = std::uint32_t{1} << 17;
// The code-body op's constant chase (its data_bytes): one load every kCodeChaseStride bytes of a
// table of at most kMaxCodeChaseBytes (and the device's constant memory).
inline constexpr std::uint32_t kCodeChaseStride = 256;
inline constexpr std::uint32_t kMaxCodeChaseBytes = 65536;
// The divergence ops, whose arg is the paths of a warp.
inline bool diverge_op(ComputeOp op) {
  return op == ComputeOp::DivergeSpread || op == ComputeOp::DivergeUniform ||
         op == ComputeOp::DivergeJoin;
}
// Bytes one lane's shared-memory load reads (4 or 8), or 0 for an op that is no such load.
std::uint32_t shared_access_bytes(ComputeOp op);
// The shared-memory passes (wavefronts) one warp's load takes when lane l reads `access_bytes` at
// l x `stride_bytes`, on `banks` banks of `width_bytes`: the most distinct bank words any one bank
// is asked for (lanes on the same word share it: broadcast). The simulator's bank model and the
// bank probe's hypotheses are both this.
std::uint32_t bank_wavefronts(std::uint32_t access_bytes, std::uint32_t stride_bytes,
                              std::uint32_t banks, std::uint32_t width_bytes);

// A compute micro-kernel: `blocks` blocks of `warps_per_block` warps; every thread runs `ilp`
// independent chains of `chain_length` dependent steps of `op`, interleaved. One chain of one warp
// times the op's latency; many chains of many warps its throughput.
struct ComputeRequest {
  ComputeOp op = ComputeOp::FFma32;
  std::uint32_t chain_length = 256;  // a positive multiple of kComputeStepsPerTrip
  std::uint32_t ilp = 1;             // 1, 2, 4 or 8
  std::uint32_t warps_per_block = 1;
  std::uint32_t blocks = 1;
  // The op's argument where it takes one (shared-memory loads: the stride in bytes between a
  // warp's lanes, 0 or unset: one address for all); unset for every other op.
  std::optional<std::uint32_t> arg;
  // codeBody only: before each pass over the body, a dependent chase over this many bytes of
  // constant memory, a load every kCodeChaseStride bytes; unset: no chase.
  std::optional<std::uint32_t> data_bytes = std::nullopt;
};

struct ComputeBatch {
  std::vector<ComputeRequest> requests;
};

struct ComputeResult {
  // Per block: SM cycles from the first of its warps' start to the last one's end (%clock64).
  std::vector<std::uint64_t> cycles;
  std::vector<int> sms;  // per block, the SM it ran on
};

struct ComputeBatchResult {
  std::vector<ComputeResult> results;  // one per request, same order
  RunConditions conditions;
};

// Why `r` cannot run on a GPU of `info` (both backends refuse it with this), or nullopt.
std::optional<std::string> compute_problem(const ComputeRequest& r, const DeviceInfo& info);

}  // namespace gputopo::device
