#include <gtest/gtest.h>

#include <string>

#include "../discovery/result_access.hpp"
#include "device/compute_request.hpp"
#include "device/sim/sim_device.hpp"
#include "discovery/probes/compute/bank_probe.hpp"

// The shared-memory bank probe end to end on the simulator: the configured bank count and width
// exactly, the conflict cost and the load latency within 2 %, on the presets and on layouts that
// no preset has.
namespace gputopo::discovery {
namespace {

using device::sim::SimConfig;

Result banks_on(SimConfig config, std::uint64_t seed = 5) {
  return testing::discover_config(std::move(config), {"sharedBanks"}, seed);
}

void expect_banks(const SimConfig& config, std::uint64_t seed = 5) {
  ASSERT_TRUE(config.compute && config.compute->shared_banks);
  const auto& truth = *config.compute->shared_banks;
  const Result r = banks_on(config, seed);
  const auto* count = model::find(r.compute, "sharedBankCount");
  const auto* width = model::find(r.compute, "sharedBankWidth");
  const auto* conflict = model::find(r.compute, "sharedConflictCycles");
  const auto* latency = model::find(r.compute, "sharedLoadLatency");
  ASSERT_TRUE(count && width && conflict && latency);
  ASSERT_TRUE(count->available()) << count->reason;
  EXPECT_EQ(count->value.get<double>(), truth.count);
  EXPECT_EQ(width->value.get<double>(), truth.width_bytes);
  EXPECT_NEAR(conflict->value.get<double>(), truth.conflict_cycles, 0.02 * truth.conflict_cycles);
  const double lds = config.compute->pipeline(device::ComputeOp::LdShared32)->latency_cycles;
  EXPECT_NEAR(latency->value.get<double>(), lds, 0.02 * lds);
  EXPECT_GE(*count->confidence, 0.5);
}

class BankSim : public ::testing::TestWithParam<const char*> {};

TEST_P(BankSim, RecoversTheConfiguredBanks) { expect_banks(device::sim::load_config(GetParam())); }

INSTANTIATE_TEST_SUITE_P(Presets, BankSim, ::testing::Values("h100-sxm", "h200", "a100"),
                         [](const auto& param) {
                           std::string name = param.param;
                           for (char& c : name)
                             if (c == '-') c = '_';
                           return name;
                         });

// Layouts no preset has, other latencies and conflict costs, more noise.
TEST(BankSimPerturbed, RecoversOtherLayouts) {
  struct Case {
    std::uint32_t count, width;
    double conflict, latency;
  };
  for (const Case c : {Case{16, 8, 5, 41}, Case{64, 4, 3, 23}, Case{32, 8, 1.5, 35}}) {
    SimConfig config = device::sim::load_config("h100-sxm");
    config.compute->shared_banks = device::sim::SharedBankSpec{c.count, c.width, c.conflict};
    config.compute->pipelines[static_cast<std::size_t>(device::ComputeOp::LdShared32)]
        ->latency_cycles = c.latency;
    config.compute->pipelines[static_cast<std::size_t>(device::ComputeOp::LdShared64)]
        ->latency_cycles = c.latency + 7;
    config.compute->jitter_cycles = 8;
    SCOPED_TRACE(std::to_string(c.count) + " banks of " + std::to_string(c.width) + " B");
    expect_banks(config, 17);
  }
}

// The sweep separates every hypothesis from every other: exact costs of each are fitted back to it.
TEST(BankFit, EveryHypothesisIsRecoveredFromItsOwnCosts) {
  for (const auto& h : bank_hypotheses()) {
    std::vector<double> cycles;
    for (const auto& p : bank_patterns())
      cycles.push_back(
          (p.access_bytes == 8 ? 33 : 30) +
          2.5 * (device::bank_wavefronts(p.access_bytes, p.stride_bytes, h.count, h.width_bytes) -
                 1.0));
    const auto fit = fit_banks(cycles);
    ASSERT_TRUE(fit) << h.count << " x " << h.width_bytes;
    EXPECT_EQ(fit->layout.count, h.count);
    EXPECT_EQ(fit->layout.width_bytes, h.width_bytes);
    EXPECT_GT(fit->runner_up, 0.5) << h.count << " x " << h.width_bytes;
  }
}

TEST(BankFit, NoConflictNoAnswer) {
  EXPECT_FALSE(fit_banks(std::vector<double>(bank_patterns().size(), 30.0)));
}

}  // namespace
}  // namespace gputopo::discovery
