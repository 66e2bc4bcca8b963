// Records a small, fixed set of requests on a real GPU into a raw directory (docs/raw.md), then
// replays the directory and checks that every answer comes back identical. The recordings under
// tests/record/data/ were made with it; `gputopo --raw DIR` records whole discovery runs.
//
//   record_gpu_trace DIR [--device N]
#include <chrono>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <string>
#include <vector>

#include "device/cuda/cuda_backend.hpp"
#include "device/record/recording.hpp"
#include "device/record/replay.hpp"
#include "trace_workload.hpp"

namespace {

using namespace gputopo::device;
using gputopo::device::record::testing::Workload;

// Every answer of one pass, flattened to numbers, to compare a replay with the recording.
std::vector<double> run(Device& d, const Workload& w) {
  std::vector<double> out;
  auto add_batch = [&](const ChaseBatchResult& r) {
    for (const auto& c : r.results) {
      out.push_back(c.sm);
      out.push_back(c.overhead_cycles);
      out.insert(out.end(), c.cycles.begin(), c.cycles.end());
      out.insert(out.end(), c.indices.begin(), c.indices.end());
    }
    out.push_back(r.conditions.elapsed_ns);
    out.push_back(r.conditions.carveout_percent.value_or(-1));
  };
  add_batch(d.chase(w.l1));
  add_batch(d.chase(w.l2));
  add_batch(d.chase(w.constant));
  add_batch(d.interfere(w.amount));
  for (const auto& s : w.streams) {
    auto r = d.stream(s);
    out.insert(out.end(), r.gbps.begin(), r.gbps.end());
  }
  for (const auto& group : d.co_resident_sms(2)) out.insert(out.end(), group.begin(), group.end());
  return out;
}

double seconds(const std::function<void()>& f) {
  auto start = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: record_gpu_trace DIR [--device N]\n";
    return 2;
  }
  const std::string dir = argv[1];
  const int index = argc >= 4 && std::string(argv[2]) == "--device" ? std::atoi(argv[3]) : 0;
  try {
    Workload w;
    std::vector<double> live;
    std::vector<double> replayed;
    auto plain = cuda::open(index);
    std::cout << "device: " << plain->info().name() << "\n";
    const double plain_s = seconds([&] { run(*plain, w); });
    auto recorder = record::record_to(std::move(plain), dir, "record_gpu_trace");
    const double recorded_s = seconds([&] { live = run(*recorder, w); });
    recorder->finish();
    recorder.reset();
    double open_s = 0;
    const double replay_s = seconds([&] {
      std::unique_ptr<Device> replay;
      open_s = seconds([&] { replay = record::open_replay(dir); });
      replayed = run(*replay, w);
    });
    const bool identical =
        live.size() == replayed.size() &&
        std::equal(live.begin(), live.end(), replayed.begin(),
                   [](double a, double b) { return a == b || (a != a && b != b); });
    std::cout << "values: " << live.size() << "\n"
              << "workload without recording: " << plain_s << " s\n"
              << "workload while recording:   " << recorded_s << " s\n"
              << "open replay: " << open_s << " s, whole replay: " << replay_s << " s\n"
              << "replay identical: " << (identical ? "yes" : "NO") << "\n";
    return identical ? 0 : 1;
  } catch (const Error& e) {
    std::cerr << "record_gpu_trace: " << e.what() << "\n";
    return 4;
  }
}
