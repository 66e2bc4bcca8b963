#include "cli/wait_idle.hpp"

#include <fmt/format.h>

#include <chrono>
#include <thread>

#include "discovery/guard.hpp"

namespace gputopo::cli {

bool wait_idle(device::Device& device, double seconds, std::ostream& err, bool quiet,
               const std::atomic<bool>& interrupted, double poll_s) {
  using Steady = std::chrono::steady_clock;
  const auto start = Steady::now();
  constexpr double kReportEvery = 5;
  double reported = -kReportEvery;
  for (;;) {
    const auto why = discovery::busy_reason(device.state(), std::nullopt);
    if (!why) return true;
    const double waited = std::chrono::duration<double>(Steady::now() - start).count();
    if (waited >= seconds || interrupted.load()) {
      if (!quiet)
        err << fmt::format("gputopo: GPU {} still busy after {:.0f} s ({}); running anyway\n",
                           device.info().index, waited, *why);
      return false;
    }
    if (!quiet && waited - reported >= kReportEvery) {
      err << fmt::format(
                 "gputopo: GPU {} is busy ({}); waiting for it (--wait-idle), {:.0f} s left\n",
                 device.info().index, *why, seconds - waited)
          << std::flush;
      reported = waited;
    }
    std::this_thread::sleep_for(std::chrono::duration<double>(std::min(poll_s, seconds - waited)));
  }
}

}  // namespace gputopo::cli
