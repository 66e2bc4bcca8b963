#include "files/atomic_file.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <vector>

namespace gputopo::files {
namespace {
namespace fs = std::filesystem;

std::string directory_of(const std::string& path) {
  fs::path parent = fs::path(path).parent_path();
  return parent.empty() ? std::string(".") : parent.string();
}

// Temporary files are named .NAME.tmp.PID.XXXXXX beside NAME.
std::string temp_prefix(const std::string& path) {
  std::string prefix(".");
  prefix += fs::path(path).filename().string();
  prefix += ".tmp.";
  return prefix;
}

[[noreturn]] void fail(const std::string& path, const std::string& what, int error) {
  throw std::runtime_error("cannot write " + path + ": " + what + ": " + std::strerror(error));
}

// Creates an empty temporary file for `path`; returns its descriptor and name, or -1 (errno set).
int create_temp(const std::string& path, std::string& temp_path) {
  const std::string pattern =
      directory_of(path) + "/" + temp_prefix(path) + std::to_string(getpid()) + ".XXXXXX";
  std::vector<char> temp(pattern.begin(), pattern.end());
  temp.push_back('\0');
  const int fd = mkstemp(temp.data());
  temp_path = temp.data();
  return fd;
}

// Removes the temporary files of `path` left by processes that no longer exist (killed while
// writing).
void remove_stale_temps(const std::string& path) {
  const std::string prefix = temp_prefix(path);
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(directory_of(path), ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(prefix, 0) != 0) continue;
    pid_t pid = 0;
    const char* first = name.data() + prefix.size();
    const auto [end, parsed] = std::from_chars(first, name.data() + name.size(), pid);
    if (parsed != std::errc() || end == first || *end != '.' || pid <= 0) continue;
    if (kill(pid, 0) != 0 && errno == ESRCH) fs::remove(entry.path(), ec);
  }
}

// The permissions of the file written: those of the file it replaces (a private 0600 report stays
// private), else an ordinary file's (0666 less the umask); mkstemp creates 0600.
mode_t mode_for(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode)) return st.st_mode & 0777;
  const mode_t mask = umask(0);
  umask(mask);
  return 0666 & ~mask;
}

}  // namespace

std::string why_not_writable(const std::string& path) {
  if (path.empty()) return "empty file name";
  struct stat st {};
  if (lstat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) return path + " is a directory";
    if (S_ISLNK(st.st_mode)) return path + " is a symbolic link; give the path of the file itself";
    if (!S_ISREG(st.st_mode)) return path + " exists and is not a regular file";
    if ((st.st_mode & (S_IWUSR | S_IWGRP | S_IWOTH)) == 0 || access(path.c_str(), W_OK) != 0)
      return path + " exists and is read-only";
  }
  const std::string dir = directory_of(path);
  if (stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    return "directory " + dir + " does not exist";
  if (access(dir.c_str(), W_OK) != 0) return "directory " + dir + " is not writable";
  // What only trying tells: a name too long, a read-only or special file system.
  std::string temp;
  const int fd = create_temp(path, temp);
  if (fd < 0) return std::string("cannot create a file beside it: ") + std::strerror(errno);
  close(fd);
  unlink(temp.c_str());
  return "";
}

void write_file_atomically(const std::string& path, std::initializer_list<std::string_view> pieces,
                           const AtomicWrite& how) {
  if (how.check_target)
    if (std::string why = why_not_writable(path); !why.empty())
      throw std::runtime_error("cannot write " + path + ": " + why);
  if (how.remove_stale) remove_stale_temps(path);
  std::string temp_path;
  int fd = create_temp(path, temp_path);
  if (fd < 0) fail(path, "cannot create a temporary file", errno);
  auto abandon = [&](const char* what) {
    int error = errno;
    close(fd);
    unlink(temp_path.c_str());
    fail(path, what, error);
  };
  for (std::string_view content : pieces) {
    std::size_t written = 0;
    while (written < content.size()) {
      ssize_t n = write(fd, content.data() + written, content.size() - written);
      if (n < 0) {
        if (errno == EINTR) continue;
        abandon("write failed");
      }
      written += static_cast<std::size_t>(n);
    }
  }
  if (fchmod(fd, mode_for(path)) != 0) abandon("chmod failed");
  if (how.sync && fsync(fd) != 0) abandon("fsync failed");
  if (close(fd) != 0) {
    int error = errno;
    unlink(temp_path.c_str());
    fail(path, "close failed", error);
  }
  if (rename(temp_path.c_str(), path.c_str()) != 0) {
    int error = errno;
    unlink(temp_path.c_str());
    fail(path, "rename failed", error);
  }
}

}  // namespace gputopo::files
