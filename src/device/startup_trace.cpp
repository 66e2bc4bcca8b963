#include "device/startup_trace.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>

namespace gputopo::device {
namespace {

const auto g_started = std::chrono::steady_clock::now();

}  // namespace

void trace_startup(const char* step) {
  static const bool on = std::getenv("GPUTOPO_CALL_TRACE") != nullptr;
  if (!on) return;
  const std::chrono::duration<double, std::milli> ms = std::chrono::steady_clock::now() - g_started;
  std::fprintf(stderr, "gputopo: startup: %s at %.1f ms\n", step, ms.count());
}

}  // namespace gputopo::device
