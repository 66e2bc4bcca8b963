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

void expect_one_line_error(const ProcessResult& r, int code, const std::string& contains) {
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(r.exit_code, code) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_EQ(r.err.rfind("gputopo: ", 0), 0u) << r.err;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "not one line: " << r.err;
  if (!contains.empty()) {
    EXPECT_NE(r.err.find(contains), std::string::npos) << r.err;
  }
}

}  // namespace gputopo::test
