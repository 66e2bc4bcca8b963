#include "discovery/discover.hpp"

#include <chrono>

#include "discovery/context.hpp"
#include "discovery/elements.hpp"
#include "discovery/guard.hpp"
#include "discovery/plan.hpp"
#include "discovery/registry.hpp"
#include "model/seconds_since.hpp"

namespace gputopo::discovery {
namespace {

// Findings read and written inside it are the probe's (Context::set_probe).
class ProbeScope {
 public:
  ProbeScope(Context& context, const Probe& probe) : context_(context) {
    context_.set_probe(&probe);
  }
  ~ProbeScope() { context_.set_probe(nullptr); }
  ProbeScope(const ProbeScope&) = delete;
  ProbeScope& operator=(const ProbeScope&) = delete;

 private:
  Context& context_;
};

using Clock = std::chrono::steady_clock;

// Errors after which nothing more can be measured: they end the run.
bool fatal(const device::Error& e) {
  using K = device::Error::Kind;
  return e.kind() == K::NoDriver || e.kind() == K::NoDevice || e.kind() == K::Unsupported ||
         e.kind() == K::Lost;
}

std::string joined(const std::vector<std::string>& parts) {
  std::string text;
  for (const auto& p : parts) text += (text.empty() ? "" : "; ") + p;
  return text;
}

// One discovery: the plan's phases in spans between checkpoints, each span judged by the guard,
// re-run or demoted when other work disturbed it (docs/busy.md).
class Run {
 public:
  Run(device::Device& device, const Options& options, Progress& progress,
      const std::atomic<bool>* interrupted)
      : options_(options),
        progress_(progress),
        plan_(registered_probes(device.info()), options.only),
        context_(device, options, progress, interrupted),
        guard_(device) {}

  Result operator()() {
    try {
      return run();
    } catch (const device::Error& e) {
      // Nothing more can be measured: the caller keeps everything measured before.
      if (fatal(e)) {
        refresh();
        progress_.stopped_by_error(result_);
      }
      throw;
    }
  }

 private:
  Result run() {
    start_guard();
    const auto& probes = plan_.probes();
    begin_span(0);
    for (std::size_t i = 0; i < probes.size(); ++i) {
      if (stopped_) {
        skip(i);
        continue;
      }
      run_phase(i);
      const bool last = i + 1 == probes.size() || stopped_;
      if (!last && context_.calls() - span_.calls < kCheckpointCalls) continue;
      if (judge_span(i, last)) i = span_.begin - 1;  // re-run the span
    }
    if (!skipped_busy_.phases.empty()) result_.disturbed.push_back(skipped_busy_);
    result_.completed = !stopped_;
    if (stopped_)
      context_.warn("discovery ended early (" + context_.stop_reason().value_or("stopped") +
                    "); the results are partial");
    result_.guard_seconds = guard_.seconds();
    result_.checkpoints = guard_.checkpoints();
    refresh();
    return std::move(result_);
  }

  struct Span {
    std::size_t begin = 0;
    std::size_t calls = 0;
    Context::Snapshot start;
    int reruns = 0;
  };

  void start_guard() {
    note_mig();
    if (context_.stop_reason()) return;
    if (const auto busy = guard_.start(); !busy.empty()) {
      context_.warn(busy +
                    "; the phases it disturbs are re-run while it passes, else marked "
                    "disturbed");
      if (guard_.busy_at_start()) arm_busy_deadline(busy);
    }
    if (!guard_.note().empty()) context_.warn(guard_.note());
  }

  // On a MIG instance the run measures the slice, which the report must not pass off as the card.
  void note_mig() {
    if (context_.info().mig_enabled())
      context_.warn(
          "MIG mode is on: this run measures the GPU instance it runs on, not the whole card; its "
          "SM count and memory are the instance's, and the L2 and device memory it measures are "
          "the instance's partition");
  }

  void arm_busy_deadline(const std::string& why) {
    if (!options_.busy_budget_s || context_.busy_deadline_set()) return;
    context_.set_busy_deadline(
        Clock::now() + std::chrono::duration_cast<Clock::duration>(
                           std::chrono::duration<double>(*options_.busy_budget_s)),
        why);
  }

  void begin_span(std::size_t begin) { span_ = {begin, context_.calls(), context_.snapshot(), 0}; }

  void refresh() {
    result_.memory = assemble_elements(context_.reported_findings(), plan_.elements());
    result_.compute = context_.reported_compute();
    result_.topology = context_.topology();
    result_.warnings = context_.warnings();
    result_.sweeps = context_.sweeps();
    result_.seconds = model::seconds_since(start_);
  }

  void skip(std::size_t i) {
    const auto& name = plan_.probes()[i]->name();
    const auto why = context_.stop_reason().value_or("run stopped");
    result_.timings.push_back({name, 0, "skipped: " + why});
    if (context_.busy_budget_spent()) {
      skipped_busy_.phases.push_back(name);
      skipped_busy_.why = "not run: " + why;
    }
  }

  void run_phase(std::size_t i) {
    Probe& probe = *plan_.probes()[i];
    const auto t0 = Clock::now();
    std::string status = "ok";
    context_.begin_phase(probe.name(), i, plan_.probes().size());
    try {
      context_.check_stop();
      const ProbeScope scope(context_, probe);
      probe.run(context_);
    } catch (const Stopped& s) {
      stopped_ = true;
      status = "stopped: " + s.why;
    } catch (const device::Error& e) {
      if (fatal(e)) throw;
      if (e.kind() == device::Error::Kind::OutOfMemory) {
        status = std::string("skipped: not enough free device memory: ") + e.what();
        result_.skipped.push_back(probe.name() + ": " + e.what());
        context_.warn(probe.name() + " skipped: not enough free device memory (" + e.what() + ")");
      } else {
        result_.failed = true;
        status = std::string("failed: ") + e.what();
        context_.warn(probe.name() + " failed: " + e.what());
      }
    }
    if (span_.reruns > 0 && status == "ok")
      status = "ok (re-run " + std::to_string(span_.reruns) + ")";
    result_.timings.push_back({probe.name(), model::seconds_since(t0), status});
    const bool wanted = progress_.wants_result();
    if (wanted) refresh();
    progress_.end(probe.name(), model::seconds_since(t0), status, wanted ? &result_ : nullptr);
  }

  // At the checkpoint after phase i: true when the span is to be re-run. A stopped run judges its
  // last span by the driver's account only: it must end now.
  bool judge_span(std::size_t i, bool last) {
    std::vector<std::string> why;
    if (auto batch = context_.take_batch_disturbance(); !batch.empty()) why.push_back(batch);
    if (auto drift = guard_.checkpoint(last && !stopped_, !stopped_); !drift.empty())
      why.push_back(drift);
    if (why.empty()) {
      context_.set_busy_deadline(std::nullopt);
      begin_span(i + 1);
      return false;
    }
    arm_busy_deadline(joined(why));
    if (!stopped_ && span_.reruns < kSpanReruns && run_reruns_ < kRunReruns) {
      backoff(options_.retry_backoff_s, span_.reruns);
      // A load the driver still shows would disturb the re-run the same way.
      if (const auto still = guard_.driver_busy(); !still) {
        context_.warn("phases " + plan_.probes()[span_.begin]->name() + " to " +
                      plan_.probes()[i]->name() + " were re-run: " + joined(why));
        ++span_.reruns;
        ++run_reruns_;
        context_.restore(span_.start);
        span_.calls = context_.calls();
        return true;
      }
      why.push_back("not re-run: the driver still shows the load after the back-off");
    }
    Disturbance d;
    for (std::size_t k = span_.begin; k <= i; ++k) d.phases.push_back(plan_.probes()[k]->name());
    d.why = joined(why);
    d.reruns = span_.reruns;
    context_.demote_since(span_.start, d.why);
    result_.disturbed.push_back(std::move(d));
    refresh();
    begin_span(i + 1);
    return false;
  }

  const Options& options_;
  Progress& progress_;
  const Clock::time_point start_ = Clock::now();
  Plan plan_;
  Context context_;
  Guard guard_;
  Result result_;
  Span span_;
  int run_reruns_ = 0;
  bool stopped_ = false;
  Disturbance skipped_busy_;
};

}  // namespace

Result discover(device::Device& device, const Options& options, Progress& progress,
                const std::atomic<bool>* interrupted) {
  return Run(device, options, progress, interrupted)();
}

}  // namespace gputopo::discovery
