#include "device/cuda/read_rate_runner.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "device/cuda/chase_job.hpp"
#include "device/cuda/check.hpp"
#include "device/cuda/read_rate_kernel.hpp"

namespace gputopo::device::cuda {
namespace {

constexpr unsigned kSmids = kMaxSmid;
constexpr std::uint32_t kThreads = kReadRateThreads;
constexpr std::uint64_t kMaxSpanBytes = std::uint64_t{1} << 30;
// The sizing launch: short, since lines that one slice serves read at a fraction of the L2's rate.
constexpr std::uint32_t kProbeIterations = 2;
constexpr double kTargetSeconds = 5e-4;
constexpr double kSizedSeconds = 1e-4;
constexpr std::uint32_t kMaxIterations = 65536;
constexpr int kAttempts = 3;

// The spacing of lines that lie evenly spaced upwards, a multiple of four of them, else 0.
std::uint64_t even_spacing(const std::vector<std::uint64_t>& offsets) {
  // Read in whole groups of four lines: a list of another length goes through the table.
  if (offsets.size() % 4 != 0 || offsets[1] <= offsets[0]) return 0;
  const std::uint64_t spacing = offsets[1] - offsets[0];
  for (std::size_t i = 2; i < offsets.size(); ++i)
    if (offsets[i] != offsets[0] + i * spacing) return 0;
  return spacing;
}

// One line: "gputopo: read rate 8 SMs 0,1,16,...: 131072 lines, 547 rounds, SM clock 1980 to
// 1980 MHz: 1250 1251 1249 GB/s" (clock 0: not read).
void trace(const ReadRateRequest& r, std::uint32_t iterations, const ReadRateResult& result) {
  std::string sms;
  for (const int sm : r.sms) {
    if (!sms.empty()) sms += ',';
    sms += std::to_string(sm);
  }
  std::string rates;
  for (const double g : result.gbps) {
    char cell[32];
    std::snprintf(cell, sizeof cell, " %.0f", g);
    rates += cell;
  }
  const auto& c = result.conditions;
  std::fprintf(stderr,
               "gputopo: read rate %zu SMs %s: %zu lines, %u rounds, SM clock %.0f to %.0f MHz:%s "
               "GB/s\n",
               r.sms.size(), sms.c_str(), r.line_offsets.size(), iterations,
               c.sm_clock_mhz_before.value_or(0), c.sm_clock_mhz_after.value_or(0), rates.c_str());
}

}  // namespace

struct ReadRateRunner::Launch {
  ReadRateArgs args;
  std::vector<int> rank_of_sm;
};

ReadRateRunner::ReadRateRunner(const DeviceInfo& info, cudaStream_t stream, const RunClock& clock)
    : info_(info), stream_(stream), clock_(clock), trace_(std::getenv("GPUTOPO_READ_RATE_TRACE")) {}

void ReadRateRunner::validate(const ReadRateRequest& r) const {
  if (auto why = read_rate_problem(r, info_.sm_count())) throw Error(Error::Kind::BadRequest, *why);
  if (r.line_offsets.size() >= (std::uint64_t{1} << 31))
    throw Error(Error::Kind::BadRequest, "read rate: at most 2^31 lines");
  for (const std::uint64_t offset : r.line_offsets)
    if (offset % 16 != 0 || offset + 128 > kMaxSpanBytes)
      throw Error(Error::Kind::BadRequest, "read rate: line offset " + std::to_string(offset) +
                                               " is not 16 B aligned or lies past 1 GiB");
}

ReadRateRunner::Launch ReadRateRunner::prepare(const ReadRateRequest& request) {
  Launch launch;
  launch.rank_of_sm.assign(kSmids, -1);
  for (std::size_t i = 0; i < request.sms.size(); ++i)
    launch.rank_of_sm[static_cast<std::size_t>(request.sms[i])] = static_cast<int>(i);
  const auto& offsets = request.line_offsets;
  const std::uint64_t spacing = even_spacing(offsets);
  const std::uint64_t room = *std::max_element(offsets.begin(), offsets.end()) + 128;
  std::uint8_t* lines = buffer_.reserve(room);
  check(cudaMemsetAsync(lines, 0, room, stream_), "cudaMemsetAsync (read-rate lines)");
  // The list goes to the device only where the kernel reads it (lines not evenly spaced).
  const std::uint64_t offsets_bytes = spacing == 0 ? offsets.size() * sizeof(std::uint64_t) : 0;
  const std::uint64_t rank_at = (offsets_bytes + 255) / 256 * 256;
  const std::uint64_t claimed_at = rank_at + kSmids * sizeof(int);
  const std::uint64_t sink_at = claimed_at + kSmids * sizeof(int);
  std::uint8_t* tables = tables_.reserve(sink_at + kSmids * sizeof(unsigned));
  if (offsets_bytes > 0)
    check(cudaMemcpyAsync(tables, offsets.data(), offsets_bytes, cudaMemcpyHostToDevice, stream_),
          "cudaMemcpyAsync (read-rate lines)");
  check(cudaMemcpyAsync(tables + rank_at, launch.rank_of_sm.data(), kSmids * sizeof(int),
                        cudaMemcpyHostToDevice, stream_),
        "cudaMemcpyAsync (read-rate SMs)");
  ReadRateArgs& a = launch.args;
  a.base = lines;
  a.line_offsets = reinterpret_cast<const std::uint64_t*>(tables);
  a.lines = offsets.size();
  a.first_offset = offsets.front();
  a.spacing = spacing;
  a.rank_of_sm = reinterpret_cast<const int*>(tables + rank_at);
  a.max_smid = kSmids;
  a.set_size = static_cast<std::uint32_t>(request.sms.size());
  a.claimed = reinterpret_cast<int*>(tables + claimed_at);
  a.sink = reinterpret_cast<unsigned*>(tables + sink_at);
  return launch;
}

double ReadRateRunner::time_launch(const Launch& launch, std::uint32_t iterations) {
  ReadRateArgs args = launch.args;
  args.iterations = iterations;
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    check(cudaMemsetAsync(args.claimed, 0, kSmids * sizeof(int), stream_), "cudaMemsetAsync");
    check(cudaEventRecord(start_, stream_), "cudaEventRecord");
    check(
        launch_read_rate(args, 4 * static_cast<std::uint32_t>(info_.sm_count()), kThreads, stream_),
        "read-rate kernel launch");
    check(cudaEventRecord(stop_, stream_), "cudaEventRecord");
    wait_for(stream_, 10, "read-rate kernel");
    const double seconds = seconds_between(start_, stop_);
    std::vector<int> claimed(kSmids);
    check(cudaMemcpy(claimed.data(), args.claimed, kSmids * sizeof(int), cudaMemcpyDeviceToHost),
          "cudaMemcpy (read-rate claims)");
    std::uint32_t ran = 0;
    for (unsigned sm = 0; sm < kSmids; ++sm)
      if (launch.rank_of_sm[sm] >= 0 && claimed[sm] != 0) ++ran;
    if (ran == args.set_size) return seconds;
  }
  throw Error(Error::Kind::Measurement, "read rate: an SM of the set got no block");
}

ReadRateResult ReadRateRunner::run(const ReadRateRequest& request) {
  validate(request);
  const Launch launch = prepare(request);
  ReadRateResult result;
  result.conditions = clock_.begin();
  const double bytes_a_round = static_cast<double>(launch.args.set_size) * (kThreads / 32) *
                               static_cast<double>(read_rate_bytes_per_warp(1));
  // An untimed short launch brings the lines into the L2 and pays what a first launch pays: sized
  // on it, the first call of a run on an H200 took 7 rounds where 455 were due, and read 443-558
  // GB/s of 1,250. Then sizing launches from a short one up, eight times longer while a launch's
  // fixed cost (about 10 us) would still weigh on it.
  std::uint32_t iterations = kProbeIterations;
  time_launch(launch, iterations);
  double seconds = time_launch(launch, iterations);
  while (seconds < kSizedSeconds && iterations < kMaxIterations / 8) {
    iterations *= 8;
    seconds = time_launch(launch, iterations);
  }
  iterations = static_cast<std::uint32_t>(std::clamp(kTargetSeconds / (seconds / iterations),
                                                     static_cast<double>(iterations),
                                                     static_cast<double>(kMaxIterations)));
  for (std::uint32_t r = 0; r < request.repeats; ++r)
    result.gbps.push_back(bytes_a_round * iterations / time_launch(launch, iterations) / 1e9);
  clock_.end(result.conditions);
  if (trace_) trace(request, iterations, result);
  return result;
}

}  // namespace gputopo::device::cuda
