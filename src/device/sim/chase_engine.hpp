#pragma once

#include <cstdint>
#include <optional>

#include "device/requests.hpp"
#include "device/results.hpp"
#include "device/sim/config.hpp"
#include "device/sim/memory_system.hpp"
#include "device/sim/rng.hpp"
#include "device/sim/tlb.hpp"

namespace gputopo::device::sim {

// Runs validated chase and interference requests on the memory model, one SM at a time, and turns
// where each load was served into cycle counts with the configured noise.
class ChaseEngine {
 public:
  explicit ChaseEngine(const SimConfig& config);

  // `seed` fixes the noise and the random permutations of this request. `busy_cycles` grows by
  // the simulated time the request took (mean latencies, warm-up included).
  ChaseResult chase(const ChaseRequest& request, int sm, std::optional<int> carveout_percent,
                    std::uint64_t seed, double& busy_cycles);
  ChaseResult interfere(const InterferenceRequest& request, int sm,
                        std::optional<int> carveout_percent, std::uint64_t seed,
                        double& busy_cycles);

  // Bytes each L2 miss fetches for the requests that follow (see SimConfig::l2_fetch_bytes).
  void set_l2_fetch_bytes(std::uint32_t fetch_bytes) { memory_.set_l2_fetch_bytes(fetch_bytes); }

  // Mean cycles of an L2 hit for `sm` before space extras: near latency plus the SM's offset.
  double sm_l2_offset(int sm) const;

 private:
  struct Run;
  // `first_sm`: the SM of the request's other chase, when this one runs on another SM (-1: none).
  Run start(const ChaseRequest& request, int sm, std::uint32_t warp, std::uint64_t base,
            std::uint64_t seed, int first_sm = -1);
  void warm(Run& run, std::uint64_t loads, double& busy_cycles);
  // Warmup::Store's pass: every element's sector stored once, in order.
  void store_pass(Run& run, double& busy_cycles);
  // The cycles of the next load of `run` (jitter and outliers included), advancing it.
  double served_cycles(Run& run, Rng& noise, double& busy_cycles);
  void timed(Run& run, Rng& noise, ChaseResult& result, double& busy_cycles);

  const SimConfig* config_;
  MemorySystem memory_;
  Translation translation_;
};

}  // namespace gputopo::device::sim
