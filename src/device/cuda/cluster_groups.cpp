#include "device/cuda/cluster_groups.hpp"

#include <algorithm>
#include <string>

#include "device/cuda/check.hpp"
#include "device/cuda/device_memory.hpp"
#include "device/cuda/kernels.hpp"

namespace gputopo::device::cuda {

namespace {
// A cluster size the device refuses: the request cannot be run, and the driver's reason says why.
[[noreturn]] void refused(int cluster_size, const char* call, cudaError_t rc) {
  throw Error(Error::Kind::BadRequest, "cluster size " + std::to_string(cluster_size) + ": " +
                                           call + ": " + cudaGetErrorString(rc) + " (" +
                                           cudaGetErrorName(rc) + ")");
}
}  // namespace

std::vector<std::vector<int>> cluster_groups(const DeviceInfo& info, cudaStream_t stream,
                                             int cluster_size) {
  if (cluster_size < 1)
    throw Error(Error::Kind::BadRequest,
                "cluster size " + std::to_string(cluster_size) + " must be at least 1");
  if (info.compute_capability().major < 9) return {};
  // A block asking for (nearly) all of an SM's shared memory keeps every other block off it.
  const auto shared = static_cast<std::uint32_t>(info.shared_per_block_optin_bytes());
  int clusters = 0;
  const cudaError_t rc = max_active_clusters(cluster_size, shared, &clusters);
  if (rc != cudaSuccess) {
    cudaGetLastError();  // not sticky: clear it so that later launches do not inherit it
    refused(cluster_size, "cudaOccupancyMaxActiveClusters", rc);
  }
  if (clusters <= 0) return {};  // no cluster of this size fits on the device
  const auto blocks = static_cast<std::size_t>(clusters) * static_cast<std::size_t>(cluster_size);
  DeviceArena memory("cluster probe");
  auto* smids = reinterpret_cast<int*>(memory.reserve(blocks * sizeof(int) + 256));
  auto* started = reinterpret_cast<std::uint32_t*>(smids + blocks);
  check(cudaMemsetAsync(smids, 0xff, blocks * sizeof(int) + sizeof(std::uint32_t), stream),
        "cudaMemsetAsync (cluster probe)");
  check(cudaMemsetAsync(started, 0, sizeof(std::uint32_t), stream),
        "cudaMemsetAsync (cluster probe)");
  if (const cudaError_t launch = launch_cluster_probe(cluster_size, clusters, shared, smids,
                                                      started, 1'000'000'000, stream);
      launch != cudaSuccess) {
    // The occupancy query can accept a shape the launch then refuses (e.g. sizes above the
    // hardware's maximum): clear the error so that later launches do not inherit it.
    cudaGetLastError();
    refused(cluster_size, "cluster probe launch", launch);
  }
  wait_for(stream, 20, "cluster probe kernel");
  std::vector<int> host(blocks);
  check(cudaMemcpyAsync(host.data(), smids, blocks * sizeof(int), cudaMemcpyDeviceToHost, stream),
        "cudaMemcpyAsync (cluster probe)");
  wait_for(stream, 20, "copying cluster probe results");
  std::vector<std::vector<int>> groups;
  for (int c = 0; c < clusters; ++c) {
    const auto first = host.begin() + static_cast<std::ptrdiff_t>(c) * cluster_size;
    std::vector<int> group(first, first + cluster_size);
    std::sort(group.begin(), group.end());
    groups.push_back(std::move(group));
  }
  std::sort(groups.begin(), groups.end());
  return groups;
}

}  // namespace gputopo::device::cuda
