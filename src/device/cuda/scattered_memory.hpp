#pragma once

#include <cstdint>
#include <memory>
#include <vector>

namespace gputopo::device::cuda {

// Device memory in chunks of the driver's minimum mapping granularity (2 MiB on Hopper), each
// allocated on its own (cuMemCreate) and mapped at a shuffled position of one reserved virtual
// range (cuMemAddressReserve, cuMemMap), readable and writable by the current device: no two
// neighbouring chunks are physically neighbours, so the MMU cannot translate the range with pages
// larger than a chunk. The driver API is reached through the runtime's entry points, so gputopo
// links no libcuda and starts without a driver. Throws Error(BadRequest) where the driver or the
// device lacks virtual memory management, Error(OutOfMemory) where memory runs short.
class ScatteredMemory {
 public:
  ScatteredMemory();
  ~ScatteredMemory();
  ScatteredMemory(const ScatteredMemory&) = delete;
  ScatteredMemory& operator=(const ScatteredMemory&) = delete;

  // Maps at least `bytes` (whole chunks) and returns the range's base; drops any earlier mapping.
  std::uint8_t* map(std::uint64_t bytes);
  void release();
  std::uint64_t capacity() const { return bytes_; }
  std::uint64_t granule() const { return granule_; }

 private:
  struct Api;
  std::unique_ptr<Api> api_;
  int device_ = 0;
  std::uint64_t granule_ = 0;
  std::uint64_t base_ = 0;
  std::uint64_t bytes_ = 0;
  std::vector<unsigned long long> handles_;
};

}  // namespace gputopo::device::cuda
