#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <exception>
#include <iostream>
#include <new>

#include "cli/commands.hpp"
#include "cli/device_source.hpp"
#include "cli/exit_codes.hpp"
#include "cli/interrupt.hpp"
#include "cli/options.hpp"

namespace {
using namespace gputopo::cli;

int run(const Options& o) {
  const std::atomic<bool>& interrupted = install_interrupt_handler();
  try {
    switch (o.command) {
      case Command::List:
        return run_list(o, std::cout, std::cerr);
      case Command::Info:
        return run_info(o, std::cout, std::cerr);
      case Command::Discover:
      case Command::Analyze:
        return run_discover(o, std::cout, std::cerr, interrupted);
    }
  } catch (const std::bad_alloc&) {
    std::cerr << "gputopo: out of memory while running " << to_string(o.command)
              << (o.sim ? " on --sim " + *o.sim : std::string())
              << (o.replay_dir ? " on the recording " + *o.replay_dir : std::string())
              << ": free memory, or give a smaller simulated GPU\n";
    return kExitMeasurement;
  } catch (const gputopo::device::Error& e) {
    std::cerr << "gputopo: " << e.what() << "\n";
    return exit_code_for(e.kind());
  } catch (const UsageError& e) {
    std::cerr << "gputopo: " << e.what() << "\n";
    return kExitUsage;
  } catch (const std::exception& e) {
    std::cerr << "gputopo: unexpected error: " << e.what() << "\n";
    return kExitMeasurement;
  }
  return kExitUsage;
}

}  // namespace

int main(int argc, char** argv) {
  // With stdout closed, the next file opened would take its place and receive the report.
  if (fcntl(STDOUT_FILENO, F_GETFD) < 0) {
    std::cerr << "gputopo: stdout is closed; redirect it to a file or /dev/null\n";
    return kExitUsage;
  }
  ParseResult parsed = parse_command_line(argc, argv, std::cout, std::cerr);
  int code = parsed.options ? run(*parsed.options) : parsed.exit_code;
  // A report that did not reach stdout (a full disk, a closed descriptor) is not a success.
  if (!std::cout.flush() && code == kExitOk) {
    std::cerr << "gputopo: cannot write to stdout: " << std::strerror(errno) << "\n";
    code = kExitUsage;
  }
  return code;
}
