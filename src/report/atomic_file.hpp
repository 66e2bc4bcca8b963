#pragma once

#include <string>
#include <string_view>

namespace gputopo::report {

// Writes `content` to `path` through a temporary file in the same directory and a rename, so that
// a reader sees the old file or the new one, never a partial one. Throws std::runtime_error with
// a one-line reason.
void write_file_atomically(const std::string& path, std::string_view content);

// Why `path` cannot receive a report (missing or unwritable directory, a directory in its place),
// or "" when it can. Checked before a long run so that its results are not lost at the end.
std::string why_not_writable(const std::string& path);

}  // namespace gputopo::report
