#include "device/cuda/stream_runner.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "device/cuda/check.hpp"
#include "device/cuda/l2_fetch_limit.hpp"

namespace gputopo::device::cuda {
namespace {

constexpr std::uint64_t kAlignBytes = 16;
constexpr double kRepeatSeconds = 0.001;  // each timed repeat lasts about this long
// The best candidates of the tuning rounds are timed again with full launches, the best of them
// wins: ranks from the short tuning launches can swap near the top.
constexpr std::size_t kFinalists = 3;
// Each finalist's best of this many full launches: one launch's time varies by about 0.5 %, as
// much as the finalists differ.
constexpr std::uint32_t kFinalTimings = 3;
// Buffers within this factor of a tuned one (same kernel) reuse its finalists.
constexpr double kReuseFactor = 4.0;
// A timed launch passes over a small buffer several times, so that it moves at least this much and
// the gaps between launches (a few microseconds) cost under 1 %: device memory, and an SM's own
// L1 or shared memory (about ten times faster; 2 ms a launch at 33 TB/s, since blocks that start
// and end unevenly cost a launch of a quarter of that 1.2 % of the L1's rate on an H100). Tuning
// ranks the candidates with launches an eighth of that (the gaps cost every candidate alike), over
// at most kTuningBufferBytes.
constexpr std::uint64_t kDeviceBytesPerLaunch = std::uint64_t{2} << 30;
constexpr std::uint64_t kSmBytesPerLaunch = std::uint64_t{64} << 30;
constexpr std::uint64_t kTuningShare = 8;
// Tuning passes over at most this much of a device-memory buffer: 10 times an H100's L2, so that
// a stream meant for device memory is ranked on device memory.
constexpr std::uint64_t kTuningBufferBytes = std::uint64_t{512} << 20;
constexpr std::uint64_t kMaxPasses = 1 << 16;
// L1 and shared streams keep a few blocks per SM, so that their slices stay inside one SM's L1.
constexpr std::uint32_t kMaxSmLocalBlocksPerSm = 4;

bool sm_local(StreamKernel k) { return k == StreamKernel::L1Read || k == StreamKernel::SharedRead; }
// Kernels where every block reads the whole buffer (or slice): they move it once a block a pass,
// at the SMs' rate.
bool per_block(StreamKernel k) { return sm_local(k) || k == StreamKernel::SharedSetRead; }

StreamKernel kernel_of(const StreamRequest& r) {
  const Space space = stream_space(r);
  if (space != Space::L2 && r.kind != StreamKind::Read)
    throw Error(Error::Kind::BadRequest,
                "stream request: the " + std::string(to_string(space)) + " stream only reads");
  if (r.sharing == StreamSharing::Shared) {
    if (space != Space::L2 || r.kind != StreamKind::Read)
      throw Error(Error::Kind::BadRequest, "stream request: a shared set is read from L2 only");
    return StreamKernel::SharedSetRead;
  }
  switch (space) {
    case Space::L2:
      return r.kind == StreamKind::Read    ? StreamKernel::Read
             : r.kind == StreamKind::Write ? StreamKernel::Write
                                           : StreamKernel::Copy;
    case Space::L1:
      return StreamKernel::L1Read;
    case Space::Shared:
      return StreamKernel::SharedRead;
    default:
      throw Error(Error::Kind::BadRequest,
                  "stream request: no stream over the " + std::string(to_string(space)) + " space");
  }
}

}  // namespace

StreamRunner::StreamRunner(const DeviceInfo& info, cudaStream_t stream, const RunClock& clock)
    : info_(info), stream_(stream), clock_(clock), trace_(std::getenv("GPUTOPO_STREAM_TRACE")) {
  check(cudaEventCreate(&start_), "cudaEventCreate");
  check(cudaEventCreate(&stop_), "cudaEventCreate");
}

StreamRunner::~StreamRunner() {
  if (start_ != nullptr) cudaEventDestroy(start_);
  if (stop_ != nullptr) cudaEventDestroy(stop_);
}

StreamArgs StreamRunner::args(StreamKernel kernel, const Config& c, bool tuning) {
  StreamArgs a;
  if (kernel != StreamKernel::SharedRead) {
    a.src = source_.reserve(0);
    a.dst = kernel == StreamKernel::Copy ? target_.reserve(0) : source_.reserve(0);
  }
  a.sink = reinterpret_cast<std::uint32_t*>(sink_.reserve(64));
  const std::uint64_t per_launch = bytes_per_launch_ / (tuning ? kTuningShare : 1);
  const std::uint64_t bytes = tuning && !per_block(kernel)
                                  ? std::min(bytes_, std::max(per_launch, kTuningBufferBytes))
                                  : bytes_;
  a.vectors = bytes / c.variant.access_bytes;
  const std::uint64_t per_pass = per_block(kernel) ? bytes * blocks(c, a) : bytes;
  a.passes = c.shape.flat()
                 ? 1
                 : static_cast<std::uint32_t>(std::clamp<std::uint64_t>(
                       per_launch / std::max<std::uint64_t>(per_pass, 1), 1, kMaxPasses));
  return a;
}

std::uint32_t StreamRunner::blocks(const Config& c, const StreamArgs& a) const {
  return c.shape.blocks(info_, a.vectors, c.variant.tile());
}

double StreamRunner::moved(StreamKernel kernel, const Config& c, const StreamArgs& a) const {
  const std::uint64_t bytes = a.vectors * c.variant.access_bytes;
  const std::uint64_t per_pass = per_block(kernel) ? bytes * blocks(c, a) : bytes;
  return static_cast<double>(bytes_moved(kernel == StreamKernel::Copy, per_pass)) * a.passes;
}

double StreamRunner::time(StreamKernel kernel, const Config& c, std::uint32_t launches,
                          double expected_s, bool tuning) {
  const StreamArgs a = args(kernel, c, tuning);
  check(cudaEventRecord(start_, stream_), "cudaEventRecord");
  for (std::uint32_t i = 0; i < launches; ++i)
    check(launch_stream(kernel, c.variant, a, blocks(c, a), c.shape.threads, stream_),
          "stream kernel launch");
  check(cudaEventRecord(stop_, stream_), "cudaEventRecord");
  wait_for(stream_, 20 * expected_s + 10, "stream kernel");
  float ms = 0;
  check(cudaEventElapsedTime(&ms, start_, stop_), "cudaEventElapsedTime");
  return static_cast<double>(ms) / 1e3;
}

std::vector<StreamRunner::Timed> StreamRunner::rank(StreamKernel kernel,
                                                    const std::vector<Config>& all,
                                                    double expected_s, bool tuning) {
  std::vector<Timed> out;
  for (const auto& c : all) {
    time(kernel, c, 1, expected_s, tuning);  // warm
    double best = time(kernel, c, 1, expected_s, tuning);
    for (std::uint32_t t = 1; t < (tuning ? 1U : kFinalTimings); ++t)
      best = std::min(best, time(kernel, c, 1, expected_s, tuning));
    out.push_back({c, best, moved(kernel, c, args(kernel, c, tuning)) / best});
    if (trace_)
      std::fprintf(stderr,
                   "gputopo: stream %d %s: %u B x %u, %u blocks/SM x %u threads: %.1f GB/s\n",
                   static_cast<int>(kernel), tuning ? "tuning" : "final", c.variant.access_bytes,
                   c.variant.unroll, c.shape.blocks_per_sm, c.shape.threads, out.back().rate / 1e9);
  }
  // Candidates move different amounts a launch (a flat launch passes over the buffer once): the
  // fastest is the one that moves the most a second.
  std::stable_sort(out.begin(), out.end(),
                   [](const Timed& a, const Timed& b) { return a.rate > b.rate; });
  return out;
}

StreamRunner::Tuned StreamRunner::tune(StreamKernel kernel, const std::vector<LaunchShape>& shapes,
                                       double guess_s) {
  const double full_guess_s = guess_s * kTuningShare;
  for (const Tuning& t : tunings_) {
    const double ratio = static_cast<double>(std::max(t.bytes, bytes_)) /
                         static_cast<double>(std::max<std::uint64_t>(std::min(t.bytes, bytes_), 1));
    if (t.kernel != kernel || ratio > kReuseFactor) continue;
    const auto final_round = rank(kernel, t.finalists, full_guess_s, false);
    return {final_round.front().config, final_round.front().seconds,
            static_cast<std::uint32_t>(t.finalists.size())};
  }
  std::vector<Config> variants;
  for (const auto& v : stream_variant_candidates(kernel == StreamKernel::Copy))
    variants.push_back({v, shapes.front()});
  const auto by_variant = rank(kernel, variants, guess_s, true);
  std::vector<Config> by_shape;
  for (const auto& s : shapes) by_shape.push_back({by_variant.front().config.variant, s});
  const auto ranked = rank(kernel, by_shape, guess_s, true);
  std::vector<Config> finalists;
  for (const auto* list : {&ranked, &by_variant})
    for (std::size_t i = 0; i < list->size() && i < kFinalists; ++i) {
      const Config& c = (*list)[i].config;
      const bool seen = std::any_of(finalists.begin(), finalists.end(), [&](const Config& f) {
        return f.variant == c.variant && f.shape == c.shape;
      });
      if (!seen) finalists.push_back(c);
    }
  const auto final_round = rank(kernel, finalists, full_guess_s, false);
  Tuning done{kernel, bytes_, {}};
  for (const Timed& t : final_round) done.finalists.push_back(t.config);
  tunings_.push_back(std::move(done));
  return {final_round.front().config, final_round.front().seconds,
          static_cast<std::uint32_t>(variants.size() + by_shape.size() + finalists.size())};
}

StreamResult StreamRunner::run(const StreamRequest& request) {
  if (request.bytes < kAlignBytes || request.repeats == 0)
    throw Error(Error::Kind::BadRequest,
                "stream request: needs at least 16 bytes and one repeat (got " +
                    std::to_string(request.bytes) + " B, " + std::to_string(request.repeats) +
                    " repeats)");
  const StreamKernel kernel = kernel_of(request);
  if (kernel == StreamKernel::SharedRead && request.bytes > info_.shared_per_block_optin_bytes())
    throw Error(Error::Kind::BadRequest, "stream request: a block gets at most " +
                                             std::to_string(info_.shared_per_block_optin_bytes()) +
                                             " B of shared memory");
  if (per_block(kernel) && request.bytes >= (std::uint64_t{1} << 32))
    throw Error(Error::Kind::BadRequest, "stream request: a block reads under 4 GiB");
  bytes_ = request.bytes / kAlignBytes * kAlignBytes;
  bytes_per_launch_ = per_block(kernel) ? kSmBytesPerLaunch : kDeviceBytesPerLaunch;

  std::vector<LaunchShape> shapes;
  for (const auto& s : shape_candidates(info_))
    if (!sm_local(kernel) || s.blocks_per_sm <= kMaxSmLocalBlocksPerSm) shapes.push_back(s);
  if (shapes.empty()) throw Error(Error::Kind::Measurement, "no launch shape fits this device");
  if (!per_block(kernel))
    for (const auto& s : flat_shape_candidates(info_)) shapes.push_back(s);
  std::uint64_t source_bytes = bytes_;
  if (kernel == StreamKernel::L1Read)
    for (const auto& s : shapes) source_bytes = std::max(source_bytes, bytes_ * s.blocks(info_));
  if (kernel != StreamKernel::SharedRead) source_.reserve(source_bytes);
  if (kernel == StreamKernel::Copy) target_.reserve(bytes_);

  StreamResult result;
  result.conditions = clock_.begin();
  result.conditions.l2_fetch_limit_bytes = read_l2_fetch_limit();
  // Non-zero data in everything a kernel reads: one write pass over the source.
  const Config fill{{16, 4}, shapes.front()};
  if (kernel != StreamKernel::SharedRead) {
    const auto saved = bytes_;
    bytes_ = source_bytes;
    const auto saved_launch = bytes_per_launch_;
    bytes_per_launch_ = 0;
    time(StreamKernel::Write, fill, 1, static_cast<double>(source_bytes) / 1e11 + 1e-3, false);
    bytes_ = saved;
    bytes_per_launch_ = saved_launch;
  }
  // A first guess of a launch's time, at 1 TB/s, bounds the watchdog while tuning.
  const double guess_s = static_cast<double>(bytes_per_launch_) / 1e12 + 1e-2;

  const Tuned tuned = tune(kernel, shapes, guess_s);
  const Config best = tuned.best;
  const double launch_s = tuned.launch_s;

  const StreamArgs best_args = args(kernel, best, false);
  const double bytes = moved(kernel, best, best_args);
  const auto launches = launches_per_repeat(launch_s, kRepeatSeconds);
  for (std::uint32_t r = 0; r < request.repeats; ++r) {
    const double s = time(kernel, best, launches, launch_s * launches, false);
    result.gbps.push_back(bytes * launches / s / 1e9);
    result.conditions.elapsed_ns += s * 1e9;
  }
  result.blocks = blocks(best, best_args);
  result.threads_per_block = best.shape.threads;
  result.vector_bytes = best.variant.access_bytes;
  result.unroll = best.variant.unroll;
  result.candidates = tuned.candidates;
  clock_.end(result.conditions);
  if (result.conditions.sm_clock_mhz_after)
    result.conditions.elapsed_cycles =
        result.conditions.elapsed_ns * *result.conditions.sm_clock_mhz_after / 1e3;
  return result;
}

}  // namespace gputopo::device::cuda
