#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iostream>

#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/interrupt.hpp"
#include "cli/options.hpp"
#include "cli/run.hpp"

using namespace gputopo::cli;

int main(int argc, char** argv) {
  // With stdout closed, the next file opened would take its place and receive the report.
  if (fcntl(STDOUT_FILENO, F_GETFD) < 0) {
    std::cerr << "gputopo: stdout is closed; redirect it to a file or /dev/null\n";
    return kExitUsage;
  }
  ParseResult parsed = parse_command_line(argc, argv, std::cout, std::cerr);
  int code = parsed.options
                 ? run_command(*parsed.options, std::cout, std::cerr, install_interrupt_handler())
                 : parsed.exit_code;
  // A report that did not reach stdout (a full disk, a closed descriptor) is not a success.
  if (!std::cout.flush() && code == kExitOk) {
    std::cerr << "gputopo: cannot write to stdout: " << std::strerror(errno) << "\n";
    code = kExitUsage;
  }
  if (device_abandoned()) {
    std::cerr.flush();
    std::_Exit(code);
  }
  return code;
}
