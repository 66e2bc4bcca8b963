#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "targets.hpp"

// Every committed corpus input through its target, in every build (the fuzzers themselves run
// only where libFuzzer is built: docs/testing.md).
namespace gputopo::fuzz {
namespace {

namespace fs = std::filesystem;

std::string read_bytes(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void run_corpus(const std::string& target, const std::function<void(std::string_view)>& fuzz) {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(fs::path(GPUTOPO_FUZZ_CORPUS) / target))
    files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  ASSERT_FALSE(files.empty()) << "no corpus for " << target;
  for (const auto& file : files) {
    SCOPED_TRACE(file.string());
    EXPECT_NO_THROW(fuzz(read_bytes(file)));
  }
}

TEST(FuzzCorpus, SimConfig) { run_corpus("sim_config", fuzz_sim_config); }

TEST(FuzzCorpus, Recording) { run_corpus("recording", fuzz_recording); }

TEST(FuzzCorpus, Cli) { run_corpus("cli", fuzz_cli); }

}  // namespace
}  // namespace gputopo::fuzz
