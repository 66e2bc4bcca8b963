#include "cli/interrupt.hpp"

#include <semaphore.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <iostream>
#include <mutex>
#include <thread>

#include "cli/exit_codes.hpp"

namespace gputopo::cli {
namespace {
std::atomic<bool> g_interrupted{false};
static_assert(std::atomic<bool>::is_always_lock_free, "the flag is set from a signal handler");
// Posted by the handler (sem_post is async-signal-safe) to wake the watchdog.
sem_t g_signalled;
std::mutex g_last_words_mutex;
std::function<bool()> g_last_words;

extern "C" void on_signal(int signal) {
  if (g_interrupted.exchange(true)) {
    std::signal(signal, SIG_DFL);
    std::raise(signal);
    return;
  }
  sem_post(&g_signalled);
}

void watchdog(std::chrono::milliseconds grace) {
  while (sem_wait(&g_signalled) != 0 && errno == EINTR) {
  }
  std::this_thread::sleep_for(grace);
  bool reported = false;
  {
    std::lock_guard lock(g_last_words_mutex);
    if (g_last_words) reported = g_last_words();
  }
  // Before the run had anything to write (a GPU still starting), the end is still said.
  if (!reported)
    std::cerr << "gputopo: interrupted: the run did not stop within "
              << std::chrono::duration<double>(grace).count()
              << " s after the signal (the GPU still starting, or a measurement that does not "
                 "return); ended without a report\n";
  std::_Exit(kExitMeasurement);
}

}  // namespace

const std::atomic<bool>& install_interrupt_handler(std::chrono::milliseconds grace) {
  static const bool installed = [grace] {
    sem_init(&g_signalled, 0, 0);
    std::thread(watchdog, grace).detach();
    struct sigaction action {};
    action.sa_handler = on_signal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    sigaction(SIGINT, &action, nullptr);
    sigaction(SIGTERM, &action, nullptr);
    sigaction(SIGHUP, &action, nullptr);
    return true;
  }();
  (void)installed;
  return g_interrupted;
}

void set_last_words(std::function<bool()> last_words) {
  std::lock_guard lock(g_last_words_mutex);
  g_last_words = std::move(last_words);
}

}  // namespace gputopo::cli
