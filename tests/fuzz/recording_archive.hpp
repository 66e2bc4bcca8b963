#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace gputopo::fuzz {

// A --raw recording in one text, so that a fuzzer can mutate it as a whole:
//
//   only shared              (optional first line: the --only list analyze is given)
//   === manifest.json        (each file: a header line, then its content)
//   {...}
//   === 00000-chase.csv
//   request,sm,overhead_cycles,c0,...
//
// A file's content ends with the line end before the next header. Files whose name is not a plain
// name ([A-Za-z0-9._-], 1 to 64 characters, not . or ..) are left out; of two files with one
// name, the later is kept. At most kMaxFiles files are read.
struct RecordingArchive {
  static constexpr std::size_t kMaxFiles = 64;
  std::vector<std::string> only;
  std::map<std::string, std::string> files;
};

RecordingArchive unpack_recording(std::string_view text);

}  // namespace gputopo::fuzz
