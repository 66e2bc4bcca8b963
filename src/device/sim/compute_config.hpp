#pragma once

#include <array>
#include <optional>

#include "device/compute_op.hpp"
#include "device/sim/json_reader.hpp"

namespace gputopo::device::sim {

// What the simulated GPU's compute micro-kernels cost: configuration of the simulator, the
// answers its compute probes must find (docs/sim.md, "compute").
struct PipelineSpec {
  double latency_cycles = 0;  // of one instruction of the op's timed SASS opcode
  double per_clk_per_sm = 0;  // those instructions per clock per SM, counted per thread
};

// Shared-memory banks: a warp's load takes bank_wavefronts() passes; each pass past the first adds
// conflict_cycles to its latency and divides the op's rate.
struct SharedBankSpec {
  std::uint32_t count = 32;
  std::uint32_t width_bytes = 4;
  double conflict_cycles = 2;
};

struct ComputeSpec {
  std::array<std::optional<PipelineSpec>, kComputeOpCount> pipelines;  // indexed by ComputeOp
  int schedulers_per_sm = 4;        // each issues one warp instruction per clock
  double overhead_cycles = 0;       // added to every timed span (clock reads, loop set-up)
  double jitter_cycles = 0;         // standard deviation of a timed span's noise
  double trip_overhead_cycles = 0;  // added per loop trip to the issue of every warp
  double branch_cycles = 8;         // a divergence op's loop and branch, per path
  bool reconverge = true;           // a warp's paths rejoin after a divergent branch
  // Vector-register operands one warp's instructions read per clock; an instruction reading more
  // issues that much slower (ComputeOpInfo::register_reads). 0: never limiting.
  double register_reads_per_clk = 0;
  std::optional<SharedBankSpec> shared_banks;  // nullopt: shared loads never conflict
  // Instruction-cache levels, smallest first: a loop body larger than `size_bytes` (16 B an
  // instruction) costs `extra_cycles` more per instruction (the codeBody op). A level that
  // `holds_constants` is also the constant space's last cache before the L2 (the constant L1.5,
  // of the same size): a codeBody's constant chase and its body share its capacity.
  struct InstructionCache {
    std::uint64_t size_bytes = 0;
    double extra_cycles = 0;
    bool holds_constants = false;
  };
  std::vector<InstructionCache> instruction_caches;

  const std::optional<PipelineSpec>& pipeline(ComputeOp op) const {
    return pipelines[static_cast<std::size_t>(op)];
  }
};

// Parses the "compute" section for a device of compute capability cc_major.cc_minor: every op
// such a GPU has must be listed, and none it lacks.
ComputeSpec parse_compute(const JsonReader& r, int cc_major, int cc_minor);

}  // namespace gputopo::device::sim
