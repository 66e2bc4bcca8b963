#pragma once

#include <initializer_list>
#include <string>
#include <string_view>

namespace gputopo::files {

// Writes `content` to `path` through a temporary file in the same directory
// (.NAME.tmp.PID.XXXXXX) and a rename, so that a reader sees the old file or the new one, never a
// partial one. Temporary files of NAME left by processes that no longer exist are removed first.
// Throws std::runtime_error with a one-line reason, after removing the temporary file.
struct AtomicWrite {
  // Refuse a target why_not_writable() names, before writing (a report's path given by the user).
  bool check_target = true;
  // Remove temporary files of NAME that processes no longer alive left behind.
  bool remove_stale = true;
  // fsync before the rename, so that the new content survives a crash of the machine.
  bool sync = true;
};
void write_file_atomically(const std::string& path, std::initializer_list<std::string_view> pieces,
                           const AtomicWrite& how = {});
inline void write_file_atomically(const std::string& path, std::string_view content,
                                  const AtomicWrite& how = {}) {
  write_file_atomically(path, {content}, how);
}

// Why `path` cannot receive a report, or "" when it can: a missing or unwritable directory; a
// directory, symbolic link, device, FIFO or read-only file in its place (never replaced); a
// directory where no file can be created (tried: a name too long, /proc). Checked before a long
// run so that its results are not lost at the end.
std::string why_not_writable(const std::string& path);

}  // namespace gputopo::files
