#include "device/cuda/stream_runner.hpp"

#include <algorithm>
#include <string>

#include "device/cuda/check.hpp"
#include "device/cuda/kernels.hpp"
#include "device/cuda/l2_fetch_limit.hpp"
#include "device/cuda/plan/launch_shape.hpp"

namespace gputopo::device::cuda {
namespace {

constexpr std::uint64_t kVectorBytes = 16;
constexpr double kRepeatSeconds = 0.005;  // each timed repeat lasts about this long
// A launch passes over a small buffer several times, so that one launch moves at least this
// much and launch gaps do not count against the bandwidth.
constexpr std::uint64_t kBytesPerLaunch = std::uint64_t{256} << 20;
constexpr std::uint64_t kMaxPasses = 1024;

int kind_code(StreamKind k) {
  switch (k) {
    case StreamKind::Read:
      return 0;
    case StreamKind::Write:
      return 1;
    case StreamKind::Copy:
      return 2;
  }
  return 0;
}

}  // namespace

StreamRunner::StreamRunner(const DeviceInfo& info, cudaStream_t stream, const RunClock& clock)
    : info_(info), stream_(stream), clock_(clock) {
  check(cudaEventCreate(&start_), "cudaEventCreate");
  check(cudaEventCreate(&stop_), "cudaEventCreate");
}

StreamRunner::~StreamRunner() {
  if (start_ != nullptr) cudaEventDestroy(start_);
  if (stop_ != nullptr) cudaEventDestroy(stop_);
}

double StreamRunner::time(int kind, std::uint64_t vectors, std::uint32_t blocks,
                          std::uint32_t threads, std::uint32_t launches, double expected_s) {
  // Read and copy read the source; write writes it; copy writes the target.
  auto* src = source_.reserve(0);
  std::uint8_t* dst = kind == 2 ? target_.reserve(0) : (kind == 1 ? src : nullptr);
  auto* sink = reinterpret_cast<std::uint32_t*>(sink_.reserve(64));
  check(cudaEventRecord(start_, stream_), "cudaEventRecord");
  for (std::uint32_t i = 0; i < launches; ++i)
    check(launch_stream(kind, dst, src, vectors, passes_, blocks, threads, sink, stream_),
          "stream kernel launch");
  check(cudaEventRecord(stop_, stream_), "cudaEventRecord");
  wait_for(stream_, 20 * expected_s + 10, "stream kernel");
  float ms = 0;
  check(cudaEventElapsedTime(&ms, start_, stop_), "cudaEventElapsedTime");
  return static_cast<double>(ms) / 1e3;
}

StreamResult StreamRunner::run(const StreamRequest& request) {
  if (request.bytes < kVectorBytes || request.repeats == 0)
    throw Error(Error::Kind::BadRequest,
                "stream request: needs at least 16 bytes and one repeat (got " +
                    std::to_string(request.bytes) + " B, " + std::to_string(request.repeats) +
                    " repeats)");
  const int kind = kind_code(request.kind);
  const std::uint64_t vectors = request.bytes / kVectorBytes;
  const std::uint64_t bytes = vectors * kVectorBytes;
  source_.reserve(bytes);
  if (kind == 2) target_.reserve(bytes);
  passes_ =
      static_cast<std::uint32_t>(std::clamp<std::uint64_t>(kBytesPerLaunch / bytes, 1, kMaxPasses));
  const double moved = static_cast<double>(bytes_moved(kind == 2, bytes)) * passes_;
  // A first guess of the time per pass, at 1 TB/s, bounds the watchdog while tuning.
  const double guess_s = moved / 1e12 + 1e-3;

  StreamResult result;
  result.conditions = clock_.begin();
  result.conditions.l2_fetch_limit_bytes = read_l2_fetch_limit();
  // Fill the source (also the write target) with non-zero data.
  const auto all = shape_candidates(info_);
  if (all.empty()) throw Error(Error::Kind::Measurement, "no launch shape fits this device");
  const auto requested_passes = passes_;
  passes_ = 1;
  time(1, vectors, all.front().blocks(info_), all.front().threads, 1, guess_s);
  passes_ = requested_passes;

  LaunchShape best = all.front();
  double best_s = 0;
  for (const auto& shape : all) {
    time(kind, vectors, shape.blocks(info_), shape.threads, 1, guess_s);  // warm
    const double s = time(kind, vectors, shape.blocks(info_), shape.threads, 1, guess_s);
    if (best_s == 0 || s < best_s) {
      best_s = s;
      best = shape;
    }
  }
  const auto launches = launches_per_repeat(best_s, kRepeatSeconds);
  for (std::uint32_t r = 0; r < request.repeats; ++r) {
    const double s =
        time(kind, vectors, best.blocks(info_), best.threads, launches, best_s * launches);
    result.gbps.push_back(moved * launches / s / 1e9);
    result.conditions.elapsed_ns += s * 1e9;
  }
  result.blocks = best.blocks(info_);
  result.threads_per_block = best.threads;
  result.vector_bytes = static_cast<std::uint32_t>(kVectorBytes);
  clock_.end(result.conditions);
  if (result.conditions.sm_clock_mhz_after)
    result.conditions.elapsed_cycles =
        result.conditions.elapsed_ns * *result.conditions.sm_clock_mhz_after / 1e3;
  return result;
}

}  // namespace gputopo::device::cuda
