#include "report/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <vector>

namespace gputopo::report {
namespace {
namespace fs = std::filesystem;

std::string directory_of(const std::string& path) {
  fs::path parent = fs::path(path).parent_path();
  return parent.empty() ? std::string(".") : parent.string();
}

[[noreturn]] void fail(const std::string& path, const std::string& what, int error) {
  throw std::runtime_error("cannot write " + path + ": " + what + ": " + std::strerror(error));
}
}  // namespace

std::string why_not_writable(const std::string& path) {
  if (path.empty()) return "empty file name";
  struct stat st {};
  if (stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) return path + " is a directory";
  const std::string dir = directory_of(path);
  if (stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    return "directory " + dir + " does not exist";
  if (access(dir.c_str(), W_OK) != 0) return "directory " + dir + " is not writable";
  return "";
}

void write_file_atomically(const std::string& path, std::string_view content) {
  if (std::string why = why_not_writable(path); !why.empty())
    throw std::runtime_error("cannot write " + path + ": " + why);
  const std::string name = fs::path(path).filename().string();
  std::string pattern = directory_of(path) + "/." + name + ".tmp.XXXXXX";
  std::vector<char> temp(pattern.begin(), pattern.end());
  temp.push_back('\0');
  int fd = mkstemp(temp.data());
  if (fd < 0) fail(path, "cannot create a temporary file", errno);
  const std::string temp_path(temp.data());
  auto abandon = [&](const char* what) {
    int error = errno;
    close(fd);
    unlink(temp_path.c_str());
    fail(path, what, error);
  };
  std::size_t written = 0;
  while (written < content.size()) {
    ssize_t n = write(fd, content.data() + written, content.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      abandon("write failed");
    }
    written += static_cast<std::size_t>(n);
  }
  // mkstemp creates 0600; a report is an ordinary file (0666 less the umask).
  mode_t mask = umask(0);
  umask(mask);
  if (fchmod(fd, 0666 & ~mask) != 0) abandon("chmod failed");
  if (fsync(fd) != 0) abandon("fsync failed");
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

}  // namespace gputopo::report
