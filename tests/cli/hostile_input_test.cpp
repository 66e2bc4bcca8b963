// Issue 32: hostile and careless input to the built binary. Each case is one row of the issue
// (its number in the test's comment); none may crash, run away or report garbage.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>

#include "../report/schema_validator.hpp"
#include "gputopo_process.hpp"

namespace gputopo::test {
namespace {
namespace fs = std::filesystem;
using Doc = nlohmann::json;  // as the binary writes it

const std::string kHostileGolden = std::string(GPUTOPO_TEST_DATA) + "/golden/";

Doc preset_json(const std::string& name) {
  return load_json_file((fs::path(GPUTOPO_PRESET_DIR) / (name + ".json")).string());
}

// The toy preset with `edit` applied, as a file.
std::string toy_config_with(const std::string& name, const std::function<void(Doc&)>& edit) {
  Doc toy = preset_json("toy");
  edit(toy);
  const fs::path file = temp_file(name + ".json");
  std::ofstream(file) << toy.dump();
  return file.string();
}

const Doc& memory_attr(const Doc& report, const std::string& element, const std::string& key) {
  return report.at("memory").at(element).at(key);
}

std::string file_text(const fs::path& p) {
  std::ifstream in(p);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void put_file_text(const fs::path& p, const std::string& text) { std::ofstream(p) << text; }

// A recording of the toy's `only` into a fresh DIR.
fs::path record_toy_run(const std::string& name, const std::string& only) {
  const fs::path dir = temp_file(name);
  fs::remove_all(dir);
  const ProcessResult r = gputopo({"--sim", "toy", "-q", "--only", only, "--raw", dir.string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return dir;
}

// Row 1: a device memory too small for the TLB probe's arrays.
TEST(HostileInput, TlbOnATinyMemoryIsNotEstablishedNotACrash) {
  for (const int bytes : {4096, 65536, 1 << 20}) {
    const std::string config = toy_config_with("tiny-memory-" + std::to_string(bytes), [&](Doc& t) {
      t["device"]["global_memory_bytes"] = bytes;
    });
    const ProcessResult r = gputopo({"--sim", config, "-q", "--only", "tlb", "--json"});
    // The L2 probes it depends on ask for more than the memory holds: a failed run, one line.
    EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 4) << bytes << ": " << r.err;
    EXPECT_EQ(r.err.rfind("gputopo: ", 0), 0u) << r.err;
    EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;
    const Doc page = memory_attr(Doc::parse(r.out), "tlb", "pageSize");
    EXPECT_EQ(page["available"], false) << page;
    EXPECT_FALSE(page.value("reason", "").empty()) << page;
  }
}

// Row 2: 320 SMs that clusters of 2 tie in pairs only leave 160 loose units to place.
TEST(HostileInput, TheLayoutOf320SmsTakesUnderTenSecondsAnd200MiB) {
  const std::string config = toy_config_with("320-sms", [](Doc& t) {
    t["device"]["sm_count"] = 320;
    t["layout"]["gpc_tpcs"] = {160, 160};
  });
  const auto start = std::chrono::steady_clock::now();
  const ProcessResult r = gputopo({"--sim", config, "-q", "--only", "layout", "--json"});
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_EQ(r.exit_code, 0) << r.err;
  rusage usage{};
  ASSERT_EQ(getrusage(RUSAGE_CHILDREN, &usage), 0);
  EXPECT_LT(seconds, 10);
  EXPECT_LT(usage.ru_maxrss, 200 * 1024) << "KiB";
  EXPECT_EQ(Doc::parse(r.out)["compute"]["smCount"]["value"], 320);
}

// Row 4: a process limit that refuses threads or memory.
TEST(HostileInput, ThreadOrMemoryExhaustionIsOneLineAndExitFour) {
#ifdef GPUTOPO_SANITIZED
  GTEST_SKIP() << "the sanitizers reserve more address space than the limit leaves";
#endif
  // Room to map the binary and the C library, and 6 MB more: too little for the run's threads.
  const auto limit_kib = std::filesystem::file_size(GPUTOPO_BINARY) / 1024 + 6000;
  const ProcessResult r = run_process({"/bin/sh", "-c",
                                       "ulimit -v " + std::to_string(limit_kib) + "; exec " +
                                           GPUTOPO_BINARY + " --sim toy -q info"});
  expect_one_line_error(r, 4);
  EXPECT_EQ(r.err.find("terminate"), std::string::npos) << r.err;
}

// Row 5: a DRAM faster than the L2 gives a negative latency and miss penalty: not physical.
TEST(HostileInput, ANegativeLatencyIsNotEstablished) {
  const std::string config =
      toy_config_with("dram-latency-1", [](Doc& t) { t["dram"]["latency_cycles"] = 1; });
  const ProcessResult r = gputopo({"--sim", config, "-q", "--only", "dram.latency", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Doc report = Doc::parse(r.out);
  for (const auto& [element, block] : report["memory"].items())
    for (const auto& [key, a] : block.items())
      if (a.contains("value") && a["value"].is_number()) {
        EXPECT_GE(a["value"].get<double>(), 0) << element << "." << key << ": " << a;
      }
  const Doc latency = memory_attr(report, "dram", "latency");
  EXPECT_EQ(latency["available"], false) << latency;
  EXPECT_NE(latency.value("reason", "").find("cannot be physical"), std::string::npos) << latency;
}

// Rows 6 and 7: a recording whose stream sample is 2^64 GB/s and whose SM clock is negative.
TEST(HostileInput, AReplayedImpossibleBandwidthOrClockIsNotEstablished) {
  const fs::path dir = record_toy_run("impossible-raw", "l2.bandwidth");
  Doc manifest = Doc::parse(file_text(dir / "manifest.json"));
  manifest["device"]["general"]["smClockMax"]["value"] = -1980;
  std::string stream_file;
  for (const auto& call : manifest["calls"])
    if (call["op"] == "stream" && stream_file.empty()) stream_file = call["samples"];
  ASSERT_FALSE(stream_file.empty());
  put_file_text(dir / "manifest.json", manifest.dump(2));
  std::string samples = file_text(dir / stream_file);
  const std::size_t row = samples.find("\n0,");
  ASSERT_NE(row, std::string::npos) << samples;
  samples.replace(row, samples.find('\n', row + 1) - row, "\n0,18446744073709551616");
  put_file_text(dir / stream_file, samples);
  const ProcessResult r =
      gputopo({"analyze", dir.string(), "-q", "--only", "l2.bandwidth", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Doc report = Doc::parse(r.out);
  const Doc clock = report["device"]["smClockMax"];
  EXPECT_EQ(clock["available"], false) << clock;
  EXPECT_NE(clock.value("reason", "").find("negative"), std::string::npos) << clock;
  for (const auto& [key, a] : report["memory"]["l2"].items())
    if (a.value("unit", "") == "GB/s" && a["value"].is_number()) {
      EXPECT_LT(a["value"].get<double>(), 1e6) << key << ": " << a;
    }
  fs::remove_all(dir);
}

// Row 8: an L1 of 1.5 cycles rounds to 1 or 2 from one chase to the next; that is not other work.
TEST(HostileInput, ALatencyOfACycleAndAHalfIsNotADisturbance) {
  const std::string config =
      toy_config_with("l1-1.5-cycles", [](Doc& t) { t["caches"]["l1"]["latency_cycles"] = 1.5; });
  const ProcessResult r = gputopo({"--sim", config, "-q", "--json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Doc::parse(r.out)["run"]["status"], "complete");
}

// Row 9: no built-in preset reports more than its peak.
TEST(HostileInput, NoPresetReadsDramAboveItsDerivedPeak) {
  const ProcessResult r = gputopo({"--sim", "toy", "-q", "--only", "dram.bandwidth", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Doc fraction = memory_attr(Doc::parse(r.out), "dram", "readFractionOfPeak");
  ASSERT_TRUE(fraction["value"].is_number()) << fraction;
  EXPECT_LE(fraction["value"].get<double>(), 100) << fraction;
}

// The committed recording `name` (tests/data/runs/NAME.tgz), unpacked into a fresh directory.
fs::path unpacked(const std::string& name) {
  const fs::path dir = temp_file(name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  const ProcessResult tar =
      run_process({"/bin/tar", "-xzf", std::string(GPUTOPO_TEST_DATA) + "/runs/" + name + ".tgz",
                   "-C", dir.string(), "--strip-components=1"});
  EXPECT_EQ(tar.exit_code, 0) << tar.err;
  return dir;
}

// Row 11: a compute sample file cut to its header, halved, or without its last row.
TEST(HostileInput, ACutComputeSampleFileIsRefusedNamingFileAndLine) {
  const std::vector<std::function<std::string(const std::string&)>> cuts{
      [](const std::string& t) { return t.substr(0, t.find('\n') + 1); },
      [](const std::string& t) { return t.substr(0, t.rfind('\n', t.size() / 2) + 1); },
      [](const std::string& t) { return t.substr(0, t.rfind('\n', t.size() - 2) + 1); }};
  for (const char* recording : {"h100-wgmma-raw", "h100-divergence-clusters-raw"}) {
    for (std::size_t c = 0; c < cuts.size(); ++c) {
      const fs::path dir = unpacked(recording);
      fs::path compute;
      for (const auto& entry : fs::directory_iterator(dir))
        if (entry.path().filename().string().ends_with("-compute.csv")) compute = entry.path();
      ASSERT_FALSE(compute.empty()) << recording;
      put_file_text(compute, cuts[c](file_text(compute)));
      const ProcessResult r = gputopo({"analyze", dir.string(), "-q"});
      expect_one_line_error(r, 2, compute.filename().string() + ":");
      fs::remove_all(dir);
    }
  }
}

// Row 12: a recording marked incomplete replays as interrupted, whatever it holds.
TEST(HostileInput, ARecordingMarkedIncompleteReplaysAsInterrupted) {
  const fs::path dir = record_toy_run("marked-incomplete-raw", "l1.latency");
  Doc manifest = Doc::parse(file_text(dir / "manifest.json"));
  ASSERT_EQ(manifest["complete"], true);
  manifest["complete"] = false;
  put_file_text(dir / "manifest.json", manifest.dump(2));
  const ProcessResult r =
      gputopo({"analyze", dir.string(), "-q", "--only", "l1.latency", "--json"});
  EXPECT_EQ(r.exit_code, 4) << r.err;
  EXPECT_NE(r.err.find("interrupted"), std::string::npos) << r.err;
  const Doc report = Doc::parse(r.out);
  EXPECT_EQ(report["run"]["status"], "interrupted");
  EXPECT_NE(report["warnings"].dump().find("recording cut short"), std::string::npos);
  fs::remove_all(dir);
}

// Row 14: a directory without a recording keeps a user's file named as a sample file.
TEST(HostileInput, RawIntoADirectoryWithoutARecordingKeepsTheUsersFiles) {
  const fs::path dir = temp_file("users-raw");
  fs::remove_all(dir);
  fs::create_directories(dir);
  put_file_text(dir / "99999-chase.csv", "mine");
  const ProcessResult r =
      gputopo({"--sim", "toy", "-q", "--only", "l1.latency", "--raw", dir.string()});
  expect_one_line_error(r, 2, "99999-chase.csv");
  EXPECT_EQ(file_text(dir / "99999-chase.csv"), "mine");
  fs::remove_all(dir);
}

// Row 16: an empty value is not an absent one.
TEST(HostileInput, AnEmptyValueIsAUsageError) {
  const std::string a = kHostileGolden + "toy.json";
  expect_one_line_error(gputopo({"compare", "--tolerance", "", a, a}), 2, "--tolerance");
  expect_one_line_error(gputopo({"check", "--sim", "toy", "--reference", ""}), 2, "--reference");
  expect_one_line_error(gputopo({"check", "--sim", "toy", "--tolerance", ""}), 2, "--tolerance");
  expect_one_line_error(gputopo({"report", ""}), 2, "report DIR");
  expect_one_line_error(gputopo({"--sim", "toy", "-o", "", "info"}), 2, "-o");
}

// Row 17: `--output=` takes no argument after it as its value.
TEST(HostileInput, AnEmptyAttachedValueIsAUsageError) {
  const fs::path cwd = fs::current_path();
  expect_one_line_error(gputopo({"--sim", "toy", "info", "--output=", "-q"}), 2, "--output=");
  expect_one_line_error(gputopo({"--sim", "toy", "--raw=", "-q"}), 2, "--raw=");
  EXPECT_FALSE(fs::exists(cwd / "-q"));
}

// Row 18: --only takes one list; what follows is the command's argument.
TEST(HostileInput, OnlyBeforeACommandsDirectoryLeavesTheDirectoryToIt) {
  const fs::path dir = record_toy_run("only-then-dir-raw", "l1.latency");
  const ProcessResult analyze = gputopo({"analyze", "--only", "l1.latency", dir.string(), "-q"});
  EXPECT_EQ(analyze.exit_code, 0) << analyze.err;
  const ProcessResult report = gputopo({"report", "--only", "l1.latency", dir.string(), "-q"});
  EXPECT_EQ(report.exit_code, 0) << report.err;
  EXPECT_NE(report.out.find("<html"), std::string::npos);
  fs::remove_all(dir);
}

// Row 19: an index beyond any host is out of range, not malformed.
TEST(HostileInput, AnIndexAboveIntMaxIsOutOfRange) {
  expect_one_line_error(gputopo({"-d", "2147483648", "info"}), 3, "out of range");
  expect_one_line_error(gputopo({"-d", "99999999999999999999999", "info"}), 3, "out of range");
}

// Runs the binary with `args` and its stdout the write end of a pipe whose reader has gone.
ProcessResult run_into_a_closed_pipe(const std::vector<std::string>& args) {
  int p[2];
  EXPECT_EQ(pipe(p), 0);
  close(p[0]);
  const fs::path err_file = temp_file("closed-pipe.err");
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(p[1], STDOUT_FILENO);
    const int err = open(err_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    dup2(err, STDERR_FILENO);
    std::vector<char*> argv{const_cast<char*>(GPUTOPO_BINARY)};
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  close(p[1]);
  int status = 0;
  waitpid(pid, &status, 0);
  ProcessResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  r.err = file_text(err_file);
  fs::remove(err_file);
  return r;
}

// Row 20: a full disk or a reader gone is exit 2 with one line, whatever the command's result.
TEST(HostileInput, AStdoutThatCannotBeWrittenIsExitTwo) {
  const ProcessResult full =
      run_process({"/bin/sh", "-c",
                   std::string(GPUTOPO_BINARY) + " compare " + kHostileGolden + "h100-sxm.json " +
                       kHostileGolden + "h200.json > /dev/full"});
  expect_one_line_error(full, 2, "cannot write to stdout");
  const ProcessResult gone = run_into_a_closed_pipe({"--sim", "toy", "info", "--json"});
  EXPECT_EQ(gone.signal, 0);
  expect_one_line_error(gone, 2, "cannot write to stdout");
}

// Observation 3: replacing a private report keeps it private.
TEST(HostileInput, ReplacingAPrivateOutputFileKeepsItsPermissions) {
  const fs::path file = temp_file("private.json");
  put_file_text(file, "{}");
  fs::permissions(file, fs::perms::owner_read | fs::perms::owner_write);
  const ProcessResult r = gputopo({"--sim", "toy", "-q", "info", "-o", file.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  struct stat st {};
  ASSERT_EQ(stat(file.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  fs::remove(file);
}

// Observation 4: a device name with an escape sequence does not reach the terminal as one.
TEST(HostileInput, ADeviceNameIsEscapedOnTheTerminal) {
  const std::string config = toy_config_with(
      "escape-name", [](Doc& t) { t["device"]["name"] = "Evil\x1b]0;owned\x07GPU"; });
  for (const char* format : {"text", "markdown", "tree"}) {
    const ProcessResult r = gputopo({"--sim", config, "-q", "info", "--format", format});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out.find('\x1b'), std::string::npos) << format;
    EXPECT_NE(r.out.find("Evil\\x1b]0;owned\\x07GPU"), std::string::npos) << format << r.out;
  }
  const ProcessResult page = gputopo({"report", "--sim", config, "-q", "--only", "l1.latency"});
  ASSERT_EQ(page.exit_code, 0) << page.err;
  EXPECT_EQ(page.out.find('\x1b'), std::string::npos);
  const ProcessResult as_json = gputopo({"--sim", config, "-q", "info", "--json"});
  EXPECT_EQ(Doc::parse(as_json.out)["device"]["name"]["value"], "Evil\x1b]0;owned\x07GPU");
}

}  // namespace
}  // namespace gputopo::test
