// Thread-block clusters: which SMs the blocks of one cluster run on.
#include <cuda_runtime.h>

#include <cstdint>

#include "device/cuda/device_clock.cuh"
#include "device/cuda/kernels.hpp"

namespace gputopo::device::cuda {
namespace {

// Each block writes its SM, then waits (up to wait_ns) until every block has started, so that
// all clusters are resident at once and no SM serves two of them.
__global__ void cluster_probe_kernel(int* smids, std::uint32_t* started, std::uint32_t total,
                                     std::uint64_t wait_ns) {
  extern __shared__ std::uint32_t s_reserved[];  // only there to keep one block per SM
  if (threadIdx.x != 0) return;
  smids[blockIdx.x] = read_smid();
  s_reserved[0] = blockIdx.x;
  atomicAdd(started, 1U);
  const std::uint64_t end = read_globaltimer() + wait_ns;
  while (atomicAdd(started, 0U) < total && read_globaltimer() < end) {
  }
}

cudaLaunchConfig_t config_for(int cluster_size, int clusters, std::uint32_t shared_bytes,
                              cudaLaunchAttribute* attribute, cudaStream_t s) {
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(static_cast<unsigned>(cluster_size * clusters), 1, 1);
  config.blockDim = dim3(32, 1, 1);
  config.dynamicSmemBytes = shared_bytes;
  config.stream = s;
  attribute->id = cudaLaunchAttributeClusterDimension;
  attribute->val.clusterDim.x = static_cast<unsigned>(cluster_size);
  attribute->val.clusterDim.y = 1;
  attribute->val.clusterDim.z = 1;
  config.attrs = attribute;
  config.numAttrs = 1;
  return config;
}

cudaError_t prepare(int cluster_size, std::uint32_t shared_bytes) {
  cudaError_t rc =
      cudaFuncSetAttribute(cluster_probe_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                           static_cast<int>(shared_bytes));
  if (rc != cudaSuccess || cluster_size <= 8) return rc;
  return cudaFuncSetAttribute(cluster_probe_kernel, cudaFuncAttributeNonPortableClusterSizeAllowed,
                              1);
}

}  // namespace

cudaError_t max_active_clusters(int cluster_size, std::uint32_t shared_bytes, int* clusters) {
  cudaError_t rc = prepare(cluster_size, shared_bytes);
  if (rc != cudaSuccess) return rc;
  cudaLaunchAttribute attribute{};
  const auto config = config_for(cluster_size, 1, shared_bytes, &attribute, nullptr);
  return cudaOccupancyMaxActiveClusters(clusters, cluster_probe_kernel, &config);
}

cudaError_t launch_cluster_probe(int cluster_size, int clusters, std::uint32_t shared_bytes,
                                 int* smids, std::uint32_t* started, std::uint64_t wait_ns,
                                 cudaStream_t s) {
  cudaError_t rc = prepare(cluster_size, shared_bytes);
  if (rc != cudaSuccess) return rc;
  cudaLaunchAttribute attribute{};
  const auto config = config_for(cluster_size, clusters, shared_bytes, &attribute, s);
  const auto total = static_cast<std::uint32_t>(cluster_size * clusters);
  rc = cudaLaunchKernelEx(&config, cluster_probe_kernel, smids, started, total, wait_ns);
  if (rc != cudaSuccess) return rc;
  return cudaGetLastError();
}

}  // namespace gputopo::device::cuda
