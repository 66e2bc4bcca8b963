#include "report/run_info.hpp"

#include <unistd.h>

#include <ctime>

namespace gputopo::report {

std::string tool_version() { return GPUTOPO_VERSION; }

std::string tool_git_describe() { return GPUTOPO_GIT_DESCRIBE; }

model::Tool tool_info() { return {"gputopo", tool_version(), tool_git_describe()}; }

std::string utc_timestamp(std::chrono::system_clock::time_point t) {
  std::time_t seconds = std::chrono::system_clock::to_time_t(t);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return buffer;
}

std::string host_name() {
  char buffer[256] = {};
  if (gethostname(buffer, sizeof buffer - 1) != 0) return "unknown";
  return buffer;
}

}  // namespace gputopo::report
