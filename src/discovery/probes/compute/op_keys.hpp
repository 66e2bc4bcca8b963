#pragma once

#include <string>

#include "device/compute_op.hpp"
#include "model/attribute.hpp"
#include "model/keys.hpp"

namespace gputopo::discovery {

// The report keys of one compute op (model/keys.def), nullptr where the op has none: every op the
// pipeline probe times has a latency and a throughput, a tensor-core op also its operations per
// clock and TFLOP/s; a warpgroup MMA has no latency, an op of a probe of its own no key here.
struct OpKeys {
  const model::Key* latency = nullptr;
  const model::Key* throughput = nullptr;
  const model::Key* per_clk = nullptr;
  const model::Key* tflops = nullptr;
};

const OpKeys& op_keys(device::ComputeOp op);

// `key` not measured, for `why`, in the key's unit.
inline model::Attribute unmeasured(const model::Key& key, const std::string& why) {
  return model::Attribute::unavailable(model::Source::Measured, std::string(key.unit), why);
}

}  // namespace gputopo::discovery
