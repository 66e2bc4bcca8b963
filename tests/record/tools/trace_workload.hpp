#pragma once

#include <cstdint>
#include <vector>

#include "device/requests.hpp"

// The requests record_gpu_trace records; the tests replay the same ones from the recordings.
namespace gputopo::device::record::testing {

inline ChaseRequest request(Space space, std::uint64_t bytes, std::uint32_t loads) {
  ChaseRequest r;
  r.space = space;
  r.array_bytes = bytes;
  r.stride_bytes = 128;
  r.recorded_loads = loads;
  return r;
}

// The calls recorded: an L1 sweep across capacity at carve-out 0 (one size per SM), L2 sizes
// across both L2 steps and DRAM, a constant sweep, an interference pair, streams and TPC pairs.
struct Workload {
  ChaseBatch l1;
  ChaseBatch l2;
  ChaseBatch constant;
  InterferenceBatch amount;
  std::vector<StreamRequest> streams;

  Workload() {
    l1.carveout_percent = 0;
    for (std::uint64_t kib : {16, 64, 128, 200, 220, 230, 236, 240, 244, 248, 252, 256, 264, 280})
      l1.requests.push_back(request(Space::L1, kib << 10, 512));
    l1.requests[8].record_indices = true;
    for (std::uint64_t mib : {8, 24, 32, 48, 80})
      l2.requests.push_back(request(Space::L2, mib << 20, 256));
    for (std::uint64_t kib : {1, 2, 4, 8, 16, 32, 64})
      constant.requests.push_back(request(Space::Constant, kib << 10, 256));
    InterferenceRequest pair;
    pair.a = request(Space::L1, 128 << 10, 256);
    pair.b = request(Space::L1, 192 << 10, 256);
    pair.placement = InterferenceRequest::Placement::TwoThreads;
    pair.thread_b = 32;
    amount.carveout_percent = 0;
    amount.requests = {pair};
    for (auto kind : {StreamKind::Read, StreamKind::Copy}) {
      StreamRequest s;
      s.kind = kind;
      s.bytes = 1ull << 30;
      s.repeats = 5;
      streams.push_back(s);
    }
  }
};

}  // namespace gputopo::device::record::testing
