#pragma once

#include <cstdint>
#include <vector>

#include "discovery/context.hpp"
#include "discovery/probe.hpp"

// The TLB levels the `tlb` probe measured, as bounds on the L2's geometry chases: a chase whose
// pages a level cannot hold misses it on every pass, and where that miss costs about what an L2
// miss does, its loads read as L2 misses. Counts past the bound say nothing about the L2.
namespace gputopo::discovery {

struct TranslationLevel {
  std::uint64_t page = 0;
  std::uint64_t entries = 0;
  std::uint64_t ways = 0;  // 0: not established (taken as 1, the fewest pages held at a stride)
  double penalty = 0;      // cycles a miss adds to a load
};

// The findings the levels are read from (tlb1..tlb3), for Probe::declare.
std::vector<Finding> translation_findings();
// The levels whose entries, page and miss penalty are established.
std::vector<TranslationLevel> translation_levels(const Context& ctx);
// The most lines `stride` bytes apart that a chase keeps without missing a level whose miss
// costs more than `tolerated` cycles; UINT64_MAX where none bounds it.
std::uint64_t translated_lines(const std::vector<TranslationLevel>& levels, std::uint64_t stride,
                               double tolerated);

}  // namespace gputopo::discovery
