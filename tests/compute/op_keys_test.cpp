#include "discovery/probes/compute/op_keys.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "device/compute_request.hpp"

// Each compute op's keys are the catalogue's literal declarations of its name and a family's
// suffix, and every op key of the catalogue belongs to exactly one op.
namespace gputopo::discovery {
namespace {

namespace keys = model::keys;

TEST(OpKeys, EachKeyIsTheOpsNameAndItsFamilysSuffix) {
  std::set<const model::Key*> owned;
  for (const device::ComputeOp op : device::all_compute_ops()) {
    const OpKeys& k = op_keys(op);
    const std::string name(device::op_info(op).name);
    const std::pair<const model::Key*, const model::KeyFamily*> slots[] = {
        {k.latency, &keys::opLatency},
        {k.throughput, &keys::opThroughput},
        {k.per_clk, &keys::opPerClkPerSm},
        {k.tflops, &keys::opTflops}};
    for (const auto& [key, family] : slots) {
      if (!key) continue;
      EXPECT_EQ(key->family, family) << key->name;
      EXPECT_EQ(key->member(), name) << key->name;
      EXPECT_EQ(model::key_named(key->name), key) << key->name;
      EXPECT_TRUE(owned.insert(key).second) << key->name << " belongs to two ops";
    }
    // The pipeline probe times every op that is not a probe's own; a tensor-core op has rates.
    const auto& o = device::op_info(op);
    EXPECT_TRUE(o.own_probe || (k.latency && k.throughput)) << name;
    EXPECT_TRUE(o.warp_flops == 0 || (k.per_clk && k.tflops)) << name;
  }
  for (const model::Key* k : model::catalogue())
    EXPECT_TRUE(!k->family || owned.count(k)) << k->name << " belongs to no op";
}

}  // namespace
}  // namespace gputopo::discovery
