#include "device/cuda/code_body.hpp"

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "device/compute_request.hpp"
#include "device/cuda/code_body_aot.hpp"
#include "device/cuda/code_body_ptx.hpp"

namespace gputopo::device::cuda {
namespace {

struct Loaded {
  cudaLibrary_t library = nullptr;
  cudaKernel_t kernel = nullptr;
};

using BodyKey = std::pair<std::uint32_t, bool>;  // instructions, with a chase

std::mutex& loaded_lock() {
  static std::mutex lock;
  return lock;
}
std::map<BodyKey, Loaded>& loaded_bodies() {
  static std::map<BodyKey, Loaded> loaded;
  return loaded;
}

// Loads one body into the current device's context, compiled ahead of time where the build did,
// otherwise by the driver's JIT: the attribute query makes a lazily loaded library load now rather
// than at the first launch.
cudaError_t compile(const BodyKey& key, int cc_major, int cc_minor, Loaded& l) {
  const int sm = cc_major * 10 + cc_minor;
  const void* cubin = key.second ? nullptr : aot_code_body(sm, key.first);
  cudaError_t rc = cudaErrorInvalidSource;
  if (cubin != nullptr)
    rc = cudaLibraryLoadData(&l.library, cubin, nullptr, nullptr, 0, nullptr, nullptr, 0);
  if (rc != cudaSuccess) {
    const std::string ptx = code_body_ptx(key.first, key.second, sm);
    rc = cudaLibraryLoadData(&l.library, ptx.c_str(), nullptr, nullptr, 0, nullptr, nullptr, 0);
  }
  if (rc != cudaSuccess) return rc;
  rc = cudaLibraryGetKernel(&l.kernel, l.library, "gputopo_code_body");
  if (rc != cudaSuccess) return rc;
  cudaFuncAttributes attributes{};
  return cudaFuncGetAttributes(&attributes, reinterpret_cast<const void*>(l.kernel));
}

}  // namespace

cudaError_t prepare_code_bodies(const std::vector<std::pair<std::uint32_t, std::uint32_t>>& bodies,
                                int cc_major, int cc_minor) {
  std::vector<BodyKey> missing;
  {
    const std::lock_guard<std::mutex> guard(loaded_lock());
    for (const auto& [instructions, chase_bytes] : bodies) {
      const BodyKey key{instructions, chase_bytes > 0};
      const auto it = loaded_bodies().find(key);
      if ((it == loaded_bodies().end() || it->second.kernel == nullptr) &&
          std::find(missing.begin(), missing.end(), key) == missing.end())
        missing.push_back(key);
    }
  }
  if (missing.size() < 2) return cudaSuccess;  // the launch compiles a single body itself
  int device = 0;
  if (const cudaError_t rc = cudaGetDevice(&device); rc != cudaSuccess) return rc;
  std::vector<Loaded> done(missing.size());
  std::vector<cudaError_t> errors(missing.size(), cudaSuccess);
  std::atomic<std::size_t> next{0};
  const auto worker = [&] {
    for (std::size_t i = next++; i < missing.size(); i = next++) {
      errors[i] = cudaSetDevice(device);
      if (errors[i] == cudaSuccess) errors[i] = compile(missing[i], cc_major, cc_minor, done[i]);
    }
  };
  const std::size_t count =
      std::min<std::size_t>(missing.size(), std::max(1U, std::thread::hardware_concurrency()));
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < count; ++t) threads.emplace_back(worker);
  for (auto& t : threads) t.join();
  const std::lock_guard<std::mutex> guard(loaded_lock());
  for (std::size_t i = 0; i < missing.size(); ++i) {
    if (errors[i] != cudaSuccess) return errors[i];
    Loaded& l = loaded_bodies()[missing[i]];
    if (l.kernel == nullptr) l = done[i];
  }
  return cudaSuccess;
}

cudaError_t launch_code_body(std::uint32_t instructions, std::uint32_t chase_bytes, int cc_major,
                             int cc_minor, const ComputeLaunchArgs& args, std::uint32_t blocks,
                             std::uint32_t threads, cudaStream_t s) {
  const bool chase = chase_bytes > 0;
  cudaKernel_t kernel = nullptr;
  {
    const std::lock_guard<std::mutex> guard(loaded_lock());
    Loaded& l = loaded_bodies()[{instructions, chase}];
    if (l.kernel == nullptr) {
      const cudaError_t rc = compile({instructions, chase}, cc_major, cc_minor, l);
      if (rc != cudaSuccess) return rc;
    }
    kernel = l.kernel;
  }
  // One launch a request: the block's records start where the runner placed them.
  std::uint64_t clocks = reinterpret_cast<std::uintptr_t>(args.clocks);
  std::uint64_t smids = reinterpret_cast<std::uintptr_t>(args.smids);
  std::uint64_t status = reinterpret_cast<std::uintptr_t>(args.status);
  std::uint64_t sink = reinterpret_cast<std::uintptr_t>(args.sink);
  std::uint32_t trips = args.trips;
  float f1 = args.f1;
  float f2 = args.f2;
  std::uint32_t loads = chase_bytes / kCodeChaseStride;
  std::uint32_t bytes = chase_bytes;
  void* params[] = {&clocks, &smids, &status, &sink, &trips, &f1, &f2, &loads, &bytes};
  return cudaLaunchKernel(reinterpret_cast<const void*>(kernel), dim3(blocks), dim3(threads),
                          params, 0, s);
}

}  // namespace gputopo::device::cuda
