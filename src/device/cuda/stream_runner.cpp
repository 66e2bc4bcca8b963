#include "device/cuda/stream_runner.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <limits>
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
// Each finalist's best of up to this many full launches: one launch's time varies by about 0.5 %,
// as much as the finalists differ (kernels of long launches: each further one for the faster half).
constexpr std::uint32_t kFinalTimings = 3;
// Buffers within this factor of a tuned one (same kernel) time that tuning's finalists again
// rather than tune anew (kernels of long launches: its leading ones).
constexpr double kReuseFactor = 4.0;
constexpr std::size_t kReused = 3;
// A later run also times this many more of the memo's configurations, in turn (memo_picks).
constexpr std::size_t kExplored = 2;
// The memo's leader must reach its earlier rate within this share, else the kernel is tuned again:
// a leader that far behind means the GPU or its state changed since. The earlier rate is the best
// of a final round of up to nine kernels, this one's of three, and a stream's own run-to-run noise
// reaches 4 % (the shared-set L2 read).
constexpr double kMemoTolerance = 0.10;
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
// a stream meant for device memory is ranked on device memory. The shared set is ranked on an
// eighth of itself: every block reads the whole set a pass, so a launch cannot be shorter than
// one pass (32 GiB on an H200 at half a segment, 1.6 ms).
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

std::string memo_key(const DeviceInfo& info) {
  return "stream tuning 1; " + info.name() + "; " + info.uuid() + "; driver " +
         info.driver_version();
}

}  // namespace

StreamRunner::StreamRunner(const DeviceInfo& info, cudaStream_t stream, const RunClock& clock)
    : info_(info),
      stream_(stream),
      clock_(clock),
      trace_(std::getenv("GPUTOPO_STREAM_TRACE")),
      memo_(info.uuid.known() ? tuning_memo_path(info.uuid()) : std::nullopt, memo_key(info)) {}

bool StreamRunner::launched(StreamKernel kernel, const StreamVariant& v) const {
  return std::any_of(launched_.begin(), launched_.end(),
                     [&](const auto& k) { return k.first == kernel && k.second == v; });
}

double StreamRunner::since_start_ms() const {
  const std::chrono::duration<double, std::milli> ms = std::chrono::steady_clock::now() - started_;
  return ms.count();
}

StreamArgs StreamRunner::args(StreamKernel kernel, const Config& c, bool tuning) {
  StreamArgs a;
  if (kernel != StreamKernel::SharedRead) {
    a.src = source_.reserve(0);
    a.dst = kernel == StreamKernel::Copy ? target_.reserve(0) : source_.reserve(0);
  }
  a.sink = reinterpret_cast<std::uint32_t*>(sink_.reserve(64));
  const std::uint64_t per_launch = bytes_per_launch_ / (tuning ? kTuningShare : 1);
  std::uint64_t bytes = bytes_;
  if (tuning && kernel == StreamKernel::SharedSetRead)
    bytes = std::max(bytes_ / kTuningShare / kAlignBytes * kAlignBytes, kAlignBytes);
  else if (tuning && !per_block(kernel))
    bytes = std::min(bytes_, std::max(per_launch, kTuningBufferBytes));
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
  const double seconds = seconds_between(start_, stop_);
  if (!launched(kernel, c.variant)) launched_.emplace_back(kernel, c.variant);
  return seconds;
}

StreamRunner::Timed StreamRunner::timed(StreamKernel kernel, const Config& c, double seconds,
                                        bool tuning) {
  const Timed t{c, seconds, moved(kernel, c, args(kernel, c, tuning)) / seconds};
  if (trace_)
    std::fprintf(stderr,
                 "gputopo: stream %d %s: %u B x %u, %u blocks/SM x %u threads: %.1f GB/s "
                 "(%.2f ms into the run)\n",
                 static_cast<int>(kernel), tuning ? "tuning" : "final", c.variant.access_bytes,
                 c.variant.unroll, c.shape.blocks_per_sm, c.shape.threads, t.rate / 1e9,
                 since_start_ms());
  return t;
}

// Candidates move different amounts a launch (a flat launch passes over the buffer once): the
// fastest is the one that moves the most a second.
void StreamRunner::fastest_first(std::vector<Timed>& ranked) {
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const Timed& a, const Timed& b) { return a.rate > b.rate; });
}

std::vector<StreamRunner::Timed> StreamRunner::rank(StreamKernel kernel,
                                                    const std::vector<Config>& all,
                                                    double expected_s) {
  // Device-memory kernels warm every candidate with a tuning launch. The long-launch kernels warm
  // the first candidate, and any whose module the driver has not loaded yet (it loads it at the
  // first launch, and the events count that wait); the others find the buffer where the one before
  // left it, and a launch passes over it many times (an L1 slice a block: over a hundred passes),
  // so the first pass's misses weigh on every candidate alike.
  const bool warm_each = !per_block(kernel);
  std::vector<Timed> out;
  for (const auto& c : all) {
    if (warm_each || out.empty() || !launched(kernel, c.variant))
      time(kernel, c, 1, expected_s, true);
    out.push_back(timed(kernel, c, time(kernel, c, 1, expected_s, true), true));
  }
  fastest_first(out);
  return out;
}

std::vector<StreamRunner::Timed> StreamRunner::final_round(StreamKernel kernel,
                                                           const std::vector<Config>& finalists,
                                                           double expected_s) {
  // Device-memory kernels' full launches take a fraction of a millisecond: every finalist is warmed
  // with one and timed kFinalTimings times. A launch of the SM-local kernels and the shared set
  // takes 2-3 ms: they are warmed with a short launch, and each further timing goes to the faster
  // half (at least two), since a finalist one full launch put clearly behind does not need more.
  const bool long_launches = per_block(kernel);
  std::vector<Timed> out;
  for (const auto& c : finalists) {
    time(kernel, c, 1, expected_s / (long_launches ? kTuningShare : 1), long_launches);  // warm
    out.push_back(timed(kernel, c, time(kernel, c, 1, expected_s, false), false));
  }
  std::size_t alive = out.size();
  for (std::uint32_t t = 1; t < kFinalTimings && alive > 1; ++t) {
    fastest_first(out);
    if (long_launches) alive = std::max<std::size_t>(2, (alive + 1) / 2);
    for (std::size_t i = 0; i < alive; ++i) {
      const Timed again =
          timed(kernel, out[i].config, time(kernel, out[i].config, 1, expected_s, false), false);
      if (again.rate > out[i].rate) out[i] = again;
    }
  }
  fastest_first(out);
  return out;
}

StreamRunner::Tuned StreamRunner::tune(StreamKernel kernel, const std::vector<LaunchShape>& shapes,
                                       double guess_s) {
  const double full_guess_s = guess_s * kTuningShare;
  for (const Tuning& t : tunings_) {
    const double ratio = static_cast<double>(std::max(t.bytes, bytes_)) /
                         static_cast<double>(std::max<std::uint64_t>(std::min(t.bytes, bytes_), 1));
    if (t.kernel != kernel || ratio > kReuseFactor) continue;
    // The same buffer again (the guard's control stream at each checkpoint) times the winner
    // alone, so that a control measures one kernel throughout; another buffer times as many
    // leaders as a later run takes from the memo (long launches: kReused).
    const std::size_t reused = t.bytes == bytes_   ? 1
                               : per_block(kernel) ? kReused
                                                   : kReused + kExplored;
    const std::vector<Config> leaders(
        t.finalists.begin(),
        t.finalists.begin() + static_cast<std::ptrdiff_t>(std::min(reused, t.finalists.size())));
    const auto ranked = final_round(kernel, leaders, full_guess_s);
    return {ranked.front().config, ranked.front().seconds,
            static_cast<std::uint32_t>(leaders.size()), t.from_memo};
  }
  if (auto memo = from_memo(kernel, shapes, full_guess_s)) return *memo;
  std::vector<Config> variants;
  for (const auto& v : stream_variant_candidates(kernel == StreamKernel::Copy))
    variants.push_back({v, shapes.front()});
  const auto by_variant = rank(kernel, variants, guess_s);
  std::vector<Config> by_shape;
  for (const auto& s : shapes) by_shape.push_back({by_variant.front().config.variant, s});
  const auto ranked = rank(kernel, by_shape, guess_s);
  // Device-memory kernels: a second pass over the variants at the best shape, where it is another:
  // the best variant of a grid that walks the buffer need not be the best of a flat launch (one
  // store a thread).
  std::vector<Config> at_best;
  if (!per_block(kernel) && !(ranked.front().config.shape == shapes.front()))
    for (const auto& v : variants) at_best.push_back({v.variant, ranked.front().config.shape});
  const auto again = rank(kernel, at_best, guess_s);
  std::vector<Config> finalists;
  for (const auto* list : {&ranked, &again, &by_variant})
    for (std::size_t i = 0; i < list->size() && i < kFinalists; ++i) {
      const Config& c = (*list)[i].config;
      const bool seen = std::any_of(finalists.begin(), finalists.end(), [&](const Config& f) {
        return f.variant == c.variant && f.shape == c.shape;
      });
      if (!seen) finalists.push_back(c);
    }
  const auto finals = final_round(kernel, finalists, full_guess_s);
  remember(kernel, finals);
  return {finals.front().config, finals.front().seconds,
          static_cast<std::uint32_t>(variants.size() + by_shape.size() + at_best.size() +
                                     finalists.size())};
}

std::optional<StreamRunner::Tuned> StreamRunner::from_memo(StreamKernel kernel,
                                                           const std::vector<LaunchShape>& shapes,
                                                           double full_guess_s) {
  const MemoEntry* found = memo_.find(static_cast<int>(kernel), bytes_, kReuseFactor);
  if (found == nullptr) return std::nullopt;
  const MemoEntry m = *found;
  const auto config_of = [](const MemoConfig& c) {
    return Config{{c.access_bytes, c.unroll}, {c.blocks_per_sm, c.threads}};
  };
  // Only configurations this build would try: a memo file is data from outside.
  const auto variants = stream_variant_candidates(kernel == StreamKernel::Copy);
  const auto usable = [&](const MemoConfig& c) {
    const Config config = config_of(c);
    return std::find(variants.begin(), variants.end(), config.variant) != variants.end() &&
           std::find(shapes.begin(), shapes.end(), config.shape) != shapes.end();
  };
  std::vector<Config> leaders;
  for (const std::size_t i : memo_picks(m, kReused, kExplored, usable))
    leaders.push_back(config_of(m.ranked[i]));
  if (leaders.empty()) return std::nullopt;
  const auto ranked = final_round(kernel, leaders, full_guess_s);
  if (ranked.front().rate < (1 - kMemoTolerance) * m.rate) return std::nullopt;
  remember(kernel, ranked, &m);
  return Tuned{ranked.front().config, ranked.front().seconds,
               static_cast<std::uint32_t>(leaders.size()), true};
}

void StreamRunner::remember(StreamKernel kernel, const std::vector<Timed>& finals,
                            const MemoEntry* earlier) {
  Tuning done{kernel, bytes_, {}, earlier != nullptr};
  std::vector<MemoConfig> timed;
  for (const Timed& t : finals) {
    done.finalists.push_back(t.config);
    timed.push_back({t.config.variant.access_bytes, t.config.variant.unroll,
                     t.config.shape.blocks_per_sm, t.config.shape.threads});
  }
  tunings_.push_back(std::move(done));
  const double rate = finals.front().rate;
  memo_.put(earlier != nullptr
                ? memo_after(*earlier, timed, rate)
                : MemoEntry{static_cast<int>(kernel), bytes_, std::move(timed), rate},
            kReuseFactor);
}

void StreamRunner::time_repeats(StreamKernel kernel, const Config& best, double launch_s,
                                std::uint32_t repeats, StreamResult& result) {
  const double bytes = moved(kernel, best, args(kernel, best, false));
  auto timed_s = [&](std::uint32_t launches, double expected_s, bool tuning) {
    const double s = time(kernel, best, launches, expected_s, tuning);
    result.conditions.elapsed_ns += s * 1e9;
    return s;
  };
  if (!sm_local(kernel)) {
    const auto launches = launches_per_repeat(launch_s, kRepeatSeconds);
    for (std::uint32_t r = 0; r < repeats; ++r)
      result.gbps.push_back(bytes * launches / timed_s(launches, launch_s * launches, false) / 1e9);
    return;
  }
  // A launch takes its fixed cost plus bytes / rate: the fastest of the short launches and each
  // full one give the rate without that cost.
  const double short_bytes = moved(kernel, best, args(kernel, best, true));
  double short_s = std::numeric_limits<double>::infinity();
  for (std::uint32_t r = 0; r < repeats; ++r)
    short_s = std::min(short_s, timed_s(1, launch_s / kTuningShare, true));
  std::vector<double> full_s;
  for (std::uint32_t r = 0; r < repeats; ++r) full_s.push_back(timed_s(1, launch_s, false));
  const double fastest = *std::min_element(full_s.begin(), full_s.end());
  if (!(fastest > short_s) || !(bytes > short_bytes)) {
    for (const double s : full_s) result.gbps.push_back(bytes / s / 1e9);
    return;
  }
  const double rate = (bytes - short_bytes) / (fastest - short_s);
  result.launch_cost_ns = (fastest - bytes / rate) * 1e9;
  for (const double s : full_s) result.gbps.push_back((bytes - short_bytes) / (s - short_s) / 1e9);
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
  started_ = std::chrono::steady_clock::now();
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
  time_repeats(kernel, best, launch_s, request.repeats, result);
  result.blocks = blocks(best, best_args);
  result.threads_per_block = best.shape.threads;
  result.vector_bytes = best.variant.access_bytes;
  result.unroll = best.variant.unroll;
  result.candidates = tuned.candidates;
  if (tuned.from_memo) result.from_memo = true;
  clock_.end(result.conditions);
  if (result.conditions.sm_clock_mhz_after)
    result.conditions.elapsed_cycles =
        result.conditions.elapsed_ns * *result.conditions.sm_clock_mhz_after / 1e3;
  return result;
}

}  // namespace gputopo::device::cuda
