#include "device/cuda/check.hpp"

#include <chrono>
#include <sstream>
#include <thread>

namespace gputopo::device::cuda {
namespace {
constexpr auto kMaxPause = std::chrono::microseconds(40);
// Polled without sleeping first: Linux's timer slack makes the shortest sleep about 60 us, which
// a fill kernel of a few microseconds waited on before its chase would pay every time.
constexpr auto kSpin = std::chrono::microseconds(200);
}  // namespace

Error::Kind error_kind(cudaError_t rc) {
  switch (rc) {
    case cudaErrorMemoryAllocation:
      return Error::Kind::OutOfMemory;
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorLaunchTimeout:
    case cudaErrorECCUncorrectable:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorDevicesUnavailable:
    case cudaErrorNoDevice:
    case cudaErrorContextIsDestroyed:
    case cudaErrorAssert:
      return Error::Kind::Lost;
    default:
      return Error::Kind::Measurement;
  }
}

void wait_for(cudaStream_t stream, double seconds, const std::string& what) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  const auto limit = std::chrono::duration<double>(seconds);
  // Short pauses: most launches take 0.1-1 ms, and a pause that grew to milliseconds added up to
  // its own length to every one of the discovery's few thousand waits.
  auto pause = std::chrono::microseconds(10);
  for (;;) {
    const cudaError_t rc = cudaStreamQuery(stream);
    if (rc == cudaSuccess) return;
    if (rc != cudaErrorNotReady) check(rc, what);
    if (Clock::now() - start > limit) {
      std::ostringstream msg;
      msg << what << " still running after " << seconds
          << " s, far past its deadline; the GPU may be hung or busy with other work, and a "
             "kernel cannot be cancelled, so the run ends";
      throw Error(Error::Kind::Lost, msg.str());
    }
    if (Clock::now() - start < kSpin) {
      std::this_thread::yield();
      continue;
    }
    std::this_thread::sleep_for(pause);
    if (pause < kMaxPause) pause *= 2;
  }
}

}  // namespace gputopo::device::cuda
