#pragma once

#include <string>
#include <string_view>

namespace gputopo::report {

// Writes `content` to `path` through a temporary file in the same directory
// (.NAME.tmp.PID.XXXXXX) and a rename, so that a reader sees the old file or the new one, never a
// partial one. Temporary files of NAME left by processes that no longer exist are removed first.
// Throws std::runtime_error with a one-line reason.
void write_file_atomically(const std::string& path, std::string_view content);

// Why `path` cannot receive a report, or "" when it can: a missing or unwritable directory; a
// directory, symbolic link, device, FIFO or read-only file in its place (never replaced); a
// directory where no file can be created (tried: a name too long, /proc). Checked before a long
// run so that its results are not lost at the end.
std::string why_not_writable(const std::string& path);

}  // namespace gputopo::report
