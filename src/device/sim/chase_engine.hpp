#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <vector>

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
  void set_l2_fetch_bytes(std::uint32_t fetch_bytes) {
    memory_.set_l2_fetch_bytes(fetch_bytes);
    l2_fetch_bytes_ = fetch_bytes;
  }

  // Mean cycles of an L2 hit for `sm` before space extras: near latency plus the SM's offset.
  double sm_l2_offset(int sm) const;
  // What an L2 hit on each slice adds for SM `sm` (empty: nothing).
  std::vector<double> slice_extras(int sm) const;

 private:
  struct Run;
  // Where the loads of a strided chase were served, which its seed does not change (the seed only
  // draws the noise): a chase that runs again with another seed replays it instead of simulating
  // the caches, with the same results.
  struct Replay {
    double warm_busy = 0;              // the warm-up loads' busy cycles
    std::vector<std::uint8_t> levels;  // each timed load's index in Run::timing
    std::vector<double> translations;  // each timed load's translation cycles, where it translates
  };
  // The replay of `request` on `sm` (recorded by this call where it is new), or nullptr where the
  // request is not replayed.
  Replay* replay_of(const ChaseRequest& request, int sm, std::optional<int> carveout_percent,
                    bool& recorded);
  // `first_sm`: the SM of the request's other chase, when this one runs on another SM (-1: none).
  Run start(const ChaseRequest& request, int sm, std::uint32_t warp, std::uint64_t base,
            std::uint64_t seed, int first_sm = -1);
  // Returns the busy cycles of `loads` warm-up loads.
  double warm(Run& run, std::uint64_t loads);
  // Warmup::Store's pass: every element's sector stored once, in order.
  void store_pass(Run& run, double& busy_cycles);
  // The cycles of the next load of `run` (jitter and outliers included), advancing it.
  double served_cycles(Run& run, Rng& noise, double& busy_cycles);
  void timed(Run& run, Rng& noise, ChaseResult& result, double& busy_cycles);

  const SimConfig* config_;
  MemorySystem memory_;
  Translation translation_;
  std::uint32_t l2_fetch_bytes_;
  std::map<std::vector<std::uint64_t>, Replay> replays_;
};

}  // namespace gputopo::device::sim
