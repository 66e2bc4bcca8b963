#include "device/cuda/compute_runner.hpp"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "device/cuda/check.hpp"
#include "device/cuda/code_body.hpp"
#include "device/cuda/kernels.hpp"

namespace gputopo::device::cuda {
namespace {

// A bound on the cycles of one step of one thread when all of a block's threads' steps run one
// after another (atomics on one address come closest), so that the deadline only ever stops a
// kernel that another process starves.
constexpr double kWorstStepCycles = 64;
constexpr double kComputeDeadlineFloorNs = 1e9;

[[noreturn]] void bad_compute_request(const std::string& what) {
  throw Error(Error::Kind::BadRequest, what);
}

std::uint64_t* as_words(std::uint8_t* p) { return reinterpret_cast<std::uint64_t*>(p); }

// Request `r`'s launch arguments but for where its records go; its deadline allows the slowest
// step any op may take at `mhz`.
ComputeLaunchArgs args_for(const ComputeRequest& r, double mhz) {
  ComputeLaunchArgs args;
  args.trips = r.chain_length / kComputeUnroll;
  if (r.ilp == 1 && r.chain_length % kStraightMarkSteps == 0 &&
      r.chain_length <= kStraightMarks * kStraightMarkSteps)
    args.straight_marks = r.chain_length / kStraightMarkSteps;
  args.f1 = 1.0000001f;
  args.f2 = 1e-9f;
  args.d1 = 1.0000000001;
  args.d2 = 1e-12;
  args.u1 = 0x3c003c01u;
  args.u2 = 0x00010003u;
  args.arg = r.arg.value_or(0);
  // Atomics: a word per thread and chain; shared loads: 32 lanes at the stride, and 8 B over.
  args.shared_words = std::max(r.warps_per_block * 32 * r.ilp, (32 * args.arg + 8) / 4 + 1);
  args.address_mask =
      r.op == ComputeOp::AtomGlobalOne || r.op == ComputeOp::AtomSharedOne ? 0u : ~0u;
  const double bound_ns =
      32.0 * r.warps_per_block * r.ilp * r.chain_length * kWorstStepCycles / mhz * 1e3;
  args.deadline_ns = static_cast<std::uint64_t>(kComputeDeadlineFloorNs + 4 * bound_ns);
  return args;
}

// Each request's per-block cycles (first warp's start to last warp's end) and SMs; throws when a
// block did not finish.
std::vector<ComputeResult> unpack(const ComputeBatch& batch,
                                  const std::vector<std::uint64_t>& clocks,
                                  const std::vector<std::int32_t>& sms,
                                  const std::vector<std::uint32_t>& done) {
  std::vector<ComputeResult> results;
  std::uint64_t warp_at = 0;
  std::uint64_t block_at = 0;
  for (const auto& r : batch.requests) {
    ComputeResult& result = results.emplace_back();
    for (std::uint32_t b = 0; b < r.blocks; ++b, ++block_at) {
      if (done[block_at] != static_cast<std::uint32_t>(ComputeStatus::Done))
        throw Error(Error::Kind::Measurement,
                    "a compute kernel (" + std::string(to_string(r.op)) +
                        (done[block_at] == static_cast<std::uint32_t>(ComputeStatus::TimedOut)
                             ? ") ran past its deadline and was stopped; the GPU may be busy "
                               "with other work"
                             : ") block did not run"));
      std::uint64_t first = ~std::uint64_t{0};
      std::uint64_t last = 0;
      for (std::uint32_t w = 0; w < r.warps_per_block; ++w, ++warp_at) {
        first = std::min(first, clocks[2 * warp_at]);
        last = std::max(last, clocks[2 * warp_at + 1]);
      }
      result.cycles.push_back(last - first);
      result.sms.push_back(sms[block_at]);
    }
  }
  return results;
}

// The kernel of request `r`: the generic one, or an op's own (wgmma's sm_90a kernel, the code
// body the driver compiles at run time).
cudaError_t launch_request(const ComputeRequest& r, const ComputeLaunchArgs& args,
                           const DeviceInfo& info, cudaStream_t s) {
  const std::uint32_t threads = r.warps_per_block * 32;
  if (wgmma_op(r.op)) return launch_wgmma(r.op, args, r.blocks, threads, s);
  if (r.op == ComputeOp::CodeBody)
    return launch_code_body(args.arg, r.data_bytes.value_or(0), info.compute_capability().major,
                            info.compute_capability().minor, args, r.blocks, threads, s);
  return launch_compute(r.op, static_cast<int>(r.ilp), args, r.blocks, threads, s);
}

}  // namespace

ComputeRunner::ComputeRunner(const DeviceInfo& info, cudaStream_t stream, const RunClock& clock)
    : info_(info), stream_(stream), clock_(clock) {}

ComputeBatchResult ComputeRunner::run(const ComputeBatch& batch) {
  const std::size_t n = batch.requests.size();
  std::uint64_t warps = 0;
  std::uint64_t blocks = 0;
  std::uint64_t words = 1;
  for (std::size_t i = 0; i < n; ++i) {
    const auto& r = batch.requests[i];
    if (const auto why = compute_problem(r, info_))
      bad_compute_request("compute request " + std::to_string(i) + ": " + *why);
    warps += std::uint64_t{r.warps_per_block} * r.blocks;
    blocks += r.blocks;
    words =
        std::max<std::uint64_t>(words, std::uint64_t{r.warps_per_block} * 32 * r.blocks * r.ilp);
  }
  // Records: clocks (2 per warp) | smids and status (per block) | sink (1024 words).
  const std::uint64_t clock_bytes = 16 * warps;
  const std::uint64_t block_bytes = 4 * blocks;
  std::uint8_t* records = records_.reserve(clock_bytes + 2 * block_bytes + 4096 + 256);
  auto* smids = reinterpret_cast<std::int32_t*>(records + clock_bytes);
  auto* status = reinterpret_cast<std::uint32_t*>(records + clock_bytes + block_bytes);
  auto* sink = reinterpret_cast<std::uint32_t*>(records + clock_bytes + 2 * block_bytes);
  auto* atom_words = reinterpret_cast<std::uint32_t*>(words_.reserve(4 * words));
  check(cudaMemsetAsync(status, 0, block_bytes, stream_), "cudaMemsetAsync (compute status)");

  std::vector<std::pair<std::uint32_t, std::uint32_t>> bodies;
  for (const auto& r : batch.requests)
    if (r.op == ComputeOp::CodeBody)
      bodies.emplace_back(r.arg.value_or(0), r.data_bytes.value_or(0));
  check(prepare_code_bodies(bodies, info_.compute_capability().major,
                            info_.compute_capability().minor),
        "code body compilation");

  ComputeBatchResult out;
  out.conditions = clock_.begin();
  const double mhz = info_.sm_clock_max_mhz() > 0 ? info_.sm_clock_max_mhz() : 1000;
  double longest_ns = 0;
  std::uint64_t warp_at = 0;
  std::uint64_t block_at = 0;
  for (const auto& r : batch.requests) {
    ComputeLaunchArgs args = args_for(r, mhz);
    args.clocks = as_words(records) + 2 * warp_at;
    args.smids = smids + block_at;
    args.status = status + block_at;
    args.sink = sink;
    args.atom_words = atom_words;
    longest_ns += static_cast<double>(args.deadline_ns);
    check(launch_request(r, args, info_, stream_),
          "compute kernel (" + std::string(to_string(r.op)) + ") launch");
    warp_at += std::uint64_t{r.warps_per_block} * r.blocks;
    block_at += r.blocks;
  }
  wait_for(stream_, 2 * longest_ns / 1e9 + 10, "compute kernels");

  std::vector<std::uint64_t> clocks(2 * warps);
  std::vector<std::int32_t> sms(blocks);
  std::vector<std::uint32_t> done(blocks);
  check(cudaMemcpyAsync(clocks.data(), records, clock_bytes, cudaMemcpyDeviceToHost, stream_),
        "cudaMemcpyAsync (compute clocks)");
  check(cudaMemcpyAsync(sms.data(), smids, block_bytes, cudaMemcpyDeviceToHost, stream_),
        "cudaMemcpyAsync (compute SMs)");
  check(cudaMemcpyAsync(done.data(), status, block_bytes, cudaMemcpyDeviceToHost, stream_),
        "cudaMemcpyAsync (compute status)");
  wait_for(stream_, kCopyBackSeconds, "copying compute records");
  clock_.end(out.conditions);

  out.results = unpack(batch, clocks, sms, done);
  return out;
}

}  // namespace gputopo::device::cuda
