#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <vector>

#include "device/cuda/chase_job.hpp"
#include "device/cuda/chase_unit.hpp"
#include "device/cuda/device_memory.hpp"
#include "device/cuda/plan/batch_plan.hpp"
#include "device/cuda/plan/chase_layout.hpp"

namespace gputopo::device::cuda {

// The chased arrays of one launch, built on the device: every array but constant ones at a
// 2 MiB-aligned offset in `arrays` (strided ones filled by a kernel, random ones scattered from a
// successor table staged in `successors`), constant ones packed (deduplicated) into the
// __constant__ bank, a texture object over each texture array. Alive until the launch is done.
class LaunchArrays {
 public:
  // With `wait_for_fills`, waits for the fill kernels, so that a fault in one is reported under
  // its own name; without, they are left on the stream ahead of the chase (queued launches).
  LaunchArrays(const std::vector<const ChaseUnit*>& units, const ChaseLimits& limits,
               DeviceArena& arrays, DeviceArena& successors, cudaStream_t stream,
               bool wait_for_fills = true);
  LaunchArrays(const LaunchArrays&) = delete;
  LaunchArrays& operator=(const LaunchArrays&) = delete;

  // Unit i's arrays as the kernel reads them; b(i) is empty when the unit has no B. A shared B
  // follows a shared A in dynamic shared memory.
  const ChaseArray& a(std::size_t i) const { return a_[i]; }
  const ChaseArray& b(std::size_t i) const { return b_[i]; }
  // Dynamic shared memory unit i needs (its shared arrays).
  std::uint32_t shared_bytes(std::size_t i) const;
  // Bytes of `arrays` the units' device-memory arrays take (what the constructor reserves).
  static std::uint64_t device_bytes(const std::vector<const ChaseUnit*>& units);
  // Bytes of the successor table the largest sequence or random array of `units` needs: reserved
  // once for a batch, since growing it array by array reallocated it (cudaFree, cudaMalloc) for
  // every longer sequence, about 3 ms an array in the random draws of the L1 geometry.
  static std::uint64_t successor_bytes(const std::vector<ChaseUnit>& units,
                                       const ChaseLimits& limits);

 private:
  // Packs the constant arrays of all units into the __constant__ bank, uploads them, and points
  // each unit's constant arrays at their place.
  void upload_constants(const std::vector<const ChaseUnit*>& units,
                        const std::vector<PlanUnit>& constant_users, const ChaseLimits& limits,
                        cudaStream_t stream);

  std::vector<ChaseArray> a_;
  std::vector<ChaseArray> b_;
  // Destroys its texture objects, also when the constructor fails half-way.
  struct Textures {
    Textures() = default;
    Textures(const Textures&) = delete;
    Textures& operator=(const Textures&) = delete;
    ~Textures();
    std::vector<cudaTextureObject_t> objects;
  };
  Textures textures_;
};

}  // namespace gputopo::device::cuda
