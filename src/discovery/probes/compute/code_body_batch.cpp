#include "discovery/probes/compute/code_body_batch.hpp"

#include "discovery/probes/compute/compute_batch.hpp"
#include "discovery/probes/compute/pipeline_probe.hpp"

namespace gputopo::discovery {
namespace {

// 4 and 16 passes over the body (a step is 1/32 of a pass).
constexpr std::uint32_t kShortPassSteps = 4 * device::kComputeStepsPerTrip;
constexpr std::uint32_t kLongPassSteps = 16 * device::kComputeStepsPerTrip;

}  // namespace

device::ComputeRequest code_body(std::uint32_t instructions,
                                 std::optional<std::uint32_t> data_bytes) {
  device::ComputeRequest r{device::ComputeOp::CodeBody, kShortPassSteps, 1, 1, 1, instructions};
  r.data_bytes = data_bytes;
  return r;
}

std::optional<std::vector<Slope>> cycles_per_pass(Context& ctx,
                                                  const std::vector<device::ComputeRequest>& items,
                                                  std::string& why) {
  const auto r = run_compute_batch(
      ctx, two_length_batch(items, kPipelineRepeats, kShortPassSteps, kLongPassSteps), why);
  if (!r) return std::nullopt;
  std::vector<Slope> passes;
  for (std::size_t k = 0; k < items.size(); ++k) {
    Slope s = item_slope(*r, k, items.size(), kPipelineRepeats, kShortPassSteps, kLongPassSteps);
    for (double* v : {&s.value, &s.lo, &s.hi}) *v *= device::kComputeStepsPerTrip;
    for (double& v : s.per_repeat) v *= device::kComputeStepsPerTrip;
    passes.push_back(std::move(s));
  }
  return passes;
}

}  // namespace gputopo::discovery
