// device_check: exercises the CUDA backend on a real GPU, prints a short table of what it measured
// against what the GPU should show, and writes raw sweeps as CSV for tests/data/traces/.
//   device_check [--device N] [--out DIR]
#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <string>
#include <vector>

#include "check_sweeps.hpp"
#include "device/cuda/cuda_backend.hpp"
#include "device/cuda/plan/chase_layout.hpp"
#include "trace_csv.hpp"

namespace gputopo::bench {
namespace {

using device::Device;

struct Row {
  std::string check;
  std::string measured;
  std::string expectation;
  std::string verdict;  // "yes", "NO" or "-" (reported only)
};

std::string yes_no(bool ok) { return ok ? "yes" : "NO"; }
std::string kib(std::uint64_t b) {
  return fmt::format("{:.0f} KiB", static_cast<double>(b) / 1024);
}
std::string mib(std::uint64_t b) {
  return fmt::format("{:.1f} MiB", static_cast<double>(b) / (1024.0 * 1024.0));
}

class Checker {
 public:
  Checker(Device& d, std::filesystem::path out) : dev_(d), out_(std::move(out)) {}

  void run() {
    const auto& info = dev_.info();
    step("chase correctness", [&] { correctness(); });
    step("latencies", [&] { latencies(); });
    step("SM placement", [&] { placement(); });
    step("L1 size sweep", [&] { l1_sweep(); });
    step("L1 near capacity", [&] { l1_variants(); });
    step("L2 sweep", [&] { l2(); });
    step("constant sweep", [&] { constants(); });
    step("stride sweeps", [&] { strides(); });
    step("interference", [&] { interference(); });
    step("clusters", [&] { clusters(); });
    step("bandwidth", [&] { bandwidth(); });
    step("wide indices", [&] { wide(); });
    rows_.push_back({"SM clock over all batches (NVML)",
                     fmt::format("{:.0f}..{:.0f} MHz, changed in {} of {} batches", min_mhz_,
                                 max_mhz_, clock_changes_, batches_),
                     "reported", "-"});
    print(info);
  }

 private:
  template <class F>
  void step(const char* name, F&& f) {
    const auto t0 = std::chrono::steady_clock::now();
    try {
      f();
    } catch (const device::Error& e) {
      // A failed step is a row of the table; the remaining steps still run.
      rows_.push_back({name, std::string("FAILED: ") + e.what(), "runs", "NO"});
    }
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::cerr << fmt::format("device_check: {} done in {:.3f} s\n", name, s);
    timings_.push_back({name, s});
  }

  ChaseBatchResult run(const ChaseBatch& b) {
    auto r = dev_.chase(b);
    note(r.conditions);
    return r;
  }

  void note(const device::RunConditions& c) {
    ++batches_;
    clock_changes_ += c.clock_changed;
    for (auto mhz : {c.sm_clock_mhz_before, c.sm_clock_mhz_after})
      if (mhz) {
        min_mhz_ = std::min(min_mhz_, *mhz);
        max_mhz_ = std::max(max_mhz_, *mhz);
      }
  }

  void trace(const std::string& file, const ChaseBatch& b, const ChaseBatchResult& r,
             bool append = false) {
    if (out_.empty()) return;
    std::ofstream f(out_ / file, append ? std::ios::app : std::ios::trunc);
    if (!append) write_trace_header(f);
    write_trace_rows(f, dev_.info().name(), b, r);
  }

  // Every space's chase visits the elements in the order the array says (strided and random).
  void correctness() {
    ChaseBatch b;
    b.carveout_percent = 0;
    for (auto space :
         {Space::L1, Space::L2, Space::ReadOnly, Space::Texture, Space::Constant, Space::Shared})
      for (auto pattern : {device::Pattern::Strided, device::Pattern::Random}) {
        auto r = chase(space, 2048, 64, 96);
        r.pattern = pattern;
        r.record_indices = true;
        b.requests.push_back(r);
      }
    const auto r = run(b);
    int right = 0;
    for (std::size_t i = 0; i < b.requests.size(); ++i) {
      const auto& q = b.requests[i];
      const std::uint64_t n = q.array_bytes / q.stride_bytes;
      const std::uint64_t words = q.stride_bytes / 4;
      const auto next = device::cuda::successors(n, q.pattern);
      std::uint64_t element = 0;
      bool ok = r.results[i].indices.size() == q.recorded_loads;
      for (std::size_t k = 0; ok && k < r.results[i].indices.size(); ++k) {
        element = next[element];
        ok = r.results[i].indices[k] == element * words;
      }
      right += ok;
    }
    rows_.push_back({"chase follows the array (6 spaces x strided/random)",
                     fmt::format("{} of {} correct", right, b.requests.size()), "all",
                     yes_no(right == static_cast<int>(b.requests.size()))});
  }

  void latencies() {
    ChaseBatch priv;
    priv.carveout_percent = 0;
    priv.requests = {chase(Space::L1, 4096, 64, 1024, 0), chase(Space::ReadOnly, 4096, 64, 1024, 1),
                     chase(Space::Texture, 4096, 64, 1024, 2),
                     chase(Space::Shared, 4096, 64, 1024, 3)};
    const auto p = run(priv);
    overhead_ = p.results[0].overhead_cycles;
    l1_ = median(p.results[0].cycles);
    ro_ = median(p.results[1].cycles);
    tex_ = median(p.results[2].cycles);
    shared_ = median(p.results[3].cycles);
    ChaseBatch l2;
    l2.requests = {chase(Space::L2, 4 << 20, 128, 2048, 0)};
    const auto s = run(l2);
    l2_ = median(s.results[0].cycles);
    clock_ = s.conditions.sm_clock_mhz_after.value_or(0);
    if (s.conditions.elapsed_ns > 0)
      cycles_per_ns_ = s.conditions.elapsed_cycles / s.conditions.elapsed_ns;
    rows_.push_back({"timing overhead (clock pair + dependent st.shared)",
                     fmt::format("{:.0f} cycles", overhead_), "measured, reported", "-"});
    rows_.push_back({"L1 hit (ld.global.ca, 4 KiB)", fmt::format("{:.0f} cycles", l1_),
                     "well under L2 (< 0.5x)", yes_no(l1_ < 0.5 * l2_)});
    rows_.push_back({"L2 hit (ld.global.cg, 4 MiB, SM 0)", fmt::format("{:.0f} cycles", l2_),
                     "under DRAM (see L2 sweep levels)", "-"});
    rows_.push_back({"read-only hit (ld.global.nc, 4 KiB)", fmt::format("{:.0f} cycles", ro_),
                     "near L1 (< 1.5x, < L2/2)", yes_no(ro_ < 1.5 * l1_ && ro_ < l2_ / 2)});
    rows_.push_back({"texture hit (tex1Dfetch, 4 KiB)",
                     fmt::format("{:.0f} cycles ({:.1f}x L1)", tex_, tex_ / l1_),
                     "near L1 (< 1.5x, < L2/2)", yes_no(tex_ < 1.5 * l1_ && tex_ < l2_ / 2)});
    rows_.push_back(
        {"shared (ld.shared, 4 KiB)", fmt::format("{:.0f} cycles", shared_), "reported", "-"});
  }

  void placement() {
    const auto& info = dev_.info();
    ChaseBatch any;
    for (int i = 0; i < info.sm_count(); ++i)
      any.requests.push_back(chase(Space::L1, 4096, 64, 256));
    const auto r = run(any);
    std::set<int> sms;
    for (const auto& x : r.results) sms.insert(x.sm);
    rows_.push_back({fmt::format("distinct SMs, {}-block batch", info.sm_count()),
                     fmt::format("{} ({} re-runs, {:.2f} ms)", sms.size(), r.conditions.reruns,
                                 r.conditions.elapsed_ns / 1e6),
                     fmt::format("{}", info.sm_count()),
                     yes_no(static_cast<int>(sms.size()) == info.sm_count())});
    ChaseBatch placed;
    for (int i = info.sm_count() - 1; i >= 0; --i)
      placed.requests.push_back(chase(Space::L1, 4096, 64, 256, i));
    const auto q = run(placed);
    int right = 0;
    for (std::size_t i = 0; i < q.results.size(); ++i)
      right += q.results[i].sm == placed.requests[i].sm;
    rows_.push_back(
        {"placed requests on their SM",
         fmt::format("{} of {} ({} re-runs)", right, info.sm_count(), q.conditions.reruns), "all",
         yes_no(right == info.sm_count())});
  }

  void l1_sweep() {
    const auto b = l1_size_sweep(0);
    const auto r = run(b);
    trace("l1_size_sweep_carveout0.csv", b, r);
    const double threshold = (l1_ + l2_) / 2;
    const auto first = first_size_above(b, r, threshold, 0.05);
    rows_.push_back({"L1 first size with > 5 % misses (carve-out 0)",
                     first ? kib(first) : "none up to 320 KiB",
                     fmt::format("reported ({} sizes in {:.1f} ms)", b.requests.size(),
                                 r.conditions.elapsed_ns / 1e6),
                     "-"});
  }

  // Is the miss onset a property of the cache or of how the backend runs the sweep?
  void l1_variants() {
    const double threshold = (l1_ + l2_) / 2;
    auto summary = [&](const ChaseBatch& b, const std::vector<device::ChaseResult>& results,
                       double ms) {
      std::string s;
      std::uint64_t first = 0;
      for (std::size_t i = 0; i < b.requests.size(); ++i) {
        const double f = fraction_above(results[i].cycles, threshold);
        if (!first && f > 0.05) first = b.requests[i].array_bytes;
        s += fmt::format("{}{:.0f}", i ? " " : "", 100 * f);
      }
      return fmt::format("first {} ({:.1f} ms); %: {}", first ? kib(first) : "none", ms, s);
    };
    const auto together = l1_near_capacity(0, -1);
    const auto t = run(together);
    rows_.push_back({"L1 176..264 KiB /4, one launch, many SMs",
                     summary(together, t.results, t.conditions.elapsed_ns / 1e6), "reported", "-"});
    const auto alone = l1_near_capacity(0, 0);
    const auto a = run(alone);
    rows_.push_back({"L1 176..264 KiB /4, one at a time on SM 0",
                     summary(alone, a.results, a.conditions.elapsed_ns / 1e6), "reported", "-"});
    device::InterferenceBatch single;
    single.carveout_percent = 0;
    for (const auto& q : together.requests) {
      device::InterferenceRequest r;
      r.a = q;
      r.b = chase(Space::L1, 128, 128, 1);
      r.b.warmup_passes = 1;
      single.requests.push_back(r);
    }
    const auto sr = dev_.interfere(single);
    note(sr.conditions);
    rows_.push_back({"L1 176..264 KiB /4, single-thread warm-up",
                     summary(together, sr.results, sr.conditions.elapsed_ns / 1e6), "reported",
                     "-"});
    // Each size alone, on the SM it had in the batched run: SM-specific or concurrency?
    std::vector<device::ChaseResult> own_sm;
    double own_ms = 0;
    for (std::size_t i = 0; i < together.requests.size(); ++i) {
      ChaseBatch one;
      one.carveout_percent = 0;
      one.requests = {together.requests[i]};
      one.requests[0].sm = t.results[i].sm;
      auto r = run(one);
      own_ms += r.conditions.elapsed_ns / 1e6;
      own_sm.push_back(std::move(r.results[0]));
    }
    rows_.push_back({"L1 176..264 KiB /4, one at a time, batched SMs",
                     summary(together, own_sm, own_ms), "reported", "-"});
    // The same batch with the arrays further apart (diagnostic GPUTOPO_CUDA_ARRAY_GAP).
    for (const char* gap : {"31457280", "69632"}) {
      setenv("GPUTOPO_CUDA_ARRAY_GAP", gap, 1);
      const auto g = run(together);
      unsetenv("GPUTOPO_CUDA_ARRAY_GAP");
      rows_.push_back({fmt::format("L1 176..264 KiB /4, one launch, gap {} B", gap),
                       summary(together, g.results, g.conditions.elapsed_ns / 1e6), "reported",
                       "-"});
    }
    const auto again = run(together);
    rows_.push_back({"L1 176..264 KiB /4, one launch, repeated",
                     summary(together, again.results, again.conditions.elapsed_ns / 1e6),
                     "reported", "-"});
  }

  void l2() {
    const auto& info = dev_.info();
    const auto b = l2_sweep(info.l2_bytes(), 0);
    const auto r = run(b);
    trace("l2_sweep.csv", b, r);
    // Three levels in the largest point (near L2, far L2, DRAM); a step is the first size with
    // more than 5 % of its loads above the midpoint between two levels.
    const auto levels = three_levels(r.results.back().cycles);
    if (levels.size() != 3) return;
    dram_ = levels[2];
    const double far_threshold = (levels[0] + levels[1]) / 2;
    dram_threshold_ = (levels[1] + levels[2]) / 2;
    const double dram_threshold = dram_threshold_;
    const auto far = first_size_above(b, r, far_threshold, 0.05);
    const auto dram = first_size_above(b, r, dram_threshold, 0.05);
    rows_.push_back(
        {fmt::format("L2 sweep levels at {} (k-means)", mib(b.requests.back().array_bytes)),
         fmt::format("{:.0f} / {:.0f} / {:.0f} cycles", levels[0], levels[1], levels[2]),
         "near < far < DRAM; L2 hit < DRAM", yes_no(levels[2] > l2_ && levels[0] < levels[1])});
    const double api = static_cast<double>(info.l2_bytes());
    rows_.push_back(
        {fmt::format("L2 far step (> {:.0f} cycles)", far_threshold), far ? mib(far) : "none",
         fmt::format("near half the API L2 ({})", mib(info.l2_bytes() / 2)),
         yes_no(static_cast<double>(far) >= 0.35 * api && static_cast<double>(far) <= 0.65 * api)});
    rows_.push_back(
        {fmt::format("DRAM step (> {:.0f} cycles)", dram_threshold), dram ? mib(dram) : "none",
         fmt::format("near the API L2 ({})", mib(info.l2_bytes())),
         yes_no(static_cast<double>(dram) >= 0.8 * api && static_cast<double>(dram) <= 1.3 * api)});
    rows_.push_back({"L2 sweep time",
                     fmt::format("{:.1f} ms device, {} points", r.conditions.elapsed_ns / 1e6,
                                 b.requests.size()),
                     "reported", "-"});
  }

  void constants() {
    const auto b = constant_sweep(dev_.info().constant_bytes());
    const auto r = run(b);
    trace("constant_sweep.csv", b, r);
    // Constant L1: the fastest point of the sweep; L1.5: the 32 KiB point.
    std::size_t fastest = 0, at32 = 0;
    for (std::size_t i = 0; i < b.requests.size(); ++i) {
      if (median(r.results[i].cycles) < median(r.results[fastest].cycles)) fastest = i;
      if (b.requests[i].array_bytes <= 32768) at32 = i;
    }
    c1_ = median(r.results[fastest].cycles);
    c15_ = median(r.results[at32].cycles);
    rows_.push_back({fmt::format("constant L1 ({} B) vs L1.5 ({})", b.requests[fastest].array_bytes,
                                 kib(b.requests[at32].array_bytes)),
                     fmt::format("{:.0f} vs {:.0f} cycles", c1_, c15_), "L1 faster than L1.5",
                     yes_no(c1_ < c15_)});
    const auto first = first_size_above(b, r, (c1_ + c15_) / 2, 0.05);
    rows_.push_back({"constant L1 first size with > 5 % misses",
                     first ? fmt::format("{} B", first) : "none", "reported", "-"});
  }

  void strides() {
    const auto l1 = stride_sweep(Space::L1, 1 << 20);
    const auto r1 = run(l1);
    trace("stride_sweep.csv", l1, r1);
    const auto l2 =
        stride_sweep(Space::L2, std::max<std::uint64_t>(4 * dev_.info().l2_bytes(), 256 << 20));
    const auto r2 = run(l2);
    trace("stride_sweep.csv", l2, r2, true);
    std::string l1s, l2s;
    for (std::size_t i = 0; i < l1.requests.size(); ++i) {
      l1s += fmt::format("{}{}:{:.0f}%", i ? " " : "", l1.requests[i].stride_bytes,
                         100 * fraction_above(r1.results[i].cycles, (l1_ + l2_) / 2));
      l2s += fmt::format("{}{}:{:.0f}%", i ? " " : "", l2.requests[i].stride_bytes,
                         100 * fraction_above(r2.results[i].cycles, dram_threshold_));
    }
    rows_.push_back({"L1 misses by stride (1 MiB, B:%)", l1s, "reported", "-"});
    rows_.push_back(
        {fmt::format("DRAM accesses by stride (L2 x4, > {:.0f} cycles, B:%)", dram_threshold_), l2s,
         "reported", "-"});
  }

  void interference() {
    using device::InterferenceRequest;
    device::InterferenceBatch b;
    b.carveout_percent = 0;
    auto pair = [](ChaseRequest a, ChaseRequest bb, bool two, std::uint32_t tb, int sm) {
      InterferenceRequest r;
      r.a = a;
      r.b = bb;
      r.placement = two ? InterferenceRequest::Placement::TwoThreads
                        : InterferenceRequest::Placement::SameThread;
      r.thread_a = 0;
      r.thread_b = tb;
      r.sm = sm;
      r.a.warmup_passes = 1;
      r.b.warmup_passes = 1;
      return r;
    };
    b.requests = {pair(chase(Space::L1, 64 << 10, 128, 512),
                       chase(Space::Texture, 256 << 10, 128, 1), false, 0, 10),
                  pair(chase(Space::L1, 64 << 10, 128, 512),
                       chase(Space::Constant, 32 << 10, 64, 1), false, 0, 11),
                  pair(chase(Space::L1, 128 << 10, 128, 1024), chase(Space::L1, 160 << 10, 128, 1),
                       true, 32, 12),
                  pair(chase(Space::L1, 32 << 10, 128, 256), chase(Space::L1, 32 << 10, 128, 1),
                       true, 32, 13)};
    const auto r = dev_.interfere(b);
    note(r.conditions);
    const double t = (l1_ + l2_) / 2;
    const auto f = [&](int i) { return 100 * fraction_above(r.results[i].cycles, t); };
    rows_.push_back({"A=L1 64K after B=texture 256K (same thread)",
                     fmt::format("{:.0f} % misses", f(0)), "one physical cache: misses",
                     yes_no(f(0) > 50)});
    rows_.push_back({"A=L1 64K after B=constant 32K (same thread)",
                     fmt::format("{:.0f} % misses", f(1)), "separate caches: hits",
                     yes_no(f(1) < 5)});
    rows_.push_back({"A=L1 128K (t0) after B=L1 160K (t32)", fmt::format("{:.0f} % misses", f(2)),
                     "one L1 per SM: misses", yes_no(f(2) > 50)});
    rows_.push_back({"A=L1 32K (t0) after B=L1 32K (t32)", fmt::format("{:.0f} % misses", f(3)),
                     "both fit: hits", yes_no(f(3) < 5)});
  }

  void clusters() {
    const auto pairs = dev_.co_resident_sms(2);
    bool tpc = !pairs.empty();
    for (const auto& g : pairs) tpc = tpc && g.size() == 2 && g[0] % 2 == 0 && g[1] == g[0] + 1;
    rows_.push_back(
        {"cluster size 2 groups",
         fmt::format("{} groups, all {{2k, 2k+1}}: {}", pairs.size(), tpc ? "yes" : "no"),
         "reported", "-"});
    const auto gpcs = dev_.co_resident_sms(16);
    std::string first;
    if (!gpcs.empty())
      for (auto s : gpcs.front()) first += fmt::format("{}{}", first.empty() ? "" : ",", s);
    rows_.push_back({"cluster size 16 groups",
                     fmt::format("{} groups, first {{{}}}", gpcs.size(), first), "reported", "-"});
  }

  void bandwidth() {
    const auto& info = dev_.info();
    const double peak =
        2.0 * info.mem_clock_max_mhz() * 1e6 * (info.memory_bus_width_bits() / 8.0) / 1e9;
    const std::uint64_t big =
        std::min<std::uint64_t>(std::uint64_t{4} << 30, info.global_memory_bytes() / 8);
    for (auto kind :
         {device::StreamKind::Read, device::StreamKind::Write, device::StreamKind::Copy}) {
      device::StreamRequest q;
      q.kind = kind;
      q.bytes = big;
      q.repeats = 5;
      const auto r = dev_.stream(q);
      note(r.conditions);
      note(r.conditions);
      std::vector<double> g = r.gbps;
      std::sort(g.begin(), g.end());
      const double med = g[g.size() / 2];
      const bool read = kind == device::StreamKind::Read;
      rows_.push_back({fmt::format("DRAM {} ({}, {}x{} threads)", device::to_string(kind), mib(big),
                                   r.blocks, r.threads_per_block),
                       fmt::format("{:.0f} GB/s [{:.0f}..{:.0f}] = {:.1f} % of {:.0f}", med,
                                   g.front(), g.back(), peak > 0 ? 100 * med / peak : 0.0, peak),
                       read ? ">= 85 % of peak" : "reported",
                       read ? yes_no(peak > 0 && med >= 0.85 * peak) : "-"});
    }
    device::StreamRequest q;
    q.kind = device::StreamKind::Read;
    q.bytes = info.l2_bytes() / 4;
    const auto r = dev_.stream(q);
    note(r.conditions);
    std::vector<double> g = r.gbps;
    std::sort(g.begin(), g.end());
    rows_.push_back({fmt::format("L2 read ({})", mib(q.bytes)),
                     fmt::format("{:.0f} GB/s", g[g.size() / 2]), "reported", "-"});
  }

  // An array over 16 GiB needs 64-bit indices; the chase must still follow it.
  void wide() {
    const auto& info = dev_.info();
    const std::uint64_t bytes = std::uint64_t{17} << 30;
    if (info.global_memory_bytes() < 2 * bytes) {
      rows_.push_back(
          {"64-bit index chase (17 GiB)", "skipped: too little device memory", "-", "-"});
      return;
    }
    ChaseBatch b;
    auto q = chase(Space::L2, bytes, 128 << 20, 272, 0);
    q.warmup_passes = 1;
    q.record_indices = true;
    b.requests = {q};
    const auto r = run(b);
    const std::uint64_t n = bytes / q.stride_bytes;
    const std::uint64_t words = q.stride_bytes / 8;
    bool ok = r.results[0].indices.size() == q.recorded_loads;
    for (std::size_t k = 0; ok && k < r.results[0].indices.size(); ++k)
      ok = r.results[0].indices[k] == ((k + 1) % n) * words;
    const double top = r.results[0].indices.empty()
                           ? 0
                           : static_cast<double>(r.results[0].indices.back()) * 8 / (1 << 30);
    rows_.push_back({"64-bit index chase (L2, 17 GiB, 128 MiB stride)",
                     fmt::format("order {}, last at {:.2f} GiB, median {:.0f} cycles",
                                 ok ? "right" : "WRONG", top, median(r.results[0].cycles)),
                     "follows the array", yes_no(ok)});
  }

  void print(const device::DeviceInfo& info) {
    std::string text = fmt::format(
        "gputopo device check: {} (sm_{}{}, {} SMs, L2 {}, SM clock {:.0f} MHz during the run, "
        "{:.3f} cycles/ns from %clock64/%globaltimer)\n",
        info.name(), info.compute_capability().major, info.compute_capability().minor,
        info.sm_count(), mib(info.l2_bytes()), clock_, cycles_per_ns_);
    text += fmt::format("| {:<50} | {:<54} | {:<30} | {:<3} |\n", "check", "measured",
                        "expectation", "ok");
    text += fmt::format("|{:-<52}|{:-<56}|{:-<32}|{:-<5}|\n", "", "", "", "");
    int passed = 0, checked = 0;
    for (const auto& r : rows_) {
      text += fmt::format("| {:<50} | {:<54} | {:<30} | {:<3} |\n", r.check, r.measured,
                          r.expectation, r.verdict);
      if (r.verdict != "-") {
        ++checked;
        passed += r.verdict == "yes";
      }
    }
    double total = 0;
    for (const auto& [name, s] : timings_) total += s;
    text += fmt::format("{} of {} checks passed; wall time {:.1f} s\n", passed, checked, total);
    std::cout << text;
    if (!out_.empty()) std::ofstream(out_ / "device_check.txt") << text;
  }

  Device& dev_;
  std::filesystem::path out_;
  std::vector<Row> rows_;
  std::vector<std::pair<std::string, double>> timings_;
  double overhead_ = 0, l1_ = 0, ro_ = 0, tex_ = 0, shared_ = 0, c1_ = 0, c15_ = 0;
  int batches_ = 0, clock_changes_ = 0;
  double min_mhz_ = 1e9, max_mhz_ = 0;
  double l2_ = 0, dram_ = 0, dram_threshold_ = 0, clock_ = 0, cycles_per_ns_ = 0;
};

}  // namespace
}  // namespace gputopo::bench

int main(int argc, char** argv) {
  int index = 0;
  std::filesystem::path out;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--device" && i + 1 < argc) {
      index = std::atoi(argv[++i]);
    } else if (a == "--out" && i + 1 < argc) {
      out = argv[++i];
    } else {
      std::cerr << "usage: device_check [--device N] [--out DIR]\n";
      return 2;
    }
  }
  try {
    if (!out.empty()) std::filesystem::create_directories(out);
    auto dev = gputopo::device::cuda::open(index);
    gputopo::bench::Checker(*dev, out).run();
  } catch (const gputopo::device::Error& e) {
    std::cerr << "device_check: " << e.what() << '\n';
    const auto k = e.kind();
    using K = gputopo::device::Error::Kind;
    return k == K::NoDriver || k == K::NoDevice || k == K::Unsupported ? 3 : 4;
  } catch (const std::exception& e) {
    std::cerr << "device_check: " << e.what() << '\n';
    return 4;
  }
  return 0;
}
