#pragma once

#include <atomic>
#include <ostream>

#include "cli/options.hpp"

namespace gputopo::cli {

// -d all: every GPU of the host discovered (identical GPUs in parallel, one host thread per GPU),
// then the links measured, one GPU at a time. Writes the host document (docs/schema.md): JSON to
// -o FILE and with --json, else each GPU's text report and then the host section. A GPU that fails
// does not lose the others' reports; the exit code is then 4 (docs/cli.md).
int run_host(const Options& options, std::ostream& out, std::ostream& err,
             const std::atomic<bool>& interrupted);

}  // namespace gputopo::cli
