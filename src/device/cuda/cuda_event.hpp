#pragma once

#include <cuda_runtime.h>

#include "device/cuda/check.hpp"

namespace gputopo::device::cuda {

// A CUDA event owned for its lifetime (timing only: recorded on a stream, read back by
// seconds_between).
class Event {
 public:
  Event() { check(cudaEventCreate(&e_), "cudaEventCreate"); }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  ~Event() { cudaEventDestroy(e_); }
  operator cudaEvent_t() const { return e_; }

 private:
  cudaEvent_t e_ = nullptr;
};

// The seconds between two recorded events.
inline double seconds_between(const Event& a, const Event& b) {
  float ms = 0;
  check(cudaEventElapsedTime(&ms, a, b), "cudaEventElapsedTime");
  return static_cast<double>(ms) * 1e-3;
}

}  // namespace gputopo::device::cuda
