#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <ostream>

#include "discovery/progress.hpp"

namespace gputopo::cli {

// Shows discovery's progress on stderr: a bar redrawn in place on a terminal, one line per phase
// otherwise, nothing when quiet. After each phase it calls `phase_done`, with the result so far
// when kResultInterval has passed since it last handed one (else nullptr): the session writes its
// partial file each time, and its last words lose no more than that. A run that an error ends
// hands everything it measured to `stopped`.
class ProgressPrinter final : public discovery::Progress {
 public:
  using PhaseDone = std::function<void(std::string_view phase, double seconds,
                                       std::string_view status, const discovery::Result*)>;
  using StoppedByError = std::function<void(const discovery::Result&)>;
  static constexpr std::chrono::milliseconds kResultInterval{250};
  ProgressPrinter(std::ostream& err, bool terminal, bool quiet, PhaseDone phase_done,
                  StoppedByError stopped = {});

  void begin(std::string_view phase, std::size_t index, std::size_t count) override;
  void advance(std::size_t done, std::size_t total) override;
  void end(std::string_view phase, double seconds, std::string_view status,
           const discovery::Result* so_far) override;
  bool wants_result() const override;
  void stopped_by_error(const discovery::Result& so_far) override;

 private:
  void draw(std::size_t done, std::size_t total);

  std::ostream& err_;
  bool terminal_;
  bool quiet_;
  PhaseDone phase_done_;
  StoppedByError stopped_;
  std::string phase_;
  std::size_t index_ = 0;
  std::size_t count_ = 0;
  std::optional<std::chrono::steady_clock::time_point> last_result_;
};

}  // namespace gputopo::cli
