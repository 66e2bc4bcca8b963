#include <dlfcn.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <numeric>
#include <random>

#include "device/hip/hip_api.hpp"
#include "device/hip/hip_backend.hpp"
#include "device/hip/rocm_smi.hpp"

namespace gputopo::device::hip {
namespace {

using model::Attribute;

constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;

Error to_error(const Failure& f) {
  switch (f.kind) {
    case Failure::Kind::NoDriver:
      return Error(Error::Kind::NoDriver, f.what());
    case Failure::Kind::NoDevice:
      return Error(Error::Kind::NoDevice, f.what());
    case Failure::Kind::Measurement:
      return Error(Error::Kind::Measurement, f.what());
    case Failure::Kind::OutOfMemory:
      return Error(Error::Kind::OutOfMemory, f.what());
    case Failure::Kind::Lost:
      break;
  }
  return Error(Error::Kind::Lost, f.what());
}

template <class F>
auto guarded(F&& f) {
  try {
    return f();
  } catch (const Failure& e) {
    throw to_error(e);
  }
}

[[noreturn]] void bad(const std::string& what) { throw Error(Error::Kind::BadRequest, what); }

// The directory of this executable, where the runtime module is installed beside it.
std::string exe_dir() {
  char path[4096] = {};
  const ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
  if (n <= 0) return ".";
  std::string p(path, static_cast<std::size_t>(n));
  return p.substr(0, p.find_last_of('/'));
}

// The module hipcc built (libgputopo_hip_runtime.so), loaded once, on the first AMD GPU opened:
// from beside the executable (the build tree) or from the installed ../lib/gputopo, never from a
// path of the machine that built it.
const RuntimeApi& runtime() {
  static const RuntimeApi* api = [] {
    std::string why;
    const std::string dir = exe_dir();
    for (const std::string& path :
         {dir + "/libgputopo_hip_runtime.so", dir + "/../lib/gputopo/libgputopo_hip_runtime.so"}) {
      void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (!lib) {
        const char* e = dlerror();
        why = e ? e : path;
        continue;
      }
      using Entry = const RuntimeApi* (*)();
      if (auto entry = reinterpret_cast<Entry>(dlsym(lib, kRuntimeApiSymbol))) return entry();
      why = path + " has no " + kRuntimeApiSymbol;
    }
    throw Error(Error::Kind::NoDriver,
                "the HIP backend cannot load its runtime module (" + why +
                    "): install ROCm's HIP runtime (libamdhip64), or use --sim PRESET");
  }();
  return *api;
}

// The chased array as the kernel reads it: at each element, the word index of the next one.
ChaseArray make_array(const ChaseRequest& r, const DeviceInfo& info, std::uint64_t seed) {
  if (r.stride_bytes == 0 || r.stride_bytes % 4 != 0)
    bad(fmt::format("chase: stride {} B is not a positive multiple of 4 B", r.stride_bytes));
  if (r.array_bytes < r.stride_bytes) bad("chase: the array is smaller than one stride");
  if (r.space == Space::Texture || r.space == Space::ReadOnly)
    bad(
        fmt::format("chase: the HIP backend has no {} space (AMD: l1, l2, constant for scalar "
                    "loads, shared for the LDS)",
                    to_string(r.space)));
  if (r.space == Space::Shared && r.array_bytes > info.shared_per_block_bytes())
    bad(fmt::format("chase: {} B exceed the {} B of LDS a block may use", r.array_bytes,
                    info.shared_per_block_bytes()));
  if (auto why = chain_problem(r)) bad(*why);
  if (warmup_of(r) != Warmup::Load) bad("chase: the HIP backend warms up with loads only");
  ChaseArray a;
  a.space = static_cast<int>(r.space);
  a.stride_words = r.stride_bytes / 4;
  a.elements = r.array_bytes / r.stride_bytes;
  if (a.elements > (std::uint64_t{1} << 30))
    bad("chase: more than 2^30 elements; the word index of a 4 GiB array does not fit");
  a.words.assign(a.elements * a.stride_words, 0);
  if (auto why = sequence_problem(r)) bad(fmt::format("chase: {}", *why));
  std::vector<std::uint64_t> order(a.elements);
  std::iota(order.begin(), order.end(), 0);
  // A sequence links only the elements it lists, in its order; the others are never loaded.
  if (r.pattern == Pattern::Sequence) order = r.sequence;
  if (r.pattern == Pattern::Random && a.elements > 1) {
    std::mt19937_64 rng(seed);
    for (std::uint64_t i = a.elements - 1; i > 0; --i)
      std::swap(order[i], order[std::uniform_int_distribution<std::uint64_t>(0, i - 1)(rng)]);
  }
  for (std::uint64_t i = 0; i < order.size(); ++i)
    a.words[order[i] * a.stride_words] =
        static_cast<std::uint32_t>(order[(i + 1) % order.size()] * a.stride_words);
  a.offset_bytes = r.space == Space::Shared ? 0 : region_offset(r);
  a.warmup_passes = r.warmup_passes;
  a.recorded_loads = r.recorded_loads;
  a.chain = chain_timed(r);
  a.segment_loads = segment_loads(r);
  return a;
}

class HipDevice final : public Device {
 public:
  HipDevice(DeviceInfo info, std::vector<int> cu_ids)
      : info_(std::move(info)), cu_ids_(std::move(cu_ids)) {}

  const DeviceInfo& info() const override { return info_; }

  ChaseBatchResult chase(const ChaseBatch& batch) override {
    if (batch.carveout_percent)
      bad("chase: AMD GPUs have no L1/shared carve-out (the LDS is separate)");
    ChaseBatchResult out;
    for (std::size_t i = 0; i < batch.requests.size(); ++i) {
      const ChaseRequest& r = batch.requests[i];
      ChaseRun run;
      run.a = make_array(r, info_, ++calls_);
      run.cu_a = cu(r.sm);
      run.flush_bytes = flush_bytes(r.space);
      out.results.push_back(run_one(run, r.record_indices));
    }
    out.conditions.l2_fetch_limit_bytes = std::nullopt;
    out.conditions.elapsed_ns = elapsed_ns_;
    out.conditions.elapsed_cycles = elapsed_ns_ * info_.sm_clock_max_mhz() / 1e3;
    return out;
  }

  ChaseBatchResult interfere(const InterferenceBatch& batch) override {
    if (batch.carveout_percent) bad("interfere: AMD GPUs have no L1/shared carve-out");
    ChaseBatchResult out;
    for (const auto& r : batch.requests) {
      ChaseRun run;
      run.a = make_array(r.a, info_, ++calls_);
      run.b = make_array(r.b, info_, ++calls_);
      if (r.b.space == Space::Shared) bad("interfere: B cannot chase the LDS (A's array is there)");
      using P = InterferenceRequest::Placement;
      run.mode = r.placement == P::SameThread   ? Mode::SameThread
                 : r.placement == P::TwoThreads ? Mode::TwoThreads
                                                : Mode::TwoCus;
      run.thread_a = r.thread_a;
      run.thread_b = r.thread_b;
      if (run.mode == Mode::TwoThreads &&
          std::max(r.thread_a, r.thread_b) >=
              static_cast<std::uint32_t>(info_.max_threads_per_block()))
        bad("interfere: a thread lies outside the block");
      run.cu_a = cu(r.sm);
      if (run.mode == Mode::TwoCus) {
        if (r.sm < 0 || !r.sm_b || *r.sm_b == r.sm) bad("interfere: two CUs need sm and sm_b");
        run.cu_b = cu(*r.sm_b);
      }
      run.flush_bytes = flush_bytes(r.a.space);
      out.results.push_back(run_one(run, false));
    }
    out.conditions.elapsed_ns = elapsed_ns_;
    out.conditions.elapsed_cycles = elapsed_ns_ * info_.sm_clock_max_mhz() / 1e3;
    return out;
  }

  StreamResult stream(const StreamRequest& request) override {
    if (request.bytes < 16 || request.repeats == 0) bad("stream: bytes and repeats must be > 0");
    if (stream_space(request) != Space::L2)
      bad("stream: the HIP backend streams device memory only (no L1 or LDS streams yet)");
    const int kind = request.kind == StreamKind::Read    ? 0
                     : request.kind == StreamKind::Write ? 1
                                                         : 2;
    const auto o = guarded([&] {
      return runtime().run_stream(kind, request.bytes / 16 * 16, request.repeats, info_.sm_count());
    });
    StreamResult r;
    const double moved = static_cast<double>(request.bytes / 16 * 16) * (kind == 2 ? 2 : 1);
    for (const double s : o.seconds) r.gbps.push_back(s > 0 ? moved / s / 1e9 : 0);
    r.blocks = o.blocks;
    r.threads_per_block = o.threads;
    r.candidates = 1;
    return r;
  }

  // AMD GPUs have no thread-block clusters.
  std::vector<std::vector<int>> co_resident_sms(int) override { return {}; }

  DeviceState state() override { return smi_.state(); }

 private:
  int cu(int sm) const {
    if (sm < 0) return -1;
    if (static_cast<std::size_t>(sm) >= cu_ids_.size())
      bad(fmt::format("chase: SM {} does not exist ({} CUs)", sm, cu_ids_.size()));
    return cu_ids_[static_cast<std::size_t>(sm)];
  }

  // Written before every request in the L2 space, so that it starts from cold caches: the L2s and
  // a memory-side cache of up to 256 MiB, twice over. Requests in the SM-private spaces bring
  // their arrays into the L2 with their warm-up pass anyway.
  std::uint64_t flush_bytes(Space space) const {
    if (space != Space::L2) return 0;
    return std::max<std::uint64_t>(512 * kMiB, 4 * info_.l2_bytes() * 8);
  }

  ChaseResult run_one(const ChaseRun& run, bool record_indices) {
    const auto o = guarded([&] { return runtime().run_chase(run, record_indices); });
    ChaseResult r;
    r.cycles = o.cycles;
    r.indices = o.indices;
    const auto it = std::find(cu_ids_.begin(), cu_ids_.end(), o.cu);
    r.sm = it == cu_ids_.end() ? -1 : static_cast<int>(it - cu_ids_.begin());
    // The s_memtime pair around a load is not subtracted here: per-load samples classify loads,
    // chains give latencies (docs/amd.md).
    r.overhead_cycles = 0;
    r.segment_loads = run.a.chain ? run.a.segment_loads : 0;
    elapsed_ns_ = o.elapsed_ns;
    return r;
  }

  DeviceInfo info_;
  std::vector<int> cu_ids_;
  RocmSmi smi_;
  std::uint64_t calls_ = 0;
  double elapsed_ns_ = 0;
};

DeviceInfo make_info(int index, const Properties& p, const RocmSmi& smi) {
  DeviceInfo info;
  info.index = index;
  info.vendor = "AMD";
  info.name = p.name;
  info.architecture = p.arch;
  info.compute_capability = model::ComputeCapability{p.cc_major, p.cc_minor};
  info.pci_bus_id = fmt::format("{:04x}:{:02x}:{:02x}.0", p.pci_domain, p.pci_bus, p.pci_device);
  info.driver_version = std::to_string(p.driver_version);
  info.runtime_version = std::to_string(p.runtime_version);
  info.sm_clock_max_mhz = p.clock_mhz;
  info.mem_clock_max_mhz = p.memory_clock_mhz;
  info.memory_bus_width_bits = p.bus_width_bits;
  info.global_memory_bytes = p.global_memory;
  info.rocm_smi = smi.loaded();
  info.sm_count = p.cus;
  info.xcd_count = model::Fact<int>::none("HIP 5.2 reports no XCD count");
  info.warp_size = p.warp_size;
  info.max_threads_per_block = p.max_threads_per_block;
  info.max_threads_per_sm = p.max_threads_per_cu;
  info.registers_per_block = p.regs_per_block;
  info.shared_per_block_bytes = p.shared_per_block;
  info.shared_per_block_optin_bytes =
      model::Fact<std::uint64_t>(p.shared_per_block, "HIP has no opt-in: the per-block limit");
  info.shared_per_sm_bytes = p.shared_per_cu;
  info.l2_bytes = p.l2_bytes;
  info.constant_bytes = p.constant_bytes;
  return info;
}

}  // namespace

bool built() { return true; }

std::unique_ptr<Device> open(int index) {
  return guarded([&]() -> std::unique_ptr<Device> {
    const RuntimeApi& hip = runtime();
    const int count = hip.device_count();
    if (index < 0 || index >= count)
      throw Error(Error::Kind::NoDevice,
                  fmt::format("AMD GPU {} does not exist: HIP sees {}", index, count));
    hip.select_device(index);
    const Properties p = hip.properties(index);
    RocmSmi smi;
    DeviceInfo info = make_info(index, p, smi);
    std::vector<int> ids = hip.cu_census(p.cus);
    if (static_cast<int>(ids.size()) != p.cus)
      throw Error(
          Error::Kind::Measurement,
          fmt::format("the CU census met {} CUs, the driver reports {}", ids.size(), p.cus));
    return std::make_unique<HipDevice>(std::move(info), std::move(ids));
  });
}

}  // namespace gputopo::device::hip
