// peer_reference: independent measurements of the links between the GPUs of a host, to hold
// `gputopo -d all`'s peer matrix and host links against. Shares no code with the backend, and
// measures each link the two ways nvbandwidth does: with the copy engines (cudaMemcpyPeerAsync,
// cudaMemcpyAsync) and with the SMs (a copy kernel that loads from or stores to the other GPU's
// memory), plus the load latency over the link (one thread chasing pointers through the peer's
// memory). Prints CSV rows: what,from,to,value,unit.
//   peer_reference [--bytes N] [--repeats R]
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <random>
#include <vector>

namespace {

using u64 = unsigned long long;

void check(cudaError_t rc, const char* what) {
  if (rc == cudaSuccess) return;
  std::fprintf(stderr, "peer_reference: %s: %s\n", what, cudaGetErrorString(rc));
  std::exit(1);
}

void row(const char* what, int from, int to, double value, const char* unit) {
  std::printf("%s,%d,%d,%.4g,%s\n", what, from, to, value, unit);
  std::fflush(stdout);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// Grid-stride copy of 16-byte vectors; src or dst lives on the other GPU.
__global__ void copy_kernel(const uint4* __restrict__ src, uint4* __restrict__ dst, u64 n) {
  const u64 stride = u64{gridDim.x} * blockDim.x;
  for (u64 i = u64{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += stride) dst[i] = src[i];
}

// One thread, `loads` dependent loads that bypass L1; the chain array holds the next address.
__global__ void chase(u64 start, u64 loads, u64* out) {
  u64 p = start;
  for (u64 i = 0; i < loads; ++i) asm volatile("ld.global.cg.u64 %0, [%0];" : "+l"(p)::"memory");
  out[0] = p;
}

struct Timer {
  cudaEvent_t a, b;
  Timer() {
    check(cudaEventCreate(&a), "cudaEventCreate");
    check(cudaEventCreate(&b), "cudaEventCreate");
  }
  ~Timer() {
    cudaEventDestroy(a);
    cudaEventDestroy(b);
  }
  double seconds() {
    check(cudaEventSynchronize(b), "cudaEventSynchronize");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, a, b), "cudaEventElapsedTime");
    return ms * 1e-3;
  }
};

// The median over `repeats` of `bytes` / the event-timed span of `issue(stream)`, in GB/s.
template <class Issue>
double gbps(int device, u64 bytes, int repeats, Issue&& issue) {
  check(cudaSetDevice(device), "cudaSetDevice");
  cudaStream_t s;
  check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreate");
  Timer t;
  std::vector<double> rates;
  issue(s);  // warm-up
  for (int r = 0; r < repeats; ++r) {
    check(cudaEventRecord(t.a, s), "cudaEventRecord");
    issue(s);
    check(cudaEventRecord(t.b, s), "cudaEventRecord");
    rates.push_back(double(bytes) / t.seconds() / 1e9);
  }
  check(cudaStreamDestroy(s), "cudaStreamDestroy");
  return median(rates);
}

void* alloc(int device, u64 bytes) {
  check(cudaSetDevice(device), "cudaSetDevice");
  void* p = nullptr;
  check(cudaMalloc(&p, bytes), "cudaMalloc");
  check(cudaMemset(p, 1, bytes), "cudaMemset");
  return p;
}

void release(int device, void* p) {
  check(cudaSetDevice(device), "cudaSetDevice");
  check(cudaFree(p), "cudaFree");
}

void enable_peer(int device, int peer) {
  check(cudaSetDevice(device), "cudaSetDevice");
  const cudaError_t rc = cudaDeviceEnablePeerAccess(peer, 0);
  if (rc != cudaErrorPeerAccessAlreadyEnabled) check(rc, "cudaDeviceEnablePeerAccess");
  cudaGetLastError();
}

int copy_blocks(int device) {
  cudaDeviceProp prop;
  check(cudaGetDeviceProperties(&prop, device), "cudaGetDeviceProperties");
  return prop.multiProcessorCount * 4;
}

// Nanoseconds per load of a chain through `bytes` of the peer's memory at a 4 KiB stride in a
// random order (a miss in every cache of the loading GPU, so each load crosses the link).
double peer_latency_ns(int device, int peer) {
  const u64 bytes = u64{256} << 20, stride = 4096, n = bytes / stride, loads = 20000;
  auto* chain = static_cast<char*>(alloc(peer, bytes));
  std::vector<u64> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin() + 1, order.end(), std::mt19937_64(42));
  const auto base = reinterpret_cast<u64>(chain);
  std::vector<u64> image(bytes / sizeof(u64));
  for (u64 i = 0; i < n; ++i)
    image[order[i] * stride / sizeof(u64)] = base + order[(i + 1) % n] * stride;
  check(cudaMemcpy(chain, image.data(), bytes, cudaMemcpyHostToDevice), "cudaMemcpy");
  check(cudaSetDevice(device), "cudaSetDevice");
  u64* out = nullptr;
  check(cudaMalloc(&out, sizeof(u64)), "cudaMalloc");
  Timer t;
  chase<<<1, 1>>>(base, 1000, out);
  std::vector<double> ns;
  for (int r = 0; r < 5; ++r) {
    check(cudaEventRecord(t.a), "cudaEventRecord");
    chase<<<1, 1>>>(base, loads, out);
    check(cudaEventRecord(t.b), "cudaEventRecord");
    ns.push_back(t.seconds() * 1e9 / double(loads));
  }
  check(cudaFree(out), "cudaFree");
  release(peer, chain);
  return median(ns);
}

void peer_pair(int i, int j, u64 bytes, int repeats) {
  int can = 0;
  check(cudaDeviceCanAccessPeer(&can, i, j), "cudaDeviceCanAccessPeer");
  row("peer.access", i, j, can, "bool");
  if (!can) return;
  // Peer access both ways before any copy: without it cudaMemcpyPeerAsync is staged through the
  // host (38 GB/s instead of 380 between two H100 on NVLink 4).
  enable_peer(i, j);
  enable_peer(j, i);
  void* local = alloc(i, bytes);
  void* local2 = alloc(i, bytes);
  void* remote = alloc(j, bytes);
  void* remote2 = alloc(j, bytes);
  const u64 n = bytes / sizeof(uint4);
  const int blocks = copy_blocks(i);
  row("peer.ceReadGBps", i, j,
      gbps(i, bytes, repeats,
           [&](cudaStream_t s) {
             check(cudaMemcpyPeerAsync(local, i, remote, j, bytes, s), "cudaMemcpyPeerAsync");
           }),
      "GB/s");
  row("peer.ceWriteGBps", i, j,
      gbps(i, bytes, repeats,
           [&](cudaStream_t s) {
             check(cudaMemcpyPeerAsync(remote, j, local, i, bytes, s), "cudaMemcpyPeerAsync");
           }),
      "GB/s");
  // Both directions at once: the second copy runs on a stream of the peer, fenced into the timed
  // span of the first by events (an event is recorded only on a stream of its own device).
  cudaEvent_t go, done;
  check(cudaSetDevice(i), "cudaSetDevice");
  check(cudaEventCreateWithFlags(&go, cudaEventDisableTiming), "cudaEventCreate");
  cudaStream_t other;
  check(cudaSetDevice(j), "cudaSetDevice");
  check(cudaStreamCreateWithFlags(&other, cudaStreamNonBlocking), "cudaStreamCreate");
  check(cudaEventCreateWithFlags(&done, cudaEventDisableTiming), "cudaEventCreate");
  row("peer.ceBidirectionalGBps", i, j,
      gbps(i, 2 * bytes, repeats,
           [&](cudaStream_t s) {
             check(cudaEventRecord(go, s), "cudaEventRecord");
             check(cudaStreamWaitEvent(other, go, 0), "cudaStreamWaitEvent");
             check(cudaSetDevice(j), "cudaSetDevice");
             check(cudaMemcpyPeerAsync(local2, i, remote2, j, bytes, other), "cudaMemcpyPeerAsync");
             check(cudaEventRecord(done, other), "cudaEventRecord");
             check(cudaSetDevice(i), "cudaSetDevice");
             check(cudaMemcpyPeerAsync(remote, j, local, i, bytes, s), "cudaMemcpyPeerAsync");
             check(cudaStreamWaitEvent(s, done, 0), "cudaStreamWaitEvent");
           }),
      "GB/s");
  row("peer.smReadGBps", i, j,
      gbps(i, bytes, repeats,
           [&](cudaStream_t s) {
             copy_kernel<<<blocks, 512, 0, s>>>(static_cast<const uint4*>(remote),
                                                static_cast<uint4*>(local), n);
           }),
      "GB/s");
  row("peer.smWriteGBps", i, j,
      gbps(i, bytes, repeats,
           [&](cudaStream_t s) {
             copy_kernel<<<blocks, 512, 0, s>>>(static_cast<const uint4*>(local),
                                                static_cast<uint4*>(remote), n);
           }),
      "GB/s");
  check(cudaGetLastError(), "copy_kernel");
  row("peer.loadLatencyNs", i, j, peer_latency_ns(i, j), "ns");
  check(cudaEventDestroy(go), "cudaEventDestroy");
  check(cudaSetDevice(j), "cudaSetDevice");
  check(cudaStreamDestroy(other), "cudaStreamDestroy");
  check(cudaEventDestroy(done), "cudaEventDestroy");
  release(i, local);
  release(i, local2);
  release(j, remote);
  release(j, remote2);
}

void host_links(int i, u64 bytes, int repeats) {
  void* dev = alloc(i, bytes);
  void* host = nullptr;
  check(cudaMallocHost(&host, bytes), "cudaMallocHost");
  std::memset(host, 1, bytes);
  row("host.pinnedH2dGBps", i, -1,
      gbps(i, bytes, repeats,
           [&](cudaStream_t s) {
             check(cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, s), "cudaMemcpyAsync");
           }),
      "GB/s");
  row("host.pinnedD2hGBps", i, -1,
      gbps(i, bytes, repeats,
           [&](cudaStream_t s) {
             check(cudaMemcpyAsync(host, dev, bytes, cudaMemcpyDeviceToHost, s), "cudaMemcpyAsync");
           }),
      "GB/s");
  check(cudaFreeHost(host), "cudaFreeHost");
  release(i, dev);
}

}  // namespace

int main(int argc, char** argv) {
  u64 bytes = u64{256} << 20;
  int repeats = 10;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--bytes") && i + 1 < argc) bytes = std::strtoull(argv[++i], 0, 0);
    if (!std::strcmp(argv[i], "--repeats") && i + 1 < argc) repeats = std::atoi(argv[++i]);
  }
  int count = 0;
  check(cudaGetDeviceCount(&count), "cudaGetDeviceCount");
  std::printf("what,from,to,value,unit\n");
  row("host.gpuCount", -1, -1, count, "GPUs");
  for (int i = 0; i < count; ++i) host_links(i, bytes, repeats);
  for (int i = 0; i < count; ++i)
    for (int j = 0; j < count; ++j)
      if (i != j) peer_pair(i, j, bytes, repeats);
  return 0;
}
