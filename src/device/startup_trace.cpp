#include "device/startup_trace.hpp"

#include <cstdio>
#include <cstdlib>

namespace gputopo::device {
namespace {

const auto g_started = std::chrono::steady_clock::now();

bool tracing() {
  static const bool on = std::getenv("GPUTOPO_CALL_TRACE") != nullptr;
  return on;
}

}  // namespace

void trace_startup(const char* step) {
  if (!tracing()) return;
  const std::chrono::duration<double, std::milli> ms = std::chrono::steady_clock::now() - g_started;
  std::fprintf(stderr, "gputopo: startup: %s at %.1f ms\n", step, ms.count());
}

void trace_call(const char* who, const char* what, std::chrono::steady_clock::duration wall,
                double device_ns) {
  if (!tracing()) return;
  const std::chrono::duration<double, std::milli> ms = wall;
  std::fprintf(stderr, "gputopo: call %s %s: %.3f ms wall, %.3f ms timed\n", who, what, ms.count(),
               device_ns / 1e6);
}

}  // namespace gputopo::device
