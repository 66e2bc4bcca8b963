// What the driver's bookkeeping costs a run: each NVML query gputopo makes (with and without a
// CUDA context on the device), NVML's start and shutdown, and the CUDA context's creation,
// allocations and teardown.
//   nvcc -std=c++17 -O2 -o nvml-cost nvml-cost.cu -ldl
//   ./nvml-cost [repeats (200)] > costs.txt
// Prints "what,median_us,mean_us,max_us" rows.
#include <cuda_runtime.h>
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <numeric>
#include <string>
#include <vector>

#include "cuda_check.cuh"

namespace {

using Clock = std::chrono::steady_clock;
using Handle = void*;
struct Proc {
  unsigned pid;
  unsigned long long used;
  unsigned gi, ci;
};
struct Sample {
  unsigned pid;
  unsigned long long ts;
  unsigned sm, mem, enc, dec;
};

template <class F>
F sym(void* lib, const char* name) {
  void* p = dlsym(lib, name);
  if (p == nullptr) {
    std::fprintf(stderr, "missing %s\n", name);
    std::exit(1);
  }
  return reinterpret_cast<F>(p);
}

double us_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
}

void report(const std::string& what, std::vector<double> us) {
  std::sort(us.begin(), us.end());
  const double mean = std::accumulate(us.begin(), us.end(), 0.0) / us.size();
  std::printf("%s,%.1f,%.1f,%.1f\n", what.c_str(), us[us.size() / 2], mean, us.back());
}

void time_each(const std::string& what, int repeats, const std::function<void()>& f) {
  std::vector<double> us;
  for (int i = 0; i < repeats; ++i) {
    const auto t0 = Clock::now();
    f();
    us.push_back(us_since(t0));
  }
  report(what, us);
}

}  // namespace

int main(int argc, char** argv) {
  const int repeats = argc > 1 ? std::atoi(argv[1]) : 200;
  auto t0 = Clock::now();
  void* lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) return 1;
  report("nvml dlopen", {us_since(t0)});
  t0 = Clock::now();
  sym<int (*)()>(lib, "nvmlInit_v2")();
  report("nvmlInit", {us_since(t0)});
  auto by_pci = sym<int (*)(const char*, Handle*)>(lib, "nvmlDeviceGetHandleByPciBusId_v2");
  auto by_index = sym<int (*)(unsigned, Handle*)>(lib, "nvmlDeviceGetHandleByIndex_v2");
  auto clock = sym<int (*)(Handle, int, unsigned*)>(lib, "nvmlDeviceGetClockInfo");
  auto compute =
      sym<int (*)(Handle, unsigned*, Proc*)>(lib, "nvmlDeviceGetComputeRunningProcesses_v3");
  auto graphics =
      sym<int (*)(Handle, unsigned*, Proc*)>(lib, "nvmlDeviceGetGraphicsRunningProcesses_v3");
  auto util = sym<int (*)(Handle, Sample*, unsigned*, unsigned long long)>(
      lib, "nvmlDeviceGetProcessUtilization");
  auto events =
      sym<int (*)(Handle, unsigned long long*)>(lib, "nvmlDeviceGetCurrentClocksEventReasons");
  auto ecc =
      sym<int (*)(Handle, int, int, unsigned long long*)>(lib, "nvmlDeviceGetTotalEccErrors");

  char bus[64] = {};
  t0 = Clock::now();
  CHECK(cudaDeviceGetPCIBusId(bus, sizeof bus, 0));
  report("cuda init to pci bus id", {us_since(t0)});
  Handle d = nullptr;
  by_index(0, &d);
  const auto queries = [&](const std::string& when) {
    Handle h = nullptr;
    time_each(when + " handle by pci", repeats, [&] { by_pci(bus, &h); });
    time_each(when + " handle by index", repeats, [&] { by_index(0, &h); });
    unsigned mhz = 0;
    time_each(when + " sm clock", repeats, [&] { clock(d, 1, &mhz); });
    std::vector<Proc> procs(16);
    time_each(when + " compute processes", repeats, [&] {
      unsigned n = 16;
      compute(d, &n, procs.data());
    });
    time_each(when + " graphics processes", repeats, [&] {
      unsigned n = 16;
      graphics(d, &n, procs.data());
    });
    std::vector<Sample> samples(64);
    time_each(when + " process utilization", repeats, [&] {
      unsigned n = 64;
      util(d, samples.data(), &n, 0);
    });
    unsigned long long v = 0;
    time_each(when + " clock events", repeats, [&] { events(d, &v); });
    time_each(when + " ecc uncorrected", repeats, [&] { ecc(d, 1, 0, &v); });
  };
  queries("no context:");
  t0 = Clock::now();
  CHECK(cudaFree(nullptr));
  report("context creation", {us_since(t0)});
  queries("context:");
  for (const std::size_t mib : {64, 1024, 8192}) {
    std::vector<double> alloc, release;
    for (int i = 0; i < 5; ++i) {
      void* p = nullptr;
      t0 = Clock::now();
      CHECK(cudaMalloc(&p, mib << 20));
      alloc.push_back(us_since(t0));
      t0 = Clock::now();
      CHECK(cudaFree(p));
      release.push_back(us_since(t0));
    }
    report("cudaMalloc " + std::to_string(mib) + " MiB", alloc);
    report("cudaFree " + std::to_string(mib) + " MiB", release);
  }
  t0 = Clock::now();
  CHECK(cudaDeviceReset());
  report("context teardown (cudaDeviceReset)", {us_since(t0)});
  t0 = Clock::now();
  sym<int (*)()>(lib, "nvmlShutdown")();
  report("nvmlShutdown", {us_since(t0)});
  return 0;
}
