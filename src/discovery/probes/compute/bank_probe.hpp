#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "discovery/probe.hpp"

namespace gputopo::discovery {

// One access pattern of the shared-memory bank sweep: each lane of one warp loads access_bytes at
// lane x stride_bytes (docs/compute.md, "Shared-memory banks").
struct BankPattern {
  std::uint32_t access_bytes;
  std::uint32_t stride_bytes;
};
// The sweep: 4-byte loads at strides 0 (broadcast) to 516 B and 8-byte loads at 0 to 520 B. The
// strides one word past a power of two put pairs of lanes one bank row plus 4 (or 8) bytes apart,
// which conflict when banks are wider than the word and not otherwise: bank count and width only
// separate with them (power-of-two strides see only count x width).
const std::vector<BankPattern>& bank_patterns();

// The bank hypotheses tried: counts 8..128 and widths 4..16 B (powers of two).
struct BankLayout {
  std::uint32_t count;
  std::uint32_t width_bytes;
};
std::vector<BankLayout> bank_hypotheses();

// The best hypothesis for cycles per load of each pattern (cycles[i] for bank_patterns()[i]):
// each is fitted as latency + conflict x (passes - 1), a latency per access size, least squares;
// the largest misfit of one pattern, in units of the conflict cost, decides. nullopt when no
// conflict shows (all loads cost the same).
struct BankFit {
  BankLayout layout;
  double latency = 0;    // cycles of a conflict-free 4-byte load
  double latency64 = 0;  // the same of an 8-byte load's step (LDS.64 + VIMNMX)
  double conflict = 0;   // cycles per pass past the first
  double residual = 0;   // the largest misfit of one pattern / conflict
  double runner_up = 0;  // the same for the next best hypothesis with other predictions
  std::vector<std::uint32_t> passes;  // per pattern, under the chosen layout
};
std::optional<BankFit> fit_banks(const std::vector<double>& cycles);

}  // namespace gputopo::discovery
