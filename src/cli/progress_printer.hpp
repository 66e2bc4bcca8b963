#pragma once

#include <functional>
#include <ostream>

#include "discovery/progress.hpp"

namespace gputopo::cli {

// Shows discovery's progress on stderr: a bar redrawn in place on a terminal, one line per phase
// otherwise, nothing when quiet. After each phase it hands the result so far to `phase_done`.
class ProgressPrinter final : public discovery::Progress {
 public:
  using PhaseDone = std::function<void(std::string_view phase, double seconds,
                                       std::string_view status, const discovery::Result&)>;
  ProgressPrinter(std::ostream& err, bool terminal, bool quiet, PhaseDone phase_done);

  void begin(std::string_view phase, std::size_t index, std::size_t count) override;
  void advance(std::size_t done, std::size_t total) override;
  void end(std::string_view phase, double seconds, std::string_view status,
           const discovery::Result& so_far) override;

 private:
  void draw(std::size_t done, std::size_t total);

  std::ostream& err_;
  bool terminal_;
  bool quiet_;
  PhaseDone phase_done_;
  std::string phase_;
  std::size_t index_ = 0;
  std::size_t count_ = 0;
};

}  // namespace gputopo::cli
