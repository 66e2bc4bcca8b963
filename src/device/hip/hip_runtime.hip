// Every HIP call of the backend and its kernels; built by hipcc for gfx908/gfx90a (docs/amd.md).
#include <hip/hip_runtime.h>

#include <algorithm>
#include <set>
#include <string>

#include "device/hip/hip_api.hpp"

namespace gputopo::device::hip {
namespace {

void check(hipError_t e, const char* what, Failure::Kind kind = Failure::Kind::Lost) {
  if (e == hipSuccess) return;
  throw Failure(kind, std::string("HIP: ") + what + ": " + hipGetErrorString(e));
}

// HW_ID (hwreg 4, bits 0..31): CU_ID 11:8, SH_ID 12, SE_ID from 13. The bits from 8 up name one CU.
__device__ int physical_cu() { return (__builtin_amdgcn_s_getreg(4 | (31 << 11)) >> 8) & 0xff; }

constexpr int kL1 = 0, kL2 = 1, kConstant = 4, kShared = 5;  // device::Space

// The block's dynamic LDS: a shared-space chase copies its array here.
extern __shared__ std::uint32_t dynamic_lds[];

// One dependent load in `space`; the wait is inside, so the next clock read follows the data.
template <int Space>
__device__ std::uint32_t load(const std::uint32_t* base, const std::uint32_t* lds,
                              std::uint32_t j) {
  std::uint32_t v;
  if constexpr (Space == kShared) {
    // A direct index into the LDS array (ds_read_b32); the empty asm keeps the load between the
    // clock reads around it.
    (void)lds;
    asm volatile("" : "+v"(j));
    v = dynamic_lds[j];
    asm volatile("s_waitcnt lgkmcnt(0)" : "+v"(v));
  } else if constexpr (Space == kConstant) {
    // A scalar load through the scalar L1: the index is uniform over the wavefront.
    const std::uint32_t* p = base + __builtin_amdgcn_readfirstlane(j);
    asm volatile("s_load_dword %0, %1, 0x0\n\ts_waitcnt lgkmcnt(0)" : "=s"(v) : "s"(p) : "memory");
  } else if constexpr (Space == kL2) {
    // glc: served by the L2, past the vector L1.
    asm volatile("global_load_dword %0, %1, off glc\n\ts_waitcnt vmcnt(0)"
                 : "=v"(v)
                 : "v"(base + j)
                 : "memory");
  } else {
    asm volatile("global_load_dword %0, %1, off\n\ts_waitcnt vmcnt(0)"
                 : "=v"(v)
                 : "v"(base + j)
                 : "memory");
  }
  return v;
}

struct Chase {
  const std::uint32_t* base;
  std::uint64_t elements;
  std::uint32_t stride_words;
  std::uint32_t warmup_passes;
  std::uint32_t recorded_loads;
  int space;
  bool chain;
  std::uint32_t segment_loads;
};

template <int Space>
__device__ std::uint32_t warm(const Chase& c, const std::uint32_t* lds, std::uint32_t j) {
  const std::uint64_t loads = c.elements * c.warmup_passes;
  for (std::uint64_t i = 0; i < loads; ++i) j = load<Space>(c.base, lds, j);
  return j;
}

template <int Space>
__device__ void timed(const Chase& c, const std::uint32_t* lds, std::uint32_t j,
                      std::uint32_t* cycles, std::uint64_t* indices, bool lane0) {
  if (c.chain) {
    for (std::uint32_t s = 0; s < c.recorded_loads / c.segment_loads; ++s) {
      const std::uint64_t t0 = __builtin_amdgcn_s_memtime();
      for (std::uint32_t i = 0; i < c.segment_loads; ++i) j = load<Space>(c.base, lds, j);
      const std::uint64_t t1 = __builtin_amdgcn_s_memtime();
      if (lane0) cycles[s] = static_cast<std::uint32_t>(t1 - t0);
    }
    return;
  }
  for (std::uint32_t k = 0; k < c.recorded_loads; ++k) {
    const std::uint64_t t0 = __builtin_amdgcn_s_memtime();
    j = load<Space>(c.base, lds, j);
    const std::uint64_t t1 = __builtin_amdgcn_s_memtime();
    if (lane0) {
      cycles[k] = static_cast<std::uint32_t>(t1 - t0);
      if (indices) indices[k] = j / c.stride_words;
    }
  }
}

__device__ std::uint32_t warm_any(const Chase& c, const std::uint32_t* lds, std::uint32_t j) {
  switch (c.space) {
    case kShared:
      return warm<kShared>(c, lds, j);
    case kConstant:
      return warm<kConstant>(c, lds, j);
    case kL2:
      return warm<kL2>(c, lds, j);
    default:
      return warm<kL1>(c, lds, j);
  }
}

__device__ void timed_any(const Chase& c, const std::uint32_t* lds, std::uint32_t j,
                          std::uint32_t* cycles, std::uint64_t* indices, bool lane0) {
  switch (c.space) {
    case kShared:
      return timed<kShared>(c, lds, j, cycles, indices, lane0);
    case kConstant:
      return timed<kConstant>(c, lds, j, cycles, indices, lane0);
    case kL2:
      return timed<kL2>(c, lds, j, cycles, indices, lane0);
    default:
      return timed<kL1>(c, lds, j, cycles, indices, lane0);
  }
}

struct Job {
  Chase a, b;
  int mode;
  std::uint32_t thread_a, thread_b;
  int cu_a, cu_b;
  std::uint32_t lds_words_a;  // A's array copied to LDS (shared space), else 0
};

// Many blocks start; the one on the wanted CU claims the run (claims[0] for A, claims[1] for B in
// two-CU runs). A timed wavefront runs all its lanes on one address; lane 0 records.
__global__ void chase_kernel(Job job, std::uint32_t* cycles, std::uint64_t* indices, int* claims,
                             int* ran_on, volatile int* flags) {
  std::uint32_t* lds = dynamic_lds;
  __shared__ int role;
  const int cu = physical_cu();
  if (threadIdx.x == 0) {
    role = -1;
    if ((job.cu_a < 0 || cu == job.cu_a) && atomicCAS(&claims[0], 0, 1) == 0) role = 0;
    if (role < 0 && job.mode == 3 && cu == job.cu_b && atomicCAS(&claims[1], 0, 1) == 0) role = 1;
    if (role == 0) ran_on[0] = cu;
  }
  __syncthreads();
  if (role < 0) return;
  const std::uint32_t ws = warpSize;
  for (std::uint32_t i = threadIdx.x; i < job.lds_words_a; i += blockDim.x) lds[i] = job.a.base[i];
  __syncthreads();
  const std::uint32_t wave = threadIdx.x / ws;
  const bool lane0 = threadIdx.x % ws == 0;
  const std::uint32_t wave_a = job.thread_a / ws, wave_b = job.thread_b / ws;
  if (job.mode == 3) {
    if (role == 0 && wave == 0) {
      warm_any(job.a, lds, 0);
      if (lane0) __atomic_store_n(&flags[0], 1, __ATOMIC_RELEASE);
      while (__atomic_load_n(&flags[1], __ATOMIC_ACQUIRE) == 0) __builtin_amdgcn_s_sleep(2);
      timed_any(job.a, lds, 0, cycles, indices, lane0);
    } else if (role == 1 && wave == 0) {
      while (__atomic_load_n(&flags[0], __ATOMIC_ACQUIRE) == 0) __builtin_amdgcn_s_sleep(2);
      warm_any(job.b, lds, 0);
      if (lane0) __atomic_store_n(&flags[1], 1, __ATOMIC_RELEASE);
    }
    return;
  }
  if (job.mode == 2) {
    if (wave == wave_a) warm_any(job.a, lds, 0);
    __syncthreads();
    if (wave == wave_b) warm_any(job.b, lds, 0);
    __syncthreads();
    if (wave == wave_a) timed_any(job.a, lds, 0, cycles, indices, lane0);
    return;
  }
  if (wave != wave_a) return;
  warm_any(job.a, lds, 0);
  if (job.mode == 1) warm_any(job.b, lds, 0);
  timed_any(job.a, lds, 0, cycles, indices, lane0);
}

__global__ void flush_kernel(std::uint32_t* p, std::uint64_t words) {
  for (std::uint64_t i = blockIdx.x * blockDim.x + threadIdx.x; i < words;
       i += static_cast<std::uint64_t>(gridDim.x) * blockDim.x)
    p[i] = static_cast<std::uint32_t>(i);
}

__global__ void census_kernel(int* seen) {
  if (threadIdx.x == 0) seen[physical_cu()] = 1;
}

__global__ void stream_kernel(int kind, const uint4* src, uint4* dst, std::uint64_t n,
                              unsigned* sink) {
  uint4 acc{0, 0, 0, 0};
  for (std::uint64_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += static_cast<std::uint64_t>(gridDim.x) * blockDim.x) {
    if (kind == 1) {
      dst[i] = uint4{static_cast<unsigned>(i), 0, 0, 0};
    } else {
      const uint4 v = src[i];
      if (kind == 2) dst[i] = v;
      acc.x ^= v.x;
    }
  }
  if (acc.x == 0x9e3779b9u) sink[0] = acc.x;  // keeps the loads
}

// Device memory freed at the end of a scope.
struct Buffer {
  void* p = nullptr;
  explicit Buffer(std::uint64_t bytes) {
    if (bytes) check(hipMalloc(&p, bytes), "hipMalloc", Failure::Kind::OutOfMemory);
  }
  ~Buffer() {
    if (p) (void)hipFree(p);
  }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  template <class T>
  T* as() const {
    return static_cast<T*>(p);
  }
};

Chase to_chase(const ChaseArray& a, const Buffer& b) {
  const auto* base = reinterpret_cast<const std::uint32_t*>(b.as<char>() + a.offset_bytes);
  return {base, a.elements, a.stride_words, a.warmup_passes, a.recorded_loads, a.space, a.chain,
          a.segment_loads};
}

void upload(const ChaseArray& a, const Buffer& b) {
  check(hipMemcpy(b.as<char>() + a.offset_bytes, a.words.data(), a.words.size() * 4,
                  hipMemcpyHostToDevice),
        "copying a chase array");
}

}  // namespace

int device_count() {
  int n = 0;
  if (hipError_t e = hipGetDeviceCount(&n); e != hipSuccess)
    throw Failure(Failure::Kind::NoDriver,
                  std::string("no usable AMD GPU driver: ") + hipGetErrorString(e));
  return n;
}

Properties properties(int index) {
  hipDeviceProp_t p{};
  check(hipGetDeviceProperties(&p, index), "hipGetDeviceProperties", Failure::Kind::NoDevice);
  Properties o;
  o.name = p.name;
  o.arch = p.gcnArchName;
  o.cc_major = p.major;
  o.cc_minor = p.minor;
  o.cus = p.multiProcessorCount;
  o.warp_size = p.warpSize;
  o.max_threads_per_block = p.maxThreadsPerBlock;
  o.max_threads_per_cu = p.maxThreadsPerMultiProcessor;
  o.regs_per_block = p.regsPerBlock;
  o.global_memory = p.totalGlobalMem;
  o.l2_bytes = static_cast<std::uint64_t>(p.l2CacheSize);
  o.shared_per_block = p.sharedMemPerBlock;
  o.shared_per_cu = p.maxSharedMemoryPerMultiProcessor;
  o.constant_bytes = p.totalConstMem;
  o.clock_mhz = p.clockRate / 1000.0;
  o.memory_clock_mhz = p.memoryClockRate / 1000.0;
  o.bus_width_bits = p.memoryBusWidth;
  o.pci_domain = p.pciDomainID;
  o.pci_bus = p.pciBusID;
  o.pci_device = p.pciDeviceID;
  (void)hipRuntimeGetVersion(&o.runtime_version);
  (void)hipDriverGetVersion(&o.driver_version);
  return o;
}

void select_device(int index) {
  check(hipSetDevice(index), "hipSetDevice", Failure::Kind::NoDevice);
}

std::vector<int> cu_census(int cus) {
  Buffer seen(256 * sizeof(int));
  check(hipMemset(seen.p, 0, 256 * sizeof(int)), "hipMemset");
  hipLaunchKernelGGL(census_kernel, dim3(std::max(cus, 1) * 16), dim3(64), 0, 0, seen.as<int>());
  check(hipDeviceSynchronize(), "the CU census kernel");
  int host[256] = {};
  check(hipMemcpy(host, seen.p, sizeof host, hipMemcpyDeviceToHost), "reading the CU census");
  std::vector<int> ids;
  for (int i = 0; i < 256; ++i)
    if (host[i]) ids.push_back(i);
  return ids;
}

ChaseOutput run_chase(const ChaseRun& run, bool record_indices) {
  const bool two = run.mode != Mode::Single;
  const std::uint64_t a_bytes = run.a.offset_bytes + run.a.words.size() * 4;
  const std::uint64_t b_bytes = two ? run.b.offset_bytes + run.b.words.size() * 4 : 0;
  Buffer a(a_bytes), b(b_bytes), flush(run.flush_bytes);
  upload(run.a, a);
  if (two) upload(run.b, b);
  const std::uint32_t outputs = std::max<std::uint32_t>(run.a.recorded_loads, 1);
  Buffer cycles(outputs * 4ull), indices(record_indices ? outputs * 8ull : 0), control(64);
  check(hipMemset(control.p, 0, 64), "hipMemset");
  if (run.flush_bytes) {
    hipLaunchKernelGGL(flush_kernel, dim3(1024), dim3(256), 0, 0, flush.as<std::uint32_t>(),
                       run.flush_bytes / 4);
    check(hipGetLastError(), "the cache flush kernel");
  }
  Job job{};
  job.a = to_chase(run.a, a);
  if (two) job.b = to_chase(run.b, b);
  job.mode = static_cast<int>(run.mode);
  job.thread_a = run.thread_a;
  job.thread_b = run.thread_b;
  job.cu_a = run.cu_a;
  job.cu_b = run.cu_b;
  std::uint32_t lds_bytes = 0;
  if (run.a.space == kShared) {
    job.lds_words_a = static_cast<std::uint32_t>(run.a.words.size());
    lds_bytes = job.lds_words_a * 4;
  }
  const std::uint32_t threads =
      std::max<std::uint32_t>(256, (std::max(run.thread_a, run.thread_b) / 64 + 1) * 64);
  int* ctl = control.as<int>();
  hipEvent_t start, stop;
  check(hipEventCreate(&start), "hipEventCreate");
  check(hipEventCreate(&stop), "hipEventCreate");
  check(hipEventRecord(start), "hipEventRecord");
  hipLaunchKernelGGL(chase_kernel, dim3(1024), dim3(threads), lds_bytes, 0, job,
                     cycles.as<std::uint32_t>(),
                     record_indices ? indices.as<std::uint64_t>() : nullptr, ctl, ctl + 4, ctl + 8);
  check(hipGetLastError(), "launching the chase kernel");
  check(hipEventRecord(stop), "hipEventRecord");
  check(hipEventSynchronize(stop), "the chase kernel");
  float ms = 0;
  (void)hipEventElapsedTime(&ms, start, stop);
  (void)hipEventDestroy(start);
  (void)hipEventDestroy(stop);
  int host_ctl[16] = {};
  check(hipMemcpy(host_ctl, ctl, sizeof host_ctl, hipMemcpyDeviceToHost), "reading the claims");
  if (host_ctl[0] == 0 || (run.mode == Mode::TwoCus && host_ctl[1] == 0))
    throw Failure(Failure::Kind::Measurement,
                  "no block of the chase kernel ran on the requested CU (" +
                      std::to_string(run.cu_a) +
                      (run.mode == Mode::TwoCus ? ", " + std::to_string(run.cu_b) : "") + ")");
  ChaseOutput out;
  out.cu = host_ctl[4];
  out.elapsed_ns = ms * 1e6;
  const std::uint32_t n = run.a.chain ? run.a.recorded_loads / run.a.segment_loads : run.a.recorded_loads;
  out.cycles.resize(n);
  check(hipMemcpy(out.cycles.data(), cycles.p, n * 4ull, hipMemcpyDeviceToHost), "reading cycles");
  if (record_indices) {
    out.indices.resize(n);
    check(hipMemcpy(out.indices.data(), indices.p, n * 8ull, hipMemcpyDeviceToHost),
          "reading indices");
  }
  return out;
}

StreamOutput run_stream(int kind, std::uint64_t bytes, std::uint32_t repeats, int cus) {
  const std::uint64_t n = bytes / 16;
  Buffer src(kind == 1 ? 0 : bytes), dst(kind == 0 ? 0 : bytes), sink(64);
  StreamOutput out;
  out.blocks = static_cast<std::uint32_t>(std::max(cus, 1) * 8);
  out.threads = 256;
  hipEvent_t start, stop;
  check(hipEventCreate(&start), "hipEventCreate");
  check(hipEventCreate(&stop), "hipEventCreate");
  for (std::uint32_t r = 0; r <= repeats; ++r) {
    check(hipEventRecord(start), "hipEventRecord");
    hipLaunchKernelGGL(stream_kernel, dim3(out.blocks), dim3(out.threads), 0, 0, kind,
                       src.as<const uint4>(), dst.as<uint4>(), n, sink.as<unsigned>());
    check(hipGetLastError(), "launching the stream kernel");
    check(hipEventRecord(stop), "hipEventRecord");
    check(hipEventSynchronize(stop), "the stream kernel");
    float ms = 0;
    (void)hipEventElapsedTime(&ms, start, stop);
    if (r > 0) out.seconds.push_back(ms / 1e3);  // the first launch warms up
  }
  (void)hipEventDestroy(start);
  (void)hipEventDestroy(stop);
  return out;
}

}  // namespace gputopo::device::hip

extern "C" __attribute__((visibility("default"))) const gputopo::device::hip::RuntimeApi*
gputopo_hip_runtime_api() {
  using namespace gputopo::device::hip;
  static const RuntimeApi api{&device_count, &properties, &select_device,
                              &cu_census,    &run_chase,  &run_stream};
  return &api;
}
