#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

// The seam between the host code built by the C++ compiler (hip_device.cpp) and the code hipcc
// builds into a module of its own (hip_runtime.hip -> libgputopo_hip_runtime.so: every HIP call and
// the kernels). Plain C++ types only. The module is loaded at run time, when an AMD GPU is opened:
// the binary starts, and runs --sim, without ROCm's libraries.
namespace gputopo::device::hip {

// A failure of the HIP side; hip_device.cpp turns it into device::Error of the same kind (the JSON
// headers behind device::Error do not build under hipcc 5.2).
struct Failure : std::runtime_error {
  enum class Kind { NoDriver, NoDevice, Measurement, OutOfMemory, Lost };
  Failure(Kind k, const std::string& what) : std::runtime_error(what), kind(k) {}
  Kind kind;
};

// hipDeviceProp_t, the fields gputopo reports.
struct Properties {
  std::string name;
  std::string arch;  // gcnArchName, e.g. "gfx90a:sramecc+:xnack-"
  int cc_major = 0, cc_minor = 0;
  int cus = 0, warp_size = 64;
  int max_threads_per_block = 0, max_threads_per_cu = 0;
  int regs_per_block = 0;
  std::uint64_t global_memory = 0, l2_bytes = 0, shared_per_block = 0, shared_per_cu = 0;
  std::uint64_t constant_bytes = 0;
  double clock_mhz = 0, memory_clock_mhz = 0;
  int bus_width_bits = 0;
  int pci_domain = 0, pci_bus = 0, pci_device = 0;
  int runtime_version = 0, driver_version = 0;
};

// Throws Failure(NoDriver) with HIP's reason when the runtime finds no driver.
int device_count();
Properties properties(int index);
void select_device(int index);

// The CU ids (HW_ID's SE, SH and CU fields) a census of many blocks met, ascending: logical SM i
// of the device interface is physical CU ids[i].
std::vector<int> cu_census(int cus);

// One chase as the kernel runs it: the array holds, at each chased element, the word index of
// the next one (built on the host, strided or random).
struct ChaseArray {
  int space = 0;  // device::Space
  std::vector<std::uint32_t> words;
  std::uint64_t offset_bytes = 0;  // region offset in the backend's array space
  std::uint32_t stride_words = 1;
  std::uint64_t elements = 0;
  std::uint32_t warmup_passes = 1;
  std::uint32_t recorded_loads = 0;
  bool chain = false;
  std::uint32_t segment_loads = 256;  // chain: loads between two clock reads
};

enum class Mode : int { Single = 0, SameThread = 1, TwoThreads = 2, TwoCus = 3 };

struct ChaseRun {
  ChaseArray a;
  ChaseArray b;  // unused for Single
  Mode mode = Mode::Single;
  std::uint32_t thread_a = 0, thread_b = 0;
  int cu_a = -1, cu_b = -1;       // physical CU ids, -1: any
  std::uint64_t flush_bytes = 0;  // a buffer written before the run, to start from cold caches
};

struct ChaseOutput {
  std::vector<std::uint32_t> cycles;   // per load, or per chain segment
  std::vector<std::uint64_t> indices;  // element index each timed load returned
  int cu = -1;                         // physical CU id of A's block
  double elapsed_ns = 0;
};

// Throws Failure(Measurement) when no block reached the wanted CU, (Lost) when a kernel fails.
ChaseOutput run_chase(const ChaseRun& run, bool record_indices);

struct StreamOutput {
  std::vector<double> seconds;  // per repeat
  std::uint32_t blocks = 0, threads = 0;
};
// kind: 0 read, 1 write, 2 copy; a buffer of `bytes` in device memory through L2-coherent loads.
StreamOutput run_stream(int kind, std::uint64_t bytes, std::uint32_t repeats, int cus);

// What the module exports, as one table (gputopo_hip_runtime_api, C linkage).
struct RuntimeApi {
  int (*device_count)();
  Properties (*properties)(int);
  void (*select_device)(int);
  std::vector<int> (*cu_census)(int);
  ChaseOutput (*run_chase)(const ChaseRun&, bool);
  StreamOutput (*run_stream)(int, std::uint64_t, std::uint32_t, int);
};
inline constexpr const char* kRuntimeApiSymbol = "gputopo_hip_runtime_api";

}  // namespace gputopo::device::hip
