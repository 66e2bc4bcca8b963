#pragma once

#include <chrono>
#include <mutex>
#include <optional>
#include <ostream>
#include <string>

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

// One run of the tool: its `tool` and `run` sections (timestamp, host, command line, phases,
// duration, status) and where the report goes: -o FILE after every phase and at the end, stdout
// (text or --json) at the end.
class Session {
 public:
  // The session's last words (interrupt.hpp) write the report as it stands, status
  // `interrupted`, when a run does not stop within the grace period after a signal.
  Session(const Options& options, std::ostream& out, std::ostream& err);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // The device the run uses; `sim` is the preset or file when simulated, "" otherwise.
  void set_device(int index, const std::string& sim);
  void add_phase(const std::string& name, double seconds, const std::string& status);
  // A further member of the `run` section (e.g. "disturbed").
  void set_run_field(const std::string& key, model::Json value);

  // Writes `report` as it stands to -o FILE (never to stdout), so that an interrupted or failed
  // run leaves its results behind, and keeps it for the last words. The file is rewritten at most
  // every kPartialInterval and without fsync (each write serializes the whole report; the final
  // one is synced). A write failure is reported once and does not stop the run.
  void write_partial(model::Report report);

  // Writes the final report (-o FILE, stdout) and returns the exit code.
  int finish(model::Report report, RunStatus status);

  // The report with `tool` and `run` filled in.
  model::Report completed(model::Report report, RunStatus status) const;

 private:
  int finish_locked(model::Report report, RunStatus status);
  bool last_words();  // false when nothing could be written

  const Options& options_;
  std::ostream& out_;
  std::ostream& err_;
  report::MultiWriter outputs_;  // -o FILE (JSON), then stdout (text or JSON)
  std::chrono::system_clock::time_point started_wall_;
  std::chrono::steady_clock::time_point started_;
  int device_index_ = 0;
  std::string sim_;
  model::Json phases_ = model::Json::array();
  model::Json run_fields_ = model::Json::object();
  bool partial_write_failed_ = false;
  static constexpr std::chrono::milliseconds kPartialInterval{250};
  std::optional<std::chrono::steady_clock::time_point> last_partial_;
  std::timed_mutex mutex_;  // the main thread against the last words
  model::Report latest_;
  bool finished_ = false;
};

}  // namespace gputopo::cli
