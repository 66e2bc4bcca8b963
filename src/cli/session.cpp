#include "cli/session.hpp"

#include "cli/exit_codes.hpp"
#include "cli/interrupt.hpp"
#include "model/printable.hpp"
#include "model/seconds_since.hpp"
#include "report/run_info.hpp"
#include "report/writers.hpp"

namespace gputopo::cli {

std::string_view to_string(RunStatus s) {
  switch (s) {
    case RunStatus::Complete:
      return "complete";
    case RunStatus::Incomplete:
      return "incomplete";
    case RunStatus::Interrupted:
      return "interrupted";
    case RunStatus::Failed:
      return "failed";
    case RunStatus::Disturbed:
      return "disturbed";
  }
  return "unknown";
}

Session::Session(const Options& options, std::ostream& out, std::ostream& err)
    : options_(options),
      out_(out),
      err_(err),
      started_wall_(std::chrono::system_clock::now()),
      started_(std::chrono::steady_clock::now()),
      device_index_(options.device) {
  const auto format = [&](const char* otherwise) {
    return report::find_writer(options_.format.value_or(otherwise));
  };
  if (options_.output) outputs_.add_file(*format("json"), *options_.output);
  // check prints the comparison, not the report.
  if (options_.command != Command::Check)
    outputs_.add_stream(options_.stdout_format ? *report::find_writer(*options_.stdout_format)
                                               : *format(options_.json ? "json" : "text"),
                        out_);
  set_last_words([this] { return last_words(); });
}

Session::~Session() { set_last_words({}); }

bool Session::last_words() {
  std::unique_lock lock(mutex_, std::chrono::seconds(1));
  if (!lock.owns_lock()) return false;
  if (finished_) return true;
  warnings_.push_back(
      "the run was ended: a measurement did not stop within the grace period after the signal");
  finish_locked(RunStatus::Interrupted);
  return true;
}

void Session::set_device(const model::DeviceInfo& facts, int index, const std::string& sim) {
  std::lock_guard lock(mutex_);
  assembly_ = assembly::Assembly(facts, !sim.empty());
  device_index_ = index;
  sim_ = sim;
}

void Session::add_phase(const std::string& name, double seconds, const std::string& status) {
  std::lock_guard lock(mutex_);
  phases_.push_back({name, seconds, status});
}

void Session::set_findings(discovery::Result findings) {
  std::lock_guard lock(mutex_);
  findings_ = std::move(findings);
}

void Session::add_warning(std::string warning) {
  std::lock_guard lock(mutex_);
  warnings_.push_back(std::move(warning));
}

model::Run Session::run(RunStatus status) const {
  model::Run run;
  run.command = to_string(options_.command);
  run.command_line = options_.argv;
  run.timestamp = report::utc_timestamp(started_wall_);
  run.host = report::host_name();
  run.device = device_index_;
  if (!sim_.empty()) run.sim = model::Simulation{sim_, options_.seed};
  run.duration_seconds = model::seconds_since(started_);
  run.status = to_string(status);
  run.phases = phases_;
  return run;
}

model::Report Session::assembled(RunStatus status) const {
  model::Report report = assembly_.report(findings_ ? &*findings_ : nullptr, run(status));
  report.warnings.insert(report.warnings.end(), warnings_.begin(), warnings_.end());
  return report;
}

model::Report Session::report(RunStatus status) const {
  std::lock_guard lock(mutex_);
  return assembled(status);
}

void Session::write_partial() {
  std::lock_guard lock(mutex_);
  if (!options_.output || partial_write_failed_) return;
  outputs_.write_files(
      assembled(RunStatus::Incomplete),
      [this](const std::string& why) {
        partial_write_failed_ = true;
        err_ << "gputopo: " << model::printable(why) << "\n";
      },
      false);
}

int Session::finish(RunStatus status) {
  std::lock_guard lock(mutex_);
  return finish_locked(status);
}

int Session::finish_locked(RunStatus status) {
  finished_ = true;
  const model::Report done = assembled(status);
  int code = (status == RunStatus::Interrupted || status == RunStatus::Failed) ? kExitMeasurement
             : status == RunStatus::Disturbed                                  ? kExitDisturbed
                                                                               : kExitOk;
  outputs_.write(done, [&](const std::string& why) {
    err_ << "gputopo: " << model::printable(why) << "\n";
    if (code == kExitOk) code = kExitUsage;
  });
  if (code == kExitMeasurement)
    err_ << "gputopo: the run " << to_string(status) << "; partial results were written"
         << (options_.output ? " to " + *options_.output : std::string()) << "\n";
  if (code == kExitDisturbed)
    err_ << "gputopo: other work on the GPU disturbed some phases (run.disturbed); their findings "
            "are not established: run again on a free GPU (--wait-idle)\n";
  return code;
}

}  // namespace gputopo::cli
