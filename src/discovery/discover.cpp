#include "discovery/discover.hpp"

#include <chrono>

#include "discovery/context.hpp"
#include "discovery/elements.hpp"
#include "discovery/plan.hpp"
#include "discovery/registry.hpp"

namespace gputopo::discovery {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

bool fatal(const device::Error& e) {
  using K = device::Error::Kind;
  return e.kind() == K::NoDriver || e.kind() == K::NoDevice || e.kind() == K::Unsupported;
}

}  // namespace

Result discover(device::Device& device, const Options& options, Progress& progress,
                const std::atomic<bool>* interrupted) {
  const auto start = Clock::now();
  Plan plan(registered_probes(device.info()), options.only);
  Context context(device, options, progress, interrupted);

  Result result;
  auto refresh = [&] {
    result.memory = assemble_elements(context.findings(), plan.elements());
    result.compute = context.compute();
    result.warnings = context.warnings();
    result.seconds = seconds_since(start);
  };

  const auto& probes = plan.probes();
  bool stopped = false;
  for (std::size_t i = 0; i < probes.size(); ++i) {
    Probe& probe = *probes[i];
    const auto t0 = Clock::now();
    std::string status = "ok";
    if (stopped) {
      status = "skipped: " + context.stop_reason().value_or("run stopped");
    } else {
      context.begin_phase(probe.name(), i, probes.size());
      try {
        context.check_stop();
        probe.run(context);
      } catch (const Stopped& s) {
        stopped = true;
        status = "stopped: " + s.why;
      } catch (const device::Error& e) {
        if (fatal(e)) throw;
        result.failed = true;
        status = std::string("failed: ") + e.what();
        context.warn(probe.name() + " failed: " + e.what());
      }
    }
    result.timings.push_back({probe.name(), seconds_since(t0), status});
    refresh();
    if (status.rfind("skipped", 0) != 0)
      progress.end(probe.name(), seconds_since(t0), status, result);
  }
  result.completed = !stopped;
  if (stopped)
    context.warn("discovery ended early (" + context.stop_reason().value_or("stopped") +
                 "); the results are partial");
  refresh();
  return result;
}

}  // namespace gputopo::discovery
