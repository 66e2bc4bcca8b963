#include "discovery/probes/compute/pipeline_probe.hpp"

#include <algorithm>

#include "discovery/context.hpp"
#include "discovery/probes/compute/op_keys.hpp"
#include "discovery/probes/compute/slope.hpp"
#include "discovery/registry.hpp"

namespace gputopo::discovery {
namespace {

using device::ComputeOp;

// Where the SASS each op was compiled to is kept and checked (docs/compute.md, "Evidence").
constexpr const char* kSassEvidence = "tests/data/compute/ (checked by compute_sass_test)";
// Share of the chains in flight from which a throughput counts as bounded by latency.
constexpr double kLatencyBound = 0.9;

struct Shape {
  std::uint32_t ilp;
  std::uint32_t warps;
  std::uint32_t short_steps;
  std::uint32_t long_steps;
};

// Every op of `ops` at both chain lengths, kPipelineRepeats times, repeat-major.
device::ComputeBatch batch_for(const std::vector<ComputeOp>& ops, const Shape& s) {
  device::ComputeBatch b;
  for (int rep = 0; rep < kPipelineRepeats; ++rep)
    for (const ComputeOp op : ops)
      for (const std::uint32_t steps : {s.short_steps, s.long_steps})
        b.requests.push_back({op, steps, s.ilp, s.warps, 1, std::nullopt});
  return b;
}

// The spans of op `k` of `n` at its short and long length, one per repeat.
void spans(const device::ComputeBatchResult& r, std::size_t k, std::size_t n,
           std::vector<double>& short_spans, std::vector<double>& long_spans) {
  for (int rep = 0; rep < kPipelineRepeats; ++rep) {
    const std::size_t at = (static_cast<std::size_t>(rep) * n + k) * 2;
    short_spans.push_back(static_cast<double>(r.results.at(at).cycles.at(0)));
    long_spans.push_back(static_cast<double>(r.results.at(at + 1).cycles.at(0)));
  }
}

model::Json sass_evidence(const device::ComputeOpInfo& o) {
  model::Json j = {{"sass", o.sass}, {"perStep", o.per_step}, {"listing", kSassEvidence}};
  if (!o.extra.empty()) j["alsoInStep"] = o.extra;
  return j;
}

model::Attribute from_slope(double value, double lo, double hi, const Slope& s,
                            const std::string& unit, const std::string& method,
                            model::Json evidence) {
  if (!(value > 0) || !(s.value > 0))
    return model::Attribute::unavailable(model::Source::Measured, unit,
                                         "the longer chains did not take longer");
  auto a = model::Attribute::measured(value, unit, method, s.confidence);
  a.interval = model::Interval{lo, hi};
  evidence["perRepeat"] = s.per_repeat;
  a.evidence = std::move(evidence);
  return a;
}

// Writes compute.<op>Latency (the keys: op_keys.hpp) (cycles per instruction of a dependent chain),
// compute.<op>Throughput (thread instructions per clock per SM, all warps of one block) and
// compute.pipelines (the ops measured, with the whole table in its evidence); for tensor-core ops
// also compute.<op>PerClkPerSm and compute.<op>Tflops.
class PipelineProbe final : public Probe {
 public:
  PipelineProbe() : Probe("pipelines", {}) {
    std::vector<Finding> writes = {compute(model::keys::pipelines)};
    for (const ComputeOp op : device::all_compute_ops()) {
      if (device::op_info(op).own_probe) continue;
      const OpKeys& k = op_keys(op);
      for (const model::Key* key : {k.latency, k.throughput, k.per_clk, k.tflops})
        if (key) writes.push_back(compute(*key));
    }
    declare({}, std::move(writes));
  }

  void run(Context& ctx) override {
    const auto& info = ctx.info();
    std::vector<ComputeOp> ops;
    for (const ComputeOp op : device::all_compute_ops()) {
      if (device::op_info(op).own_probe) continue;  // the barrier or divergence probe's
      if (device::has_op(info, op)) {
        ops.push_back(op);
      } else if (device::op_info(op).warp_flops > 0) {
        // A tensor-core row the GPU lacks says why (the scalar ops it lacks are simply absent).
        put_unavailable(ctx, {op}, *device::lacks_op(info, op), false);
      }
    }
    const auto warp = static_cast<std::uint32_t>(std::max(info.warp_size(), 1));
    const std::uint32_t warps = std::clamp<std::uint32_t>(
        static_cast<std::uint32_t>(info.max_threads_per_block()) / warp, 1, 32);
    const Shape latency{1, 1, kLatencyShortSteps, kLatencyLongSteps};
    const Shape throughput{kThroughputIlp, warps, kThroughputShortSteps, kThroughputLongSteps};

    device::ComputeBatchResult lat;
    device::ComputeBatchResult thr;
    ctx.expect_batches(2);
    try {
      lat = ctx.compute(batch_for(ops, latency));
      thr = ctx.compute(batch_for(ops, throughput));
    } catch (const device::Error& e) {
      if (e.kind() != device::Error::Kind::BadRequest) throw;
      put_unavailable(ctx, ops, e.what(), true);
      return;
    }

    model::Json table = model::Json::array();
    model::Json names = model::Json::array();
    double lowest = 1;
    for (std::size_t k = 0; k < ops.size(); ++k) {
      const auto& o = device::op_info(ops[k]);
      auto la = latency_of(lat, k, ops.size(), o, latency);
      auto ta = throughput_of(thr, k, ops.size(), o, throughput, la);
      const std::string name(o.name);
      if (la.available() && ta.available()) {
        names.push_back(name);
        table.push_back({{"op", name},
                         {"sass", o.sass},
                         {"latencyCycles", la.value},
                         {"throughputPerClkPerSm", ta.value},
                         {"latencyConfidence", *la.confidence},
                         {"throughputConfidence", *ta.confidence}});
        lowest = std::min({lowest, *la.confidence, *ta.confidence});
      }
      if (o.warp_flops > 0) put_tensor_rates(ctx, o, ta, thr.conditions);
      ctx.put_compute(*op_keys(ops[k]).latency, std::move(la));
      ctx.put_compute(*op_keys(ops[k]).throughput, std::move(ta));
    }
    auto all =
        model::Attribute::measured(names, "", "compute micro-kernels, one per op (docs/compute.md)",
                                   names.empty() ? 0 : lowest);
    all.evidence = {{"table", table}, {"sassListing", kSassEvidence}};
    ctx.put_compute(model::keys::pipelines, std::move(all));
  }

 private:
  // Cycles per instruction of op k's dependent chain.
  static model::Attribute latency_of(const device::ComputeBatchResult& lat, std::size_t k,
                                     std::size_t n, const device::ComputeOpInfo& o,
                                     const Shape& latency) {
    std::vector<double> ls, ll;
    spans(lat, k, n, ls, ll);
    const Slope l = cycles_per_step(ls, ll, latency.short_steps, latency.long_steps);
    const double per_step = o.per_step;
    model::Json le = sass_evidence(o);
    le["chainLengths"] = {latency.short_steps, latency.long_steps};
    return from_slope(l.value / per_step, l.lo / per_step, l.hi / per_step, l, "cycles",
                      "dependent chain of one thread, cycles per step over two chain "
                      "lengths (%clock64), median of " +
                          std::to_string(kPipelineRepeats) + " repeats",
                      le);
  }

  // Thread instructions per clock per SM of op k; with its latency `la`, marked bounded by
  // latency when every chain of the block was in flight.
  static model::Attribute throughput_of(const device::ComputeBatchResult& thr, std::size_t k,
                                        std::size_t n, const device::ComputeOpInfo& o,
                                        const Shape& throughput, const model::Attribute& la) {
    std::vector<double> ts, tl;
    spans(thr, k, n, ts, tl);
    const Slope t = cycles_per_step(ts, tl, throughput.short_steps, throughput.long_steps);
    // Each step of the block's chains is threads x ILP thread instructions.
    const double work = 32.0 * throughput.warps * throughput.ilp * o.per_step;
    model::Json te = sass_evidence(o);
    te["chainLengths"] = {throughput.short_steps, throughput.long_steps};
    te["ilp"] = throughput.ilp;
    te["warps"] = throughput.warps;
    auto ta = from_slope(t.value > 0 ? work / t.value : 0, t.hi > 0 ? work / t.hi : 0,
                         t.lo > 0 ? work / t.lo : 0, t, std::string(op_keys(o.op).throughput->unit),
                         std::to_string(throughput.warps) + " warps of one block, " +
                             std::to_string(throughput.ilp) +
                             " independent chains per thread, per step over two chain lengths "
                             "(%clock64), median of " +
                             std::to_string(kPipelineRepeats) + " repeats",
                         te);
    // Little's law: a throughput times the latency it waits for is the work in flight. When
    // that is every chain of the block, latency bounded the run and the pipe may go faster.
    const double chains = 32.0 * throughput.warps * throughput.ilp;
    if (la.available() && ta.available() &&
        ta.value.get<double>() * la.value.get<double>() >= kLatencyBound * chains) {
      ta.reason = "bounded by latency at this launch shape (every one of the " +
                  std::to_string(static_cast<int>(chains)) +
                  " chains in flight): the pipe's peak may be higher";
      ta.evidence["latencyBound"] = true;
      ta.confidence = std::min(*ta.confidence, kEstablished);
    }
    return ta;
  }

  static void put_unavailable(Context& ctx, const std::vector<ComputeOp>& ops,
                              const std::string& why, bool whole_table) {
    for (const ComputeOp op : ops) {
      const OpKeys& k = op_keys(op);
      for (const model::Key* key : {k.latency, k.throughput, k.per_clk, k.tflops})
        if (key) ctx.put_compute(*key, unmeasured(*key, why));
    }
    if (whole_table)
      ctx.put_compute(model::keys::pipelines,
                      model::Attribute::unavailable(model::Source::Measured, "", why));
  }
};

}  // namespace

// A tensor-core op's throughput as operations per clock per SM (2 M N K per warp instruction)
// and as TFLOP/s (TOPS for integers) of the whole GPU at the clock the batch measured.
void put_tensor_rates(Context& ctx, const device::ComputeOpInfo& o, const model::Attribute& thr,
                      const device::RunConditions& c) {
  const std::string name(o.name);
  const OpKeys& k = op_keys(o.op);
  const std::string per_clk_unit(k.per_clk->unit);
  const std::string per_s_unit(k.tflops->unit);
  if (!thr.available()) {
    ctx.put_compute(*k.per_clk, unmeasured(*k.per_clk, "the throughput was not measured"));
    ctx.put_compute(*k.tflops, unmeasured(*k.tflops, "the throughput was not measured"));
    return;
  }
  const double per_instr = static_cast<double>(o.warp_flops) / 32;  // per thread instruction
  const double v = thr.value.get<double>() * per_instr;
  auto a = model::Attribute::measured(v, per_clk_unit,
                                      k.throughput->str() + " x " + std::to_string(o.warp_flops) +
                                          " operations per warp instruction (2 M N K) / 32 threads",
                                      *thr.confidence);
  if (thr.interval)
    a.interval = model::Interval{thr.interval->lo * per_instr, thr.interval->hi * per_instr};
  a.evidence = {{"warpFlops", o.warp_flops}, {"sass", o.sass}};
  if (thr.evidence.contains("latencyBound")) {
    a.reason = thr.reason;
    a.evidence["latencyBound"] = true;
  }
  const auto ns = ctx.ns_per_cycle(c);
  const int sms = ctx.info().sm_count();
  if (ns && *ns > 0 && sms > 0) {
    const double scale = sms / *ns / 1e3;  // per clock per SM -> 1e12 per second, whole GPU
    auto t = model::Attribute::measured(
        v * scale, per_s_unit,
        name + " per clock per SM x " + std::to_string(sms) + " SMs x SM clock (" +
            Context::ns_method(c) + "); one block's instruction stream, not a tuned matrix product",
        *thr.confidence);
    if (a.interval) t.interval = model::Interval{a.interval->lo * scale, a.interval->hi * scale};
    t.evidence = {{"clockMhz", 1e3 / *ns}, {"sms", sms}, {"opsPerClkPerSm", v}};
    ctx.put_compute(*k.tflops, std::move(t));
  } else {
    ctx.put_compute(*k.tflops, unmeasured(*k.tflops, "the SM clock is not known"));
  }
  ctx.put_compute(*k.per_clk, std::move(a));
}

GPUTOPO_REGISTER_PROBE(Family::Compute, 10, Made::Once,
                       [](const Site&) { return std::make_unique<PipelineProbe>(); });

}  // namespace gputopo::discovery
