#include "device/cuda/transfer_runner.hpp"

#include <sys/mman.h>

#include <chrono>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <numeric>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "device/cuda/check.hpp"
#include "device/cuda/cuda_event.hpp"
#include "device/cuda/kernels.hpp"
#include "device/cuda/nvml.hpp"
#include "model/seconds_since.hpp"
#include "numa/numa_binding.hpp"

namespace gputopo::device::cuda {
namespace {

constexpr int kMpolBind = 2;               // linux/mempolicy.h
constexpr unsigned kMpolMfMove = 1u << 1;  // move pages already there

std::string bus_id(int device) {
  char id[32] = {};
  check(cudaDeviceGetPCIBusId(id, sizeof id, device), "cudaDeviceGetPCIBusId");
  return id;
}

// Host memory from mmap, bound to a NUMA node through hwloc when asked, touched so that its pages
// exist, and registered with CUDA when pinned.
class HostBuffer {
 public:
  HostBuffer(std::size_t bytes, bool pinned, int numa_node, TransferResult& result)
      : bytes_(bytes) {
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
      throw Error(Error::Kind::OutOfMemory, "mmap of " + std::to_string(bytes) + " B failed");
    data_ = p;
    if (numa_node >= 0) bind(numa_node, result);
    std::memset(data_, 1, bytes);
    if (pinned) {
      // Portable: every GPU's context sees it pinned, as the GPUs reuse it (cached_host_buffer).
      check(cudaHostRegister(data_, bytes, cudaHostRegisterPortable), "cudaHostRegister");
      registered_ = true;
    }
  }
  HostBuffer(const HostBuffer&) = delete;
  HostBuffer& operator=(const HostBuffer&) = delete;
  ~HostBuffer() {
    if (registered_) cudaHostUnregister(data_);
    munmap(data_, bytes_);
  }
  void* data() const { return data_; }
  // What binding it to its node gave, for a result that reuses it.
  void describe_binding(TransferResult& result) const {
    result.numa_reason = numa_reason_;
    result.numa_bound = numa_bound_;
  }

 private:
  void bind(int node, TransferResult& result) {
    numa_reason_ = numa::bind_to_numa_node(data_, bytes_, node);
    numa_bound_ = numa_reason_.empty();
    describe_binding(result);
  }
  std::size_t bytes_;
  void* data_ = nullptr;
  bool registered_ = false;
  std::string numa_reason_;
  bool numa_bound_ = false;
};

// Host buffers live as long as the process: the GPUs of `-d all` measure their host links one
// after another with the same sizes, and mapping, touching and pinning 64 MiB for every copy
// kind of every GPU cost 0.22-0.30 s a GPU on a 4 x H200 host. Never freed: unregistering after
// the CUDA runtime has shut down at exit is not allowed. The lock serialises host copies within
// the process, which the measurement wants anyway.
std::mutex& host_copies() {
  static std::mutex m;
  return m;
}
HostBuffer& cached_host_buffer(std::size_t bytes, bool pinned, int numa_node,
                               TransferResult& result) {
  using Key = std::tuple<std::size_t, bool, int>;
  static auto* cache = new std::map<Key, std::unique_ptr<HostBuffer>>();
  auto& slot = (*cache)[Key{bytes, pinned, numa_node}];
  if (!slot)
    slot = std::make_unique<HostBuffer>(bytes, pinned, numa_node, result);
  else if (numa_node >= 0)
    slot->describe_binding(result);
  return *slot;
}

class DeviceBuffer {
 public:
  DeviceBuffer(int device, std::size_t bytes) {
    check(cudaSetDevice(device), "cudaSetDevice");
    check(cudaMalloc(&data_, bytes), "cudaMalloc of a transfer buffer");
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() { cudaFree(data_); }
  void* data() const { return data_; }

 private:
  void* data_ = nullptr;
};

double deadline_s(std::uint64_t bytes) { return 10.0 + static_cast<double>(bytes) / 1e8; }

void enable_peer(int device, int peer) {
  int can = 0;
  check(cudaDeviceCanAccessPeer(&can, device, peer), "cudaDeviceCanAccessPeer");
  if (can == 0)
    throw Error(Error::Kind::BadRequest, "GPU " + std::to_string(device) +
                                             " has no peer access to GPU " + std::to_string(peer));
  check(cudaSetDevice(device), "cudaSetDevice");
  const cudaError_t rc = cudaDeviceEnablePeerAccess(peer, 0);
  if (rc == cudaErrorPeerAccessAlreadyEnabled) {
    cudaGetLastError();
    return;
  }
  check(rc, "cudaDeviceEnablePeerAccess");
}

TransferResult host_transfer(int device, cudaStream_t stream, const TransferRequest& r) {
  TransferResult result;
  const bool pinned = r.memory == HostMemory::Pinned;
  const std::lock_guard lock(host_copies());
  HostBuffer& host = cached_host_buffer(r.bytes, pinned, r.numa_node, result);
  DeviceBuffer gpu(device, r.bytes);
  const bool h2d = r.kind == TransferKind::HostToDevice;
  void* dst = h2d ? gpu.data() : host.data();
  const void* src = h2d ? host.data() : gpu.data();
  const auto kind = h2d ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost;
  Event start, stop;
  for (int i = -1; i < r.repeats; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    check(cudaEventRecord(start, stream), "cudaEventRecord");
    check(cudaMemcpyAsync(dst, src, r.bytes, kind, stream), "cudaMemcpyAsync (host)");
    check(cudaEventRecord(stop, stream), "cudaEventRecord");
    wait_for(stream, deadline_s(r.bytes), "a host copy");
    const double wall = model::seconds_since(t0);
    if (i >= 0) result.seconds.push_back(pinned ? seconds_between(start, stop) : wall);
  }
  return result;
}

// A bidirectional copy is each GPU pushing `bytes` to the other at once, the peer's copy issued on
// a stream of its own and fenced into this GPU's timed span by events.
TransferResult peer_transfer(int device, cudaStream_t stream, const TransferRequest& r) {
  const bool both = r.kind == TransferKind::PeerBidirectional;
  enable_peer(device, r.peer);
  if (both) enable_peer(r.peer, device);
  DeviceBuffer remote(r.peer, r.bytes), remote2(r.peer, r.bytes);
  DeviceBuffer local(device, r.bytes), local2(device, r.bytes);
  check(cudaSetDevice(r.peer), "cudaSetDevice");
  cudaStream_t other = nullptr;
  check(cudaStreamCreateWithFlags(&other, cudaStreamNonBlocking), "cudaStreamCreate");
  TransferResult result;
  try {
    const Event other_done;
    check(cudaSetDevice(device), "cudaSetDevice");
    const Event start, stop;
    for (int i = -1; i < r.repeats; ++i) {
      check(cudaEventRecord(start, stream), "cudaEventRecord");
      if (r.kind == TransferKind::PeerRead)
        check(cudaMemcpyPeerAsync(local.data(), device, remote.data(), r.peer, r.bytes, stream),
              "cudaMemcpyPeerAsync (read)");
      else
        check(cudaMemcpyPeerAsync(remote.data(), r.peer, local.data(), device, r.bytes, stream),
              "cudaMemcpyPeerAsync (write)");
      if (both) {
        check(cudaStreamWaitEvent(other, start, 0), "cudaStreamWaitEvent");
        check(cudaSetDevice(r.peer), "cudaSetDevice");
        check(cudaMemcpyPeerAsync(local2.data(), device, remote2.data(), r.peer, r.bytes, other),
              "cudaMemcpyPeerAsync (the peer's push)");
        check(cudaEventRecord(other_done, other), "cudaEventRecord");
        check(cudaSetDevice(device), "cudaSetDevice");
        check(cudaStreamWaitEvent(stream, other_done, 0), "cudaStreamWaitEvent");
      }
      check(cudaEventRecord(stop, stream), "cudaEventRecord");
      wait_for(stream, deadline_s(2 * r.bytes), "a peer copy");
      if (i >= 0) result.seconds.push_back(seconds_between(start, stop));
    }
  } catch (...) {
    cudaStreamDestroy(other);
    throw;
  }
  cudaStreamDestroy(other);
  return result;
}

// A random cycle through the chain's elements (Sattolo's shuffle, fixed seed): no two neighbours
// in the order share a page more often than chance.
std::vector<std::uint64_t> random_cycle(std::uint64_t elements) {
  std::vector<std::uint64_t> order(elements), next(elements);
  std::iota(order.begin(), order.end(), 0);
  std::mt19937_64 rng(0x70656572ULL);
  for (std::uint64_t i = elements - 1; i > 0; --i)
    std::swap(order[i], order[std::uniform_int_distribution<std::uint64_t>(0, i - 1)(rng)]);
  for (std::uint64_t i = 0; i < elements; ++i) next[order[i]] = order[(i + 1) % elements];
  return next;
}

TransferResult peer_load(int device, cudaStream_t stream, const TransferRequest& r) {
  constexpr std::uint64_t kStride = 4096, kMinLoads = 4096;
  const std::uint64_t elements = r.bytes / kStride;
  if (elements < 2) throw Error(Error::Kind::BadRequest, "a peer load chain needs 8 KiB or more");
  enable_peer(device, r.peer);
  DeviceBuffer chain(r.peer, r.bytes);
  DeviceBuffer successors(device, elements * sizeof(std::uint64_t));
  DeviceBuffer sink(device, sizeof(std::uint64_t));
  const auto next = random_cycle(elements);
  check(cudaMemcpy(successors.data(), next.data(), elements * sizeof(std::uint64_t),
                   cudaMemcpyHostToDevice),
        "cudaMemcpy (chain order)");
  check(fill_pointer_chain(chain.data(), static_cast<const std::uint64_t*>(successors.data()),
                           elements, kStride, stream),
        "fill_pointer_chain (peer)");
  const auto start_address = reinterpret_cast<std::uint64_t>(chain.data());
  auto* out = static_cast<std::uint64_t*>(sink.data());
  const std::uint64_t loads = std::max(elements, kMinLoads);
  TransferResult result;
  Event start, stop;
  for (int i = -1; i < r.repeats; ++i) {
    check(cudaEventRecord(start, stream), "cudaEventRecord");
    check(launch_load_chain(start_address, loads, out, stream), "launch_load_chain");
    check(cudaEventRecord(stop, stream), "cudaEventRecord");
    wait_for(stream, deadline_s(0) + static_cast<double>(loads) * 1e-5, "a peer load chain");
    if (i >= 0) result.seconds.push_back(seconds_between(start, stop) / static_cast<double>(loads));
  }
  return result;
}

}  // namespace

PeerLink peer_link(int device, int peer) {
  PeerLink link;
  int value = 0;
  check(cudaDeviceCanAccessPeer(&value, device, peer), "cudaDeviceCanAccessPeer");
  link.access = value != 0;
  check(cudaDeviceGetP2PAttribute(&value, cudaDevP2PAttrNativeAtomicSupported, device, peer),
        "cudaDeviceGetP2PAttribute (atomics)");
  link.atomics = value != 0;
  check(cudaDeviceGetP2PAttribute(&value, cudaDevP2PAttrPerformanceRank, device, peer),
        "cudaDeviceGetP2PAttribute (rank)");
  link.performance_rank = value;
  const auto path = Nvml::instance().nvlinks_to(bus_id(device), bus_id(peer));
  if (!path.value) {
    link.nvlink_reason = path.reason;
  } else if (path.value->links > 0) {
    link.type = "NVLink";
    link.nvlink_count = path.value->links;
    link.nvlink_generation = path.value->generation;
  } else {
    link.type = "PCIe";
  }
  return link;
}

TransferResult run_transfer(int device, cudaStream_t stream, const TransferRequest& r) {
  if (r.bytes == 0 || r.repeats < 1)
    throw Error(Error::Kind::BadRequest, "a transfer needs bytes and repeats");
  if (r.kind == TransferKind::HostToDevice || r.kind == TransferKind::DeviceToHost)
    return host_transfer(device, stream, r);
  if (r.peer < 0 || r.peer == device)
    throw Error(Error::Kind::BadRequest, "a peer copy needs another GPU");
  if (r.kind == TransferKind::PeerLoad) return peer_load(device, stream, r);
  return peer_transfer(device, stream, r);
}

}  // namespace gputopo::device::cuda
