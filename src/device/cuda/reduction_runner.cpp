#include "device/cuda/reduction_runner.hpp"

#include <array>

#include "device/cuda/check.hpp"
#include "device/cuda/reduction_kernel.hpp"

namespace gputopo::device::cuda {

ReductionResult ReductionRunner::run(const ReductionRequest& request) {
  if (auto why = reduction_problem(request, info_.sm_count()))
    throw Error(Error::Kind::BadRequest, *why);
  ReductionArgs a;
  a.base = reinterpret_cast<std::uint32_t*>(lines_.reserve(request.span_bytes));
  for (std::size_t i = 0; i < request.line_offsets.size(); ++i)
    a.line_words[i] = static_cast<std::uint32_t>(request.line_offsets[i] / 4);
  a.count = static_cast<std::uint32_t>(request.line_offsets.size());
  a.rounds = request.rounds;
  if (request.timed_sm) {
    a.timed_sm = *request.timed_sm;
    ReductionResult result;
    result.cycles = timed(a, request.line_offsets.size() * request.rounds);
    return result;
  }
  a.span = reinterpret_cast<unsigned long long*>(span_.reserve(2 * sizeof(unsigned long long)));
  std::array<unsigned long long, 2> span = {~0ull, 0};
  check(cudaMemcpyAsync(a.span, span.data(), sizeof(span), cudaMemcpyHostToDevice, stream_),
        "cudaMemcpyAsync (reduction span)");
  check(launch_reductions(a, 2 * static_cast<std::uint32_t>(info_.sm_count()), stream_),
        "reduction kernel launch");
  check(cudaMemcpyAsync(span.data(), a.span, sizeof(span), cudaMemcpyDeviceToHost, stream_),
        "cudaMemcpyAsync (reduction span)");
  wait_for(stream_, 10, "reduction kernel");
  ReductionResult result;
  result.seconds = static_cast<double>(span[1] - span[0]) * 1e-9;
  return result;
}

std::vector<double> ReductionRunner::timed(ReductionArgs a, std::size_t visits) {
  auto* words = reinterpret_cast<unsigned*>(cycles_.reserve((visits + 1) * sizeof(unsigned)));
  a.claim = words;
  a.cycles = words + 1;
  std::vector<unsigned> got(visits + 1);
  for (int attempt = 0; attempt < 3; ++attempt) {
    check(cudaMemsetAsync(a.claim, 0, sizeof(unsigned), stream_), "cudaMemsetAsync (claim)");
    check(launch_reduction_latency(a, 4 * static_cast<std::uint32_t>(info_.sm_count()), stream_),
          "reduction latency kernel launch");
    check(cudaMemcpyAsync(got.data(), words, got.size() * sizeof(unsigned), cudaMemcpyDeviceToHost,
                          stream_),
          "cudaMemcpyAsync (reduction cycles)");
    wait_for(stream_, 10, "reduction latency kernel");
    if (got[0] == 0) continue;
    std::vector<double> cycles;
    for (std::size_t v = 1; v < got.size(); ++v)
      cycles.push_back(static_cast<double>(got[v]) / kReductionChain);
    return cycles;
  }
  throw Error(Error::Kind::Measurement, "reductions: no block reached the timed SM");
}

}  // namespace gputopo::device::cuda
