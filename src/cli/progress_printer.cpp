#include "cli/progress_printer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <string>

namespace gputopo::cli {

ProgressPrinter::ProgressPrinter(std::ostream& err, bool terminal, bool quiet, PhaseDone phase_done,
                                 StoppedByError stopped)
    : err_(err),
      terminal_(terminal),
      quiet_(quiet),
      phase_done_(std::move(phase_done)),
      stopped_(std::move(stopped)) {}

void ProgressPrinter::begin(std::string_view phase, std::size_t index, std::size_t count) {
  phase_ = phase;
  index_ = index;
  count_ = count;
  if (quiet_) return;
  if (terminal_)
    draw(0, 0);
  else
    err_ << fmt::format("gputopo: [{}/{}] {}\n", index + 1, count, phase) << std::flush;
}

void ProgressPrinter::advance(std::size_t done, std::size_t total) {
  if (!quiet_ && terminal_) draw(done, total);
}

void ProgressPrinter::draw(std::size_t done, std::size_t total) {
  constexpr std::size_t kWidth = 24;
  const std::size_t filled = total == 0 ? 0 : std::min(kWidth, done * kWidth / total);
  err_ << fmt::format("\r\033[K[{}/{}] {:<18} [{}{}] {}/{}", index_ + 1, count_, phase_,
                      std::string(filled, '#'), std::string(kWidth - filled, '.'), done, total)
       << std::flush;
}

void ProgressPrinter::end(std::string_view phase, double seconds, std::string_view status,
                          const discovery::Result* so_far) {
  if (!quiet_) {
    std::string line =
        fmt::format("[{}/{}] {} {:.2f} s ({})", index_ + 1, count_, phase, seconds, status);
    if (terminal_)
      err_ << "\r\033[K" << line << "\n" << std::flush;
    else
      err_ << "gputopo: " << line << "\n" << std::flush;
  }
  if (so_far) last_result_ = std::chrono::steady_clock::now();
  if (phase_done_) phase_done_(phase, seconds, status, so_far);
}

void ProgressPrinter::stopped_by_error(const discovery::Result& so_far) {
  if (stopped_) stopped_(so_far);
}

bool ProgressPrinter::wants_result() const {
  return !last_result_ || std::chrono::steady_clock::now() - *last_result_ >= kResultInterval;
}

}  // namespace gputopo::cli
