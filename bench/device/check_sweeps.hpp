#pragma once

#include <cstdint>
#include <vector>

#include "device/device.hpp"

// The sweeps the device check runs and the small statistics it reads off them.
namespace gputopo::bench {

using device::ChaseBatch;
using device::ChaseBatchResult;
using device::ChaseRequest;
using device::Space;

ChaseRequest chase(Space space, std::uint64_t bytes, std::uint32_t stride, std::uint32_t loads,
                   int sm = -1);

double median(std::vector<std::uint32_t> cycles);
double fraction_above(const std::vector<std::uint32_t>& cycles, double threshold);

// The first request (in batch order) whose loads exceed `threshold` more often than `fraction`;
// its array size, or 0 when none does.
std::uint64_t first_size_above(const ChaseBatch& batch, const ChaseBatchResult& result,
                               double threshold, double fraction);

// Three latency levels (e.g. near L2, far L2, DRAM) in a set of loads: 1-D k-means on log
// cycles, started at the 5th and 95th percentiles and halfway between. Centers in ascending order.
std::vector<double> three_levels(std::vector<std::uint32_t> cycles);

// L1 size sweep through ld.global.ca: 8 KiB .. 320 KiB, 2 KiB apart, 128 B stride.
ChaseBatch l1_size_sweep(int carveout);
// L2 sweep through ld.global.cg on one SM: 4 MiB .. 1.75 x the API L2 size, 1 MiB apart,
// random order over 128 B elements so that each point samples its whole array.
ChaseBatch l2_sweep(std::uint64_t l2_bytes, int sm);
// Strides 4 .. 1024 B over an array four times larger than L1 (one SM each), with indices.
ChaseBatch stride_sweep(Space space, std::uint64_t bytes);
// L1 sizes around capacity (176 .. 264 KiB, 4 KiB apart, 128 B stride) run three ways: all at
// once on different SMs (as the backend batches them), one at a time on SM 0, and warmed by a
// single-thread chase (an interference request whose B is one element) instead of the block.
ChaseBatch l1_near_capacity(int carveout, int sm);
// Constant sweep: 64 B .. 64 KiB, 64 B stride (64 B apart up to 2 KiB).
ChaseBatch constant_sweep(std::uint64_t max_bytes);

}  // namespace gputopo::bench
