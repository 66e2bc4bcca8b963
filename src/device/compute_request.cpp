#include "device/compute_request.hpp"

#include <algorithm>
#include <array>

namespace gputopo::device {
namespace {

using O = ComputeOp;
// What ptxas (CUDA 13.0) makes of an FP8 mma.sync for sm_90, seen in cuobjdump of a test build:
// F2FP unpacks to FP16 and HMMA, so the instruction timed would not be an FP8 tensor instruction.
constexpr std::string_view kNoFp8Mma =
    "compute capability 9.x has no FP8 mma.sync tensor instruction (ptxas emulates it with F2FP "
    "unpacks and FP16 HMMA; Hopper's FP8 tensor path is wgmma: wgmmaE4m3, wgmmaE5m2)";
constexpr std::string_view kSm90aOnly =
    "wgmma is sm_90a code, which runs on compute capability 9.0 only";
constexpr std::array<ComputeOpInfo, kComputeOpCount> kOps{{
    {O::FAdd32, "fadd", "FADD", 1, "", 0, 0, 0, 0, ""},
    {O::FMul32, "fmul", "FMUL", 1, "", 0, 0, 0, 0, ""},
    {O::FFma32, "ffma", "FFMA", 1, "", 0, 0, 0, 0, ""},
    {O::DAdd, "dadd", "DADD", 1, "", 0, 0, 0, 0, ""},
    {O::DFma, "dfma", "DFMA", 1, "", 0, 0, 0, 0, ""},
    {O::HFma2, "hfma2", "HFMA2", 1, "", 0, 0, 0, 0, ""},
    {O::BFma2, "bf16Fma2", "HFMA2", 1, "", 8, 0, 0, 0, ""},
    {O::IAdd3, "iadd3", "IADD3", 1, "", 0, 0, 0, 0, ""},
    {O::IMad, "imad", "IMAD", 1, "", 0, 0, 0, 0, ""},
    {O::Lop3, "lop3", "LOP3", 1, "", 0, 0, 0, 0, ""},
    {O::Shf, "shf", "SHF", 1, "", 0, 0, 0, 0, ""},
    {O::Rcp, "mufuRcp", "MUFU.RCP", 1, "", 0, 0, 0, 0, ""},
    {O::Rsq, "mufuRsq", "MUFU.RSQ", 1, "", 0, 0, 0, 0, ""},
    {O::Sin, "mufuSin", "MUFU.SIN", 1, "FMUL.RZ", 0, 0, 0, 0, ""},
    {O::Ex2, "mufuEx2", "MUFU.EX2", 1, "", 0, 0, 0, 0, ""},
    {O::Lg2, "mufuLg2", "MUFU.LG2", 1, "", 0, 0, 0, 0, ""},
    {O::F2I, "f2i", "F2I", 1, "", 0, 0, 0, 0, ""},
    {O::I2F, "i2f", "I2F", 1, "", 0, 0, 0, 0, ""},
    {O::F2F, "f2f", "F2F", 2, "", 0, 0, 0, 0, ""},
    {O::Shfl, "shfl", "SHFL", 1, "", 0, 0, 0, 0, ""},
    {O::Vote, "vote", "VOTE", 1, "ISETP", 0, 0, 0, 0, ""},
    {O::Match, "match", "MATCH", 1, "", 7, 0, 0, 0, ""},
    {O::AtomGlobal, "atomGlobal", "ATOMG", 1, "", 0, 0, 0, 0, ""},
    {O::AtomGlobalOne, "atomGlobalOneAddress", "ATOMG", 1, "", 0, 0, 0, 0, ""},
    {O::AtomShared, "atomShared", "ATOMS", 1, "", 0, 0, 0, 0, ""},
    {O::AtomSharedOne, "atomSharedOneAddress", "ATOMS", 1, "", 0, 0, 0, 0, ""},
    {O::MmaF16, "mmaF16", "HMMA.16816.F32", 1, "", 8, 0, 2 * 16 * 8 * 16, 0, ""},
    {O::MmaBF16, "mmaBf16", "HMMA.16816.F32.BF16", 1, "", 8, 0, 2 * 16 * 8 * 16, 0, ""},
    {O::MmaTF32, "mmaTf32", "HMMA.1688.F32.TF32", 1, "", 8, 0, 2 * 16 * 8 * 8, 0, ""},
    {O::MmaI8, "mmaI8", "IMMA.16832.S8.S8", 1, "", 8, 0, 2 * 16 * 8 * 32, 0, ""},
    {O::MmaF64, "mmaF64", "DMMA", 1, "", 8, 0, 2 * 8 * 8 * 4, 0, ""},
    {O::MmaE4M3, "mmaE4m3", "QMMA", 1, "", 8, 9, 2 * 16 * 8 * 32, 9, kNoFp8Mma},
    {O::MmaE5M2, "mmaE5m2", "QMMA", 1, "", 8, 9, 2 * 16 * 8 * 32, 9, kNoFp8Mma},
    {O::LdShared32, "ldShared32", "LDS", 1, "", 0, 0, 0, 0, ""},
    {O::LdShared64, "ldShared64", "LDS.64", 1, "VIMNMX", 0, 0, 0, 0, ""},
    {O::BarSync, "barSync", "BAR.SYNC", 1, "", 0, 0, 0, 0, "", true},
    {O::DivergeSpread, "divergeSpread", "FFMA", 16, "", 0, 0, 0, 0, "", true},
    {O::DivergeUniform, "divergeUniform", "FFMA", 16, "", 0, 0, 0, 0, "", true},
    {O::DivergeJoin, "divergeJoin", "FFMA", 32, "", 0, 0, 0, 0, "", true},
    {O::ClusterSync, "clusterSync", "UCGABAR_WAIT", 1, "", 9, 0, 0, 0, "", true},
    {O::DsmemLoad, "dsmemLoad", "LD.E", 1, "", 9, 0, 0, 0, "", true, false, true},
    {O::WgmmaBf16, "wgmmaBf16", "HGMMA.64x256x16.F32.BF16", 1, "", 9, 0, 2 * 64 * 256 * 16 / 4, 0,
     kSm90aOnly, true, true},
    {O::CodeBody, "codeBody", "FFMA", 1, "", 0, 0, 0, 0, "", true},
    {O::ClusterSyncRelaxed, "clusterSyncRelaxed", "UCGABAR_WAIT", 1, "", 9, 0, 0, 0, "", true},
    {O::FFma3Reg, "ffma3Reg", "FFMA", 1, "", 0, 0, 0, 0, "", true, false, true, 3},
    {O::WgmmaE4M3, "wgmmaE4m3", "QGMMA.64x256x32.F32.E4M3.E4M3", 1, "", 9, 0, 2 * 64 * 256 * 32 / 4,
     0, kSm90aOnly, true, true},
    {O::WgmmaE5M2, "wgmmaE5m2", "QGMMA.64x256x32.F32.E5M2.E5M2", 1, "", 9, 0, 2 * 64 * 256 * 32 / 4,
     0, kSm90aOnly, true, true},
}};

constexpr bool ordered() {
  for (std::size_t i = 0; i < kOps.size(); ++i)
    if (static_cast<std::size_t>(kOps[i].op) != i) return false;
  return true;
}
static_assert(ordered(), "kOps must list every ComputeOp in enum order");

// The code body's constant chase, where the request has one.
std::optional<std::string> chase_problem(const ComputeRequest& r, const DeviceInfo& info) {
  if (!r.data_bytes) return std::nullopt;
  const std::uint64_t limit = std::min<std::uint64_t>(
      kMaxCodeChaseBytes, info.constant_bytes() ? info.constant_bytes() : kMaxCodeChaseBytes);
  const std::uint32_t bytes = *r.data_bytes;
  if (bytes == 0 || bytes % kCodeChaseStride != 0 || bytes > limit)
    return "codeBody: data_bytes (the constant chase) must be a positive multiple of " +
           std::to_string(kCodeChaseStride) + " up to " + std::to_string(limit) + ", got " +
           std::to_string(bytes);
  return std::nullopt;
}

}  // namespace

const ComputeOpInfo& op_info(ComputeOp op) {
  const auto i = static_cast<std::size_t>(op);
  return kOps[i < kOps.size() ? i : 0];
}

std::string_view to_string(ComputeOp op) {
  const auto i = static_cast<std::size_t>(op);
  return i < kOps.size() ? kOps[i].name : "unknown";
}

std::optional<ComputeOp> compute_op_from_string(std::string_view name) {
  for (const auto& o : kOps)
    if (o.name == name) return o.op;
  return std::nullopt;
}

std::vector<ComputeOp> all_compute_ops() {
  std::vector<ComputeOp> ops;
  for (const auto& o : kOps) ops.push_back(o.op);
  return ops;
}

bool has_op(const DeviceInfo& info, ComputeOp op) { return !lacks_op(info, op); }

std::optional<std::string> lacks_op(const DeviceInfo& info, ComputeOp op) {
  const auto& o = op_info(op);
  if (info.compute_capability().major < o.min_cc_major ||
      (info.compute_capability().major == o.min_cc_major &&
       info.compute_capability().minor < o.min_cc_minor))
    return std::string(o.name) + " needs compute capability " + std::to_string(o.min_cc_major) +
           "." + std::to_string(o.min_cc_minor) + ", the GPU has " +
           std::to_string(info.compute_capability().major) + "." +
           std::to_string(info.compute_capability().minor);
  if (o.only_minimum && (info.compute_capability().major != o.min_cc_major ||
                         info.compute_capability().minor != o.min_cc_minor))
    return std::string(o.name) + ": " + std::string(o.lacking_why);
  if (o.lacking_major != 0 && info.compute_capability().major == o.lacking_major)
    return std::string(o.name) + ": " + std::string(o.lacking_why);
  return std::nullopt;
}

std::uint32_t shared_access_bytes(ComputeOp op) {
  return op == ComputeOp::LdShared32 ? 4 : op == ComputeOp::LdShared64 ? 8 : 0;
}

std::uint32_t bank_wavefronts(std::uint32_t access_bytes, std::uint32_t stride_bytes,
                              std::uint32_t banks, std::uint32_t width_bytes) {
  if (banks == 0 || width_bytes == 0 || access_bytes == 0) return 1;
  std::vector<std::vector<std::uint64_t>> words(banks);  // distinct bank words per bank
  for (std::uint64_t lane = 0; lane < 32; ++lane) {
    const std::uint64_t first = lane * stride_bytes;
    for (std::uint64_t w = first / width_bytes; w <= (first + access_bytes - 1) / width_bytes;
         ++w) {
      auto& bank = words[w % banks];
      if (std::find(bank.begin(), bank.end(), w) == bank.end()) bank.push_back(w);
    }
  }
  std::size_t most = 1;
  for (const auto& bank : words) most = std::max(most, bank.size());
  return static_cast<std::uint32_t>(most);
}

std::optional<std::string> compute_problem(const ComputeRequest& r, const DeviceInfo& info) {
  if (static_cast<std::size_t>(r.op) >= kOps.size())
    return "unknown compute op " + std::to_string(static_cast<int>(r.op));
  if (auto why = lacks_op(info, r.op)) return why;
  const auto& o = op_info(r.op);
  if (r.chain_length == 0 || r.chain_length % kComputeStepsPerTrip != 0 ||
      r.chain_length > kMaxComputeChain)
    return "chain_length must be a positive multiple of " + std::to_string(kComputeStepsPerTrip) +
           " up to " + std::to_string(kMaxComputeChain) + ", got " + std::to_string(r.chain_length);
  if (r.ilp != 1 && r.ilp != 2 && r.ilp != 4 && r.ilp != 8)
    return "ilp must be 1, 2, 4 or 8, got " + std::to_string(r.ilp);
  if (o.own_probe && !o.multi_chain && r.ilp != 1)
    return std::string(o.name) + " runs one chain per thread (ilp 1), got " + std::to_string(r.ilp);
  if (wgmma_op(r.op) && (r.warps_per_block % 4 != 0 || r.warps_per_block > 8))
    return std::string(o.name) + " runs in warpgroups of 4 warps, at most 2 a block: got " +
           std::to_string(r.warps_per_block) + " warps";
  if (cluster_op(r.op) && r.blocks % kComputeClusterBlocks != 0)
    return std::string(o.name) + " runs in clusters of " + std::to_string(kComputeClusterBlocks) +
           " blocks: blocks must be a multiple, got " + std::to_string(r.blocks);
  const auto warp = static_cast<std::uint32_t>(info.warp_size() > 0 ? info.warp_size() : 32);
  const auto max_warps = static_cast<std::uint32_t>(info.max_threads_per_block()) / warp;
  if (r.warps_per_block == 0 || r.warps_per_block > max_warps)
    return "warps_per_block must be in [1, " + std::to_string(max_warps) + "], got " +
           std::to_string(r.warps_per_block);
  const std::uint32_t arg = r.arg.value_or(0);
  if (const std::uint32_t access = shared_access_bytes(r.op); access > 0) {
    if (arg % access != 0 || arg > kMaxSharedStride)
      return std::string(o.name) + ": arg (the lanes' stride in bytes) must be a multiple of " +
             std::to_string(access) + " up to " + std::to_string(kMaxSharedStride) + ", got " +
             std::to_string(arg);
  } else if (r.op == ComputeOp::CodeBody) {
    if (r.warps_per_block != 1 || r.blocks != 1)
      return std::string(o.name) + " runs one warp in one block";
    if (arg < kMinCodeInstructions || arg > kMaxCodeInstructions || arg % 8 != 0)
      return std::string(o.name) + ": arg (the body's instructions) must be a multiple of 8 from " +
             std::to_string(kMinCodeInstructions) + " to " + std::to_string(kMaxCodeInstructions) +
             ", got " + std::to_string(arg);
    if (auto why = chase_problem(r, info)) return why;
  } else if (diverge_op(r.op)) {
    if (arg == 0 || arg > 32 || (arg & (arg - 1)) != 0)
      return std::string(o.name) + ": arg (the paths) must be a power of two from 1 to 32, got " +
             std::to_string(arg);
  } else if (arg != 0) {
    return std::string(o.name) + " takes no arg, got " + std::to_string(arg);
  }
  if (r.data_bytes && r.op != ComputeOp::CodeBody)
    return std::string(o.name) + " chases no data, got data_bytes " + std::to_string(*r.data_bytes);
  if (r.blocks == 0 || r.blocks > kMaxComputeBlocks)
    return "blocks must be in [1, " + std::to_string(kMaxComputeBlocks) + "], got " +
           std::to_string(r.blocks);
  return std::nullopt;
}

}  // namespace gputopo::device
