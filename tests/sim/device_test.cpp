#include <gtest/gtest.h>

#include <algorithm>

#include "device/sim/sim_device.hpp"
#include "sim_test_util.hpp"

namespace gputopo::device::sim {
namespace {
using test::chase_request;
using test::KiB;
using test::MiB;

ChaseBatch mixed_batch() {
  ChaseBatch batch;
  auto random = chase_request(Space::L1, 300 * KiB, 64, 700);
  random.pattern = Pattern::Random;
  random.record_indices = true;
  batch.requests.push_back(random);
  batch.requests.push_back(chase_request(Space::L2, 40 * MiB, 128, 700));
  batch.requests.push_back(chase_request(Space::Constant, 32 * KiB, 64, 700));
  return batch;
}

TEST(SimDevice, SameSeedSameOutputDifferentSeedDifferentNoise) {
  auto a = open("h100-sxm", 42);
  auto b = open("h100-sxm", 42);
  auto c = open("h100-sxm", 43);
  for (int round = 0; round < 2; ++round) {
    const auto ra = a->chase(mixed_batch());
    const auto rb = b->chase(mixed_batch());
    const auto rc = c->chase(mixed_batch());
    for (std::size_t i = 0; i < ra.results.size(); ++i) {
      EXPECT_EQ(ra.results[i].cycles, rb.results[i].cycles);
      EXPECT_EQ(ra.results[i].indices, rb.results[i].indices);
      EXPECT_NE(ra.results[i].cycles, rc.results[i].cycles);
    }
    EXPECT_EQ(ra.conditions.elapsed_cycles, rb.conditions.elapsed_cycles);
    const auto sa = a->stream({StreamKind::Read, 1 * MiB, 5, {}});
    const auto sb = b->stream({StreamKind::Read, 1 * MiB, 5, {}});
    EXPECT_EQ(sa.gbps, sb.gbps);
  }
}

// Values recorded once from this build: any change in the model, the presets or the random streams
// shows up here, and a platform whose arithmetic differed would too.
TEST(SimDevice, GoldenOutputForAFixedSeed) {
  auto device = open("toy", 3);
  auto r = chase_request(Space::L2, 768 * KiB, 64, 12);
  r.pattern = Pattern::Random;
  r.record_indices = true;
  const auto result = test::chase_one(*device, r);
  EXPECT_EQ(result.cycles, (std::vector<std::uint32_t>{183, 188, 184, 187, 182, 185, 182, 187, 183,
                                                       189, 187, 187}));
  EXPECT_EQ(result.indices, (std::vector<std::uint64_t>{3842, 11698, 4721, 8355, 11219, 9529, 5256,
                                                        12194, 4199, 12249, 5076, 7474}));
  const auto stream = device->stream({StreamKind::Copy, 1 * MiB, 3, {}});
  EXPECT_EQ(stream.gbps,
            (std::vector<double>{146.47437259165358, 145.80545559072758, 147.49546172238274}));
}

// Every block reading the whole buffer (a quarter of the L2) moves it once a block, at the preset's
// shared-set rate (h100-sxm has one) or the plain L2 rate; only an L2 read can share its set.
TEST(SimDevice, SharedSetReadsFollowTheirOwnRate) {
  for (const char* preset : {"h100-sxm", "toy"}) {
    SCOPED_TRACE(preset);
    const auto cfg = load_config(preset);
    auto device = open(preset);
    StreamRequest r{StreamKind::Read, cfg.l2_bytes() / 4, 3, {}};
    r.sharing = StreamSharing::Shared;
    const auto& bw = cfg.bandwidth;
    const double want = bw.l2_shared_read_gbps > 0 ? bw.l2_shared_read_gbps : bw.l2_read_gbps;
    for (double g : device->stream(r).gbps) EXPECT_NEAR(g, want, 0.1 * want);
    StreamRequest write = r;
    write.kind = StreamKind::Write;
    EXPECT_THROW(device->stream(write), Error);
    StreamRequest l1 = r;
    l1.space = Space::L1;
    EXPECT_THROW(device->stream(l1), Error);
  }
}

TEST(SimDevice, RepeatedRequestsGetFreshNoise) {
  auto device = open("h100-sxm");
  const auto first = device->chase(mixed_batch());
  const auto second = device->chase(mixed_batch());
  EXPECT_NE(first.results[1].cycles, second.results[1].cycles);
  EXPECT_NE(device->stream({StreamKind::Read, 1 * MiB, 3, {}}).gbps,
            device->stream({StreamKind::Read, 1 * MiB, 3, {}}).gbps);
}

TEST(SimDevice, ImpossibleRequestsAreBadRequests) {
  auto device = open("h100-sxm");
  const auto rejects = [&](ChaseRequest r, std::optional<int> carveout, const char* words) {
    ChaseBatch batch;
    batch.requests.push_back(chase_request(Space::L1, 4 * KiB));
    batch.requests.push_back(r);
    batch.carveout_percent = carveout;
    try {
      device->chase(batch);
      ADD_FAILURE() << "accepted: " << words;
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), Error::Kind::BadRequest);
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("request 1"), std::string::npos) << e.what();
    }
  };
  rejects(chase_request(Space::L1, 4 * KiB, 0), std::nullopt, "stride_bytes must be > 0");
  rejects(chase_request(Space::L1, 4 * KiB, 6), std::nullopt, "multiple of the 4 B");
  rejects(chase_request(Space::L1, 64, 128), std::nullopt, "holds no element");
  rejects(chase_request(Space::Constant, 128 * KiB, 64), std::nullopt, "constant array");
  rejects(chase_request(Space::Shared, 300 * KiB, 4), std::nullopt, "shared array");
  rejects(chase_request(Space::L2, 200ull * 1024 * MiB), std::nullopt, "exceeds device memory");
  auto heavy = chase_request(Space::L2, 16ull * 1024 * MiB, 4);
  heavy.warmup_passes = 2;
  rejects(heavy, std::nullopt, "loads per request");
  auto random = chase_request(Space::L2, 1024 * MiB, 4);
  random.pattern = Pattern::Random;
  rejects(random, std::nullopt, "random chase");
  auto far = chase_request(Space::L1, 4 * KiB);
  far.region = kMaxRegion + 1;
  rejects(far, std::nullopt, "region");
  auto placed = chase_request(Space::L1, 4 * KiB);
  placed.sm = 132;
  rejects(placed, std::nullopt, "SM 132 does not exist");
  ChaseBatch batch;
  batch.requests.push_back(chase_request(Space::L1, 4 * KiB));
  batch.carveout_percent = 101;
  EXPECT_THROW(device->chase(batch), Error);
  EXPECT_THROW(device->stream({StreamKind::Read, 0, 5, {}}), Error);
  EXPECT_THROW(device->stream({StreamKind::Copy, 60ull * 1024 * MiB, 5, {}}), Error);
}

TEST(SimDevice, StreamSeesL2ThenDram) {
  auto device = open("h100-sxm");
  const auto mean = [&](StreamKind kind, std::uint64_t bytes) {
    const auto r = device->stream({kind, bytes, 5, {}});
    EXPECT_EQ(r.gbps.size(), 5u);
    EXPECT_GT(r.blocks, 0u);
    EXPECT_GT(r.threads_per_block, 0u);
    double sum = 0;
    for (double g : r.gbps) sum += g;
    return sum / static_cast<double>(r.gbps.size());
  };
  const double l2 = mean(StreamKind::Read, 16 * MiB);
  const double dram = mean(StreamKind::Read, 4096 * MiB);
  EXPECT_GT(l2, 1.3 * dram);
  const auto& bw = load_config("h100-sxm").bandwidth;
  EXPECT_NEAR(dram, bw.dram_read_gbps, 150);
  EXPECT_NEAR(mean(StreamKind::Write, 4096 * MiB), bw.dram_write_gbps, 150);
  // A copy reads and writes: the harmonic mean of the two rates.
  EXPECT_NEAR(mean(StreamKind::Copy, 4096 * MiB),
              2 / (1 / bw.dram_read_gbps + 1 / bw.dram_write_gbps), 150);
  EXPECT_NEAR(mean(StreamKind::Read, 64 * KiB), l2, 0.1 * l2);  // small buffers loop in L2
}

TEST(SimDevice, ClustersFollowTpcsAndGpcs) {
  auto device = open("h100-sxm");
  const auto pairs = device->co_resident_sms(2);
  ASSERT_EQ(pairs.size(), 66u);
  for (const auto& p : pairs) {
    ASSERT_EQ(p.size(), 2u);
    EXPECT_EQ(p[0] % 2, 0);
    EXPECT_EQ(p[1], p[0] + 1);
  }
  const auto sixteen = device->co_resident_sms(16);
  const std::vector<int> gpc{2, 3, 18, 19, 34, 35, 50, 51, 64, 65, 78, 79, 92, 93, 106, 107};
  EXPECT_NE(std::find(sixteen.begin(), sixteen.end(), gpc), sixteen.end());
  EXPECT_TRUE(device->co_resident_sms(32).empty());
  EXPECT_TRUE(device->co_resident_sms(0).empty());
  EXPECT_TRUE(open("a100")->co_resident_sms(2).empty());
  const auto toy = open("toy")->co_resident_sms(2);
  EXPECT_EQ(toy.size(), 2u);  // two GPCs of three SMs: one pair each
}

TEST(SimDevice, ThreeSegmentsGiveNearUpToOneThirdAndFarUpToTheWhole) {
  auto device = open("odd-3seg");
  const auto slow = [&](std::uint64_t bytes, double limit) {
    return test::fraction_above(
        test::chase_one(*device, chase_request(Space::L2, bytes, 128, 2048)).cycles, limit);
  };
  const double near_limit = 240 + 14 + 20 + 20;
  EXPECT_LT(slow(6 * MiB, near_limit), 0.02);
  EXPECT_GT(slow(12 * MiB, near_limit), 0.9);
  EXPECT_LT(slow(20 * MiB, 550), 0.1);
  EXPECT_GT(slow(32 * MiB, 550), 0.9);
}

TEST(SimDevice, InfoSaysSimulated) {
  auto device = open("v100");
  EXPECT_TRUE(device->info().simulated);
  EXPECT_EQ(device->info().name(), "Tesla V100-SXM2-16GB");
  EXPECT_EQ(device->info().simulator_preset(), "v100");
}

}  // namespace
}  // namespace gputopo::device::sim
