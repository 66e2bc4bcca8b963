#include "cli/run.hpp"

#include <exception>
#include <new>
#include <string>

#include "cli/commands.hpp"
#include "cli/device_source.hpp"
#include "cli/exit_codes.hpp"
#include "cli/host_run.hpp"
#include "model/printable.hpp"

namespace gputopo::cli {

std::string system_refused(const std::system_error& e) {
  if (e.code() != std::errc::resource_unavailable_try_again &&
      e.code() != std::errc::not_enough_memory)
    return "system error: " + model::printable(e.what());
  return "the system refused a thread or other resource (" + model::printable(e.what()) +
         "): raise the process limits (ulimit -u, ulimit -v) or free memory";
}

int run_command(const Options& o, std::ostream& out, std::ostream& err,
                const std::atomic<bool>& interrupted) {
  try {
    switch (o.command) {
      case Command::List:
        return run_list(o, out, err);
      case Command::Info:
        return run_info(o, out, err);
      case Command::Discover:
        if (o.all_devices) return run_host(o, out, err, interrupted);
        if (o.fleet) return run_fleet(o, out, err, interrupted);
        return run_discover(o, out, err, interrupted);
      case Command::Compare:
        return run_compare(o, out, err);
      case Command::Check:
        return run_check(o, out, err, interrupted);
      case Command::Analyze:
      case Command::Tree:
      case Command::Report:
        return run_discover(o, out, err, interrupted);
    }
  } catch (const std::bad_alloc&) {
    err << "gputopo: out of memory while running " << to_string(o.command)
        << model::printable((o.sim ? " on --sim " + *o.sim : std::string()) +
                            (o.replay_dir ? " on the recording " + *o.replay_dir : std::string()))
        << ": free memory, or give a smaller simulated GPU\n";
    return kExitMeasurement;
  } catch (const device::Error& e) {
    err << "gputopo: " << e.what() << "\n";
    return exit_code_for(e.kind());
  } catch (const UsageError& e) {
    err << "gputopo: " << e.what() << "\n";
    return kExitUsage;
  } catch (const std::system_error& e) {
    err << "gputopo: " << system_refused(e) << "\n";
    return kExitMeasurement;
  } catch (const std::exception& e) {
    err << "gputopo: unexpected error: " << model::printable(e.what()) << "\n";
    return kExitMeasurement;
  }
  return kExitUsage;
}

}  // namespace gputopo::cli
