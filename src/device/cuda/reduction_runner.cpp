#include "device/cuda/reduction_runner.hpp"

#include <array>

#include "device/cuda/check.hpp"
#include "device/cuda/reduction_kernel.hpp"

namespace gputopo::device::cuda {

ReductionResult ReductionRunner::run(const ReductionRequest& request) {
  if (auto why = reduction_problem(request)) throw Error(Error::Kind::BadRequest, *why);
  ReductionArgs a;
  a.base = reinterpret_cast<std::uint32_t*>(lines_.reserve(request.span_bytes));
  for (std::size_t i = 0; i < request.line_offsets.size(); ++i)
    a.line_words[i] = static_cast<std::uint32_t>(request.line_offsets[i] / 4);
  a.count = static_cast<std::uint32_t>(request.line_offsets.size());
  a.rounds = request.rounds;
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

}  // namespace gputopo::device::cuda
