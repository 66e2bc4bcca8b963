#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "device/record/recording.hpp"
#include "device/record/replay.hpp"
#include "device/sim/host.hpp"
#include "device/sim/sim_device.hpp"
#include "model/device_facts.hpp"
#include "test_recordings.hpp"

// A recording of the simulated GPU answers a replay exactly.
namespace gputopo::device::record {
namespace {

using SimRoundTrip = testing::TempDirTest;

TEST_F(SimRoundTrip, ReplayAnswersEverySimulatedCallExactly) {
  std::vector<ChaseBatchResult> live;
  ChaseBatch sweep;
  sweep.carveout_percent = 0;
  for (std::uint64_t kib = 8; kib <= 512; kib *= 2)
    sweep.requests.push_back(testing::chase_request(Space::L1, kib << 10));
  ChaseBatch l2;
  l2.requests.push_back(testing::chase_request(Space::L2, 8 << 20));
  ChaseBatch sequence;
  ChaseRequest order;
  order.space = Space::L1;
  order.array_bytes = 64 << 10;
  order.stride_bytes = 4;
  order.warmup_passes = 0;
  order.pattern = Pattern::Sequence;
  order.sequence = {0, 4096, 8192, 1, 12288, 2};
  order.recorded_loads = 6;
  sequence.requests.push_back(order);
  {
    auto recorder = record_to(sim::open("toy"), dir_);
    live.push_back(recorder->chase(sweep));
    live.push_back(recorder->chase(l2));
    live.push_back(recorder->interfere(testing::amount_batch()));
    live.push_back(recorder->chase(sequence));
  }
  auto replay = open_replay(dir_);
  auto fresh = sim::open("toy");
  EXPECT_EQ(replay->info().name(), fresh->info().name());
  EXPECT_EQ(replay->info().simulated, true);
  const auto replayed = model::device_sections(replay->info());
  const auto simulated = model::device_sections(fresh->info());
  EXPECT_EQ(model::to_json(replayed.general), model::to_json(simulated.general));
  EXPECT_EQ(model::to_json(replayed.compute), model::to_json(simulated.compute));
  auto same = [](const ChaseBatchResult& a, const ChaseBatchResult& b) {
    ASSERT_EQ(a.results.size(), b.results.size());
    for (std::size_t i = 0; i < a.results.size(); ++i) {
      EXPECT_EQ(a.results[i].cycles, b.results[i].cycles);
      EXPECT_EQ(a.results[i].sm, b.results[i].sm);
      EXPECT_EQ(a.results[i].overhead_cycles, b.results[i].overhead_cycles);
    }
    EXPECT_EQ(a.conditions.elapsed_ns, b.conditions.elapsed_ns);
  };
  same(replay->chase(sweep), live[0]);
  same(replay->chase(l2), live[1]);
  same(replay->interfere(testing::amount_batch()), live[2]);
  same(replay->chase(sequence), live[3]);
  // The sequence is part of the request: another order was not recorded.
  sequence.requests[0].sequence = {0, 8192, 4096, 1, 12288, 2};
  EXPECT_THROW(replay->chase(sequence), Error);
}

TEST_F(SimRoundTrip, ReplayAnswersLinksAndCopies) {
  TransferRequest host_copy;
  host_copy.memory = HostMemory::Pageable;
  host_copy.numa_node = 1;
  host_copy.bytes = 1 << 20;
  host_copy.repeats = 3;
  TransferRequest peer_copy;
  peer_copy.kind = TransferKind::PeerBidirectional;
  peer_copy.peer = 3;
  peer_copy.bytes = 1 << 24;
  TransferRequest peer_load = peer_copy;
  peer_load.kind = TransferKind::PeerLoad;
  TransferResult host_live, peer_live, load_live;
  PeerLink link_live;
  {
    auto sim = sim::open_host(sim::load_host_config("dgx-h100"));
    auto recorder = record_to(std::move(sim.gpus[0]), dir_);
    link_live = recorder->peer_link(3);
    host_live = recorder->transfer(host_copy);
    peer_live = recorder->transfer(peer_copy);
    load_live = recorder->transfer(peer_load);
    EXPECT_THROW(recorder->transfer(TransferRequest{}), Error);
    recorder->finish();
  }
  auto replay = open_replay(dir_);
  EXPECT_FALSE(replay->cut_short());
  const PeerLink link = replay->peer_link(3);
  EXPECT_EQ(link.type, link_live.type);
  EXPECT_EQ(link.nvlink_count, link_live.nvlink_count);
  EXPECT_EQ(link.nvlink_generation, link_live.nvlink_generation);
  EXPECT_EQ(link.atomics, link_live.atomics);
  const TransferResult host = replay->transfer(host_copy);
  EXPECT_EQ(host.seconds, host_live.seconds);
  EXPECT_TRUE(host.numa_bound);
  EXPECT_EQ(replay->transfer(peer_copy).seconds, peer_live.seconds);
  EXPECT_EQ(replay->transfer(peer_load).seconds, load_live.seconds);
  EXPECT_THROW(replay->transfer(TransferRequest{}), Error);
  TransferRequest other = peer_copy;
  other.peer = 4;
  EXPECT_THROW(replay->transfer(other), Error);
}

}  // namespace
}  // namespace gputopo::device::record
