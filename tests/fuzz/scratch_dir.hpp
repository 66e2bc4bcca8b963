#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace gputopo::fuzz {

// A directory of this process under the system's temporary directory, removed with the object.
class ScratchDir {
 public:
  explicit ScratchDir(const std::string& name);
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  ~ScratchDir();

  const std::filesystem::path& path() const { return path_; }

  // The subdirectory `name`, emptied.
  std::filesystem::path fresh(const std::string& name) const;

 private:
  std::filesystem::path path_;
};

// Writes `content` to `file` as it is, replacing what was there.
void write_file(const std::filesystem::path& file, std::string_view content);

}  // namespace gputopo::fuzz
