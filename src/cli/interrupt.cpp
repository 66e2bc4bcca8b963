#include "cli/interrupt.hpp"

#include <csignal>

namespace gputopo::cli {
namespace {
std::atomic<bool> g_interrupted{false};
static_assert(std::atomic<bool>::is_always_lock_free, "the flag is set from a signal handler");

extern "C" void on_signal(int signal) {
  if (g_interrupted.exchange(true)) {
    std::signal(signal, SIG_DFL);
    std::raise(signal);
  }
}
}  // namespace

const std::atomic<bool>& install_interrupt_handler() {
  struct sigaction action {};
  action.sa_handler = on_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
  return g_interrupted;
}

}  // namespace gputopo::cli
