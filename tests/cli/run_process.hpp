#pragma once

#include <string>
#include <vector>

namespace gputopo::test {

struct ProcessResult {
  int exit_code = -1;  // -1 when killed by a signal
  int signal = 0;
  bool timed_out = false;
  std::string out;
  std::string err;
};

// Runs `argv` (argv[0] is the executable's path) with stdout and stderr captured. After
// `interrupt_after_marker` appears on stderr, sends SIGINT once (empty: never). Kills the process
// after `timeout_s` so that a hang fails the test instead of blocking it.
ProcessResult run_process(const std::vector<std::string>& argv, double timeout_s = 60,
                          const std::string& interrupt_after_marker = {});

}  // namespace gputopo::test
