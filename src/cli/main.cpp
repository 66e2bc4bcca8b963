#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <new>
#include <system_error>

#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/interrupt.hpp"
#include "cli/options.hpp"
#include "cli/run.hpp"
#include "device/startup_trace.hpp"
#include "model/printable.hpp"

using namespace gputopo::cli;

namespace {

int run_main(int argc, char** argv) {
  // With stdout closed, the next file opened would take its place and receive the report.
  if (fcntl(STDOUT_FILENO, F_GETFD) < 0) {
    std::cerr << "gputopo: stdout is closed; redirect it to a file or /dev/null\n";
    return kExitUsage;
  }
  // A reader that went away (`| head`) makes the writes fail instead of killing the process.
  std::signal(SIGPIPE, SIG_IGN);
  ParseResult parsed = parse_command_line(argc, argv, std::cout, std::cerr);
  int code = parsed.options
                 ? run_command(*parsed.options, std::cout, std::cerr, install_interrupt_handler())
                 : parsed.exit_code;
  // A result that did not reach stdout (a full disk, a closed pipe) is not delivered.
  if (!std::cout.flush() && (code == kExitOk || code == kExitDiffer)) {
    std::cerr << "gputopo: cannot write to stdout: " << std::strerror(errno)
              << "; the output was lost\n";
    code = kExitUsage;
  }
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  gputopo::device::trace_startup("main entered");
  int code = kExitMeasurement;
  try {
    code = run_main(argc, argv);
  } catch (const std::bad_alloc&) {
    std::cerr << "gputopo: out of memory before the run could start: free memory, or raise the "
                 "limit (ulimit -v)\n";
  } catch (const std::system_error& e) {
    std::cerr << "gputopo: " << system_refused(e) << "\n";
  } catch (const std::exception& e) {
    std::cerr << "gputopo: unexpected error: " << gputopo::model::printable(e.what()) << "\n";
  }
  if (device_abandoned()) {
    std::cerr.flush();
    std::_Exit(code);
  }
  gputopo::device::trace_startup("exit");
  return code;
}
