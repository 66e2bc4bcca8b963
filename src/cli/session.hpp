#pragma once

#include <chrono>
#include <mutex>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "assembly/assemble.hpp"
#include "cli/options.hpp"
#include "model/report.hpp"
#include "report/multi_writer.hpp"

namespace gputopo::cli {

enum class RunStatus {
  Complete,     // everything planned ran
  Incomplete,   // the time budget ran out; what ran is reported (exit 0)
  Interrupted,  // SIGINT or SIGTERM; partial results written (exit 4)
  Failed,       // a measurement failed or the GPU was lost; partial results written (exit 4)
  Disturbed,    // other work on the GPU disturbed some phases; their findings demoted (exit 5)
};

std::string_view to_string(RunStatus s);

// One run of the tool: what it knows so far (the device's facts, the findings, the phases) and
// where the report goes: -o FILE after every phase and at the end, stdout (text or --json) at the
// end. Every report it writes is put together by one assembly::Assembly.
class Session {
 public:
  // The session's last words (interrupt.hpp) write the report as it stands, status
  // `interrupted`, when a run does not stop within the grace period after a signal.
  Session(const Options& options, std::ostream& out, std::ostream& err);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // The device the run uses: its facts, its index, and `sim`, the preset or file when simulated,
  // "" otherwise.
  void set_device(const model::DeviceInfo& facts, int index, const std::string& sim);
  void add_phase(const std::string& name, double seconds, const std::string& status);
  // What the discovery found so far; the report has it from now on.
  void set_findings(discovery::Result findings);
  // A warning about the run itself, after the findings' own (the run stopped: why).
  void add_warning(std::string warning);

  // Writes the report as it stands to -o FILE (never to stdout), so that an interrupted or failed
  // run leaves its results behind, each time the discovery hands over its result so far (at most
  // every ProgressPrinter::kResultInterval), without fsync (each write serializes the whole
  // report; the final one is synced). A write failure is reported once and does not stop the run.
  void write_partial();

  // Writes the final report (-o FILE, stdout) and returns the exit code.
  int finish(RunStatus status);

  // The report as it stands, its run section ending with `status`.
  model::Report report(RunStatus status) const;

 private:
  int finish_locked(RunStatus status);
  bool last_words();  // false when nothing could be written
  model::Run run(RunStatus status) const;
  model::Report assembled(RunStatus status) const;  // the caller holds mutex_

  const Options& options_;
  std::ostream& out_;
  std::ostream& err_;
  report::MultiWriter outputs_;  // -o FILE (JSON), then stdout (text or JSON)
  std::chrono::system_clock::time_point started_wall_;
  std::chrono::steady_clock::time_point started_;
  int device_index_ = 0;
  std::string sim_;
  assembly::Assembly assembly_;
  std::optional<discovery::Result> findings_;
  std::vector<std::string> warnings_;  // add_warning's
  std::vector<model::Phase> phases_;
  bool partial_write_failed_ = false;
  mutable std::timed_mutex mutex_;  // the main thread against the last words
  bool finished_ = false;
};

}  // namespace gputopo::cli
