#include "cli/session.hpp"

#include "cli/exit_codes.hpp"
#include "cli/interrupt.hpp"
#include "model/printable.hpp"
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
  model::Report report = latest_;
  report.warnings.push_back(
      "the run was ended: a measurement did not stop within the grace period after the signal");
  finish_locked(std::move(report), RunStatus::Interrupted);
  return true;
}

void Session::set_device(int index, const std::string& sim) {
  device_index_ = index;
  sim_ = sim;
}

void Session::add_phase(const std::string& name, double seconds, const std::string& status) {
  phases_.push_back({{"name", name}, {"seconds", seconds}, {"status", status}});
}

void Session::set_run_field(const std::string& key, model::Json value) {
  std::lock_guard lock(mutex_);
  run_fields_[key] = std::move(value);
}

model::Report Session::completed(model::Report report, RunStatus status) const {
  using model::Json;
  report.simulated = report.simulated || !sim_.empty();
  report.tool = report::tool_info();
  Json run;
  run["command"] = to_string(options_.command);
  run["commandLine"] = options_.argv;
  run["timestamp"] = report::utc_timestamp(started_wall_);
  run["host"] = report::host_name();
  run["device"] = device_index_;
  if (!sim_.empty()) run["sim"] = {{"preset", sim_}, {"seed", options_.seed}};
  run["durationSeconds"] =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  run["status"] = to_string(status);
  run["phases"] = phases_;
  for (const auto& [key, value] : run_fields_.items()) run[key] = value;
  report.run = std::move(run);
  return report;
}

void Session::write_partial(model::Report report) {
  std::lock_guard lock(mutex_);
  latest_ = report;
  if (!options_.output || partial_write_failed_) return;
  const auto now = std::chrono::steady_clock::now();
  if (last_partial_ && now - *last_partial_ < kPartialInterval) return;
  last_partial_ = now;
  outputs_.write_files(
      completed(std::move(report), RunStatus::Incomplete),
      [this](const std::string& why) {
        partial_write_failed_ = true;
        err_ << "gputopo: " << model::printable(why) << "\n";
      },
      false);
}

int Session::finish(model::Report report, RunStatus status) {
  std::lock_guard lock(mutex_);
  return finish_locked(std::move(report), status);
}

int Session::finish_locked(model::Report report, RunStatus status) {
  finished_ = true;
  const model::Report done = completed(std::move(report), status);
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
