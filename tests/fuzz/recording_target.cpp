#include <atomic>
#include <sstream>

#include "checks.hpp"
#include "cli/run.hpp"
#include "recording_archive.hpp"
#include "scratch_dir.hpp"
#include "targets.hpp"

namespace gputopo::fuzz {

void fuzz_recording(std::string_view input) {
  static const ScratchDir scratch("recording");
  const RecordingArchive archive = unpack_recording(input);
  const std::filesystem::path dir = scratch.fresh("raw");
  for (const auto& [name, content] : archive.files) write_file(dir / name, content);

  cli::Options options;
  options.command = cli::Command::Analyze;
  options.replay_dir = dir.string();
  options.only = archive.only;
  options.json = true;
  options.quiet = true;
  options.argv = {"gputopo", "analyze", dir.string()};
  std::ostringstream out;
  std::ostringstream err;
  const std::atomic<bool> not_interrupted{false};
  const int code = cli::run_command(options, out, err, not_interrupted);
  expect_clean_exit("recording", code, err.str());
  expect_json_or_nothing("recording", out.str());
}

}  // namespace gputopo::fuzz
