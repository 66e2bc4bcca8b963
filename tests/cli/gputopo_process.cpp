#include "gputopo_process.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include "../report/schema_validator.hpp"

namespace gputopo::test {

ProcessResult gputopo(std::vector<std::string> args, const std::string& interrupt_after) {
  args.insert(args.begin(), GPUTOPO_BINARY);
  return run_process(args, 300, interrupt_after);
}

std::filesystem::path temp_file(const std::string& name) {
  return std::filesystem::path(::testing::TempDir()) /
         ("gputopo-cli-" + std::to_string(getpid()) + "-" + name);
}

void expect_conforms(const nlohmann::json& report) {
  SchemaValidator schema(load_json_file(GPUTOPO_SCHEMA_FILE));
  std::string all;
  for (const auto& e : schema.validate(report)) all += e + "\n";
  EXPECT_TRUE(all.empty()) << all;
}

}  // namespace gputopo::test
