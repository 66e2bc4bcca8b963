#include "device/sim/compute_model.hpp"

#include <algorithm>
#include <cmath>

#include "device/sim/rng.hpp"

namespace gputopo::device::sim {
namespace {

constexpr double kSassBytes = 16;

// The code body's constant chase: cycles per load, where the loads hit the first cache of the
// constant path that holds `data` bytes beside what the body keeps in it, else the L2.
double chase_load_cycles(const SimConfig& config, double code, double data) {
  const SpaceSpec& space = config.space(Space::Constant);
  for (std::size_t i = 0; i < space.path.size(); ++i) {
    const CacheSpec& cache = config.caches[static_cast<std::size_t>(space.path[i])];
    double room = static_cast<double>(cache.geometry.size_bytes);
    if (i + 1 == space.path.size())
      for (const auto& level : config.compute->instruction_caches)
        if (level.holds_constants) room -= code;
    if (data <= room) return cache.latency_cycles + space.extra_cycles;
  }
  return config.l2.near_latency_cycles + space.extra_cycles;
}

// A step is 1/32 of a pass over the body: arg / 32 instructions, each costing the row's latency
// plus every instruction-cache level the body overflows, or that it shares with a constant chase
// it overflows together with.
double code_body_step(const SimConfig& config, const ComputeRequest& request,
                      const PipelineSpec& p) {
  const double instructions = request.arg.value_or(0);
  const double code = instructions * kSassBytes;
  const double data = request.data_bytes.value_or(0);
  double per_instruction = p.latency_cycles;
  for (const auto& level : config.compute->instruction_caches)
    if (code + (level.holds_constants ? data : 0) > static_cast<double>(level.size_bytes))
      per_instruction += level.extra_cycles;
  double pass = per_instruction * instructions;
  if (data > 0) pass += data / kCodeChaseStride * chase_load_cycles(config, code, data);
  return pass / kComputeStepsPerTrip;
}

}  // namespace

ComputeResult model_compute(const SimConfig& config, const ComputeRequest& request,
                            std::uint64_t seed, double& busy) {
  const ComputeSpec& c = *config.compute;
  PipelineSpec p = *c.pipeline(request.op);
  if (const auto access = shared_access_bytes(request.op); access > 0 && c.shared_banks) {
    const auto& b = *c.shared_banks;
    const double passes = bank_wavefronts(access, request.arg.value_or(0), b.count, b.width_bytes);
    p.latency_cycles += (passes - 1) * b.conflict_cycles;
    p.per_clk_per_sm /= passes;
  }
  const ComputeOpInfo& op = op_info(request.op);
  if (request.op == ComputeOp::CodeBody) p.latency_cycles = code_body_step(config, request, p);
  if (diverge_op(request.op)) {
    // A step runs the body of every path a lane of the warp is on, one after another, and a
    // branch per path of the loop: written as the latency of one of the step's instructions.
    // DivergeJoin's tail (the second half of its step) runs once a warp where the paths
    // reconverge after the loop, once a path where they do not.
    const double paths = request.arg.value_or(1);
    double bodies = request.op == ComputeOp::DivergeUniform ? 1.0 : paths;
    if (request.op == ComputeOp::DivergeJoin) bodies = (paths + (c.reconverge ? 1.0 : paths)) / 2;
    p.latency_cycles =
        (bodies * op.per_step * p.latency_cycles + paths * c.branch_cycles) / op.per_step;
  }
  const double steps = request.chain_length;
  const double per_step = op.per_step;
  double instructions_per_step = per_step + (op.extra.empty() ? 0.0 : 1.0);
  if (c.register_reads_per_clk > 0 && op.register_reads > c.register_reads_per_clk)
    instructions_per_step *= op.register_reads / c.register_reads_per_clk;
  const double threads = 32.0 * request.warps_per_block;
  const double latency = steps * per_step * p.latency_cycles;
  const double pipe = threads * request.ilp * steps * per_step / p.per_clk_per_sm;
  const double warps_per_scheduler =
      std::ceil(static_cast<double>(request.warps_per_block) / c.schedulers_per_sm);
  const double trips = steps / kComputeStepsPerTrip;
  const double issue = warps_per_scheduler * (request.ilp * steps * instructions_per_step +
                                              trips * c.trip_overhead_cycles);
  const double span = std::max({latency, pipe, issue}) + c.overhead_cycles;

  Rng noise(mix64(seed, 0xc0de));
  ComputeResult result;
  const auto sms = static_cast<std::uint32_t>(config.device.sm_count);
  for (std::uint32_t b = 0; b < request.blocks; ++b) {
    double cycles = span;
    if (c.jitter_cycles > 0) cycles += c.jitter_cycles * noise.normal();
    const NoiseSpec& outliers = config.noise;
    if (outliers.outlier_rate > 0 && noise.uniform() < outliers.outlier_rate)
      cycles += outliers.outlier_min_cycles +
                noise.uniform() * (outliers.outlier_max_cycles - outliers.outlier_min_cycles);
    result.cycles.push_back(static_cast<std::uint64_t>(std::max(1.0, std::round(cycles))));
    result.sms.push_back(static_cast<int>(b % sms));
  }
  busy += span * std::ceil(static_cast<double>(request.blocks) / sms);
  return result;
}

}  // namespace gputopo::device::sim
