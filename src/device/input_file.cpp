#include "device/input_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace gputopo::device {
namespace {

std::string kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

class Descriptor {
 public:
  explicit Descriptor(int fd) : fd_(fd) {}
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  ~Descriptor() {
    if (fd_ >= 0) close(fd_);
  }
  int get() const { return fd_; }

 private:
  int fd_;
};

}  // namespace

std::string read_input_file(const std::filesystem::path& file, std::uint64_t max_bytes) {
  // O_NONBLOCK: opening a FIFO without a writer must not wait for one.
  const Descriptor fd(open(file.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
  if (fd.get() < 0)
    throw std::runtime_error(std::string("cannot be opened: ") + std::strerror(errno));
  struct stat st {};
  if (fstat(fd.get(), &st) != 0)
    throw std::runtime_error(std::string("cannot be read: ") + std::strerror(errno));
  if (!S_ISREG(st.st_mode))
    throw std::runtime_error("is " + kind_of(st.st_mode) + ", not a regular file");
  if (static_cast<std::uint64_t>(st.st_size) > max_bytes)
    throw std::runtime_error("is " + std::to_string(st.st_size) + " B, more than the " +
                             std::to_string(max_bytes) + " B an input may have");
  std::string text(static_cast<std::size_t>(st.st_size), '\0');
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = read(fd.get(), text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw std::runtime_error(std::string("cannot be read: ") + std::strerror(errno));
    if (n == 0) break;  // shrank while being read
    done += static_cast<std::size_t>(n);
  }
  text.resize(done);
  return text;
}

}  // namespace gputopo::device
