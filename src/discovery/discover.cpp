#include "discovery/discover.hpp"

#include <chrono>

#include "discovery/context.hpp"
#include "discovery/elements.hpp"
#include "discovery/guard.hpp"
#include "discovery/plan.hpp"
#include "discovery/registry.hpp"

namespace gputopo::discovery {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

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

}  // namespace

Result discover(device::Device& device, const Options& options, Progress& progress,
                const std::atomic<bool>* interrupted) {
  const auto start = Clock::now();
  Plan plan(registered_probes(device.info()), options.only);
  Context context(device, options, progress, interrupted);
  Guard guard(device);

  Result result;
  auto refresh = [&] {
    result.memory = assemble_elements(context.findings(), plan.elements());
    result.compute = context.compute();
    result.warnings = context.warnings();
    result.seconds = seconds_since(start);
  };
  if (const auto busy = context.stop_reason() ? std::string() : guard.start(); !busy.empty())
    context.warn(busy + "; the phases it disturbs are re-run, and then marked disturbed");
  if (!guard.note().empty()) context.warn(guard.note());

  const auto& probes = plan.probes();
  bool stopped = false;
  // The span of phases since the last checkpoint: re-run together, judged together.
  std::size_t span_begin = 0;
  std::size_t span_calls = context.calls();
  auto span_start = context.snapshot();
  int span_reruns = 0;
  int run_reruns = 0;
  for (std::size_t i = 0; i < probes.size(); ++i) {
    Probe& probe = *probes[i];
    const auto t0 = Clock::now();
    std::string status = "ok";
    if (stopped) {
      status = "skipped: " + context.stop_reason().value_or("run stopped");
      result.timings.push_back({probe.name(), 0, status});
      continue;
    }
    {
      context.begin_phase(probe.name(), i, probes.size());
      try {
        context.check_stop();
        probe.run(context);
      } catch (const Stopped& s) {
        stopped = true;
        status = "stopped: " + s.why;
      } catch (const device::Error& e) {
        if (fatal(e)) throw;
        if (e.kind() == device::Error::Kind::OutOfMemory) {
          status = std::string("skipped: not enough free device memory: ") + e.what();
          result.skipped.push_back(probe.name() + ": " + e.what());
          context.warn(probe.name() + " skipped: not enough free device memory (" + e.what() + ")");
        } else {
          result.failed = true;
          status = std::string("failed: ") + e.what();
          context.warn(probe.name() + " failed: " + e.what());
        }
      }
    }
    if (span_reruns > 0 && status == "ok")
      status = "ok (re-run " + std::to_string(span_reruns) + ")";
    result.timings.push_back({probe.name(), seconds_since(t0), status});
    refresh();
    progress.end(probe.name(), seconds_since(t0), status, result);

    // A stopped run judges its last span by the driver's account only: it must end now.
    const bool last = i + 1 == probes.size() || stopped;
    if (!last && context.calls() - span_calls < kCheckpointCalls) continue;
    std::vector<std::string> why;
    if (auto batch = context.take_batch_disturbance(); !batch.empty()) why.push_back(batch);
    if (auto drift = guard.checkpoint(last && !stopped, !stopped); !drift.empty())
      why.push_back(drift);
    if (!why.empty() && !stopped && span_reruns < kSpanReruns && run_reruns < kRunReruns) {
      context.warn("phases " + probes[span_begin]->name() + " to " + probe.name() +
                   " were re-run: " + joined(why));
      backoff(options.retry_backoff_s, span_reruns);
      ++span_reruns;
      ++run_reruns;
      context.restore(span_start);
      span_calls = context.calls();
      i = span_begin - 1;
      continue;
    }
    if (!why.empty()) {
      Disturbance d;
      for (std::size_t k = span_begin; k <= i; ++k) d.phases.push_back(probes[k]->name());
      d.why = joined(why);
      d.reruns = span_reruns;
      context.demote_since(span_start, d.why);
      result.disturbed.push_back(std::move(d));
      refresh();
    }
    span_begin = i + 1;
    span_calls = context.calls();
    span_start = context.snapshot();
    span_reruns = 0;
  }
  result.completed = !stopped;
  if (stopped)
    context.warn("discovery ended early (" + context.stop_reason().value_or("stopped") +
                 "); the results are partial");
  refresh();
  return result;
}

}  // namespace gputopo::discovery
