#include <exception>
#include <iostream>

#include "cli/commands.hpp"
#include "cli/device_source.hpp"
#include "cli/exit_codes.hpp"
#include "cli/interrupt.hpp"
#include "cli/options.hpp"

int main(int argc, char** argv) {
  using namespace gputopo::cli;
  ParseResult parsed = parse_command_line(argc, argv, std::cout, std::cerr);
  if (!parsed.options) return parsed.exit_code;
  const Options& o = *parsed.options;
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
