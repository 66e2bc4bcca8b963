#include "scratch_dir.hpp"

#include <unistd.h>

#include <fstream>
#include <stdexcept>

namespace gputopo::fuzz {

namespace fs = std::filesystem;

ScratchDir::ScratchDir(const std::string& name)
    : path_(fs::temp_directory_path() / ("gputopo-fuzz-" + name + "-" + std::to_string(getpid()))) {
  fs::remove_all(path_);
  fs::create_directories(path_);
}

ScratchDir::~ScratchDir() {
  std::error_code ignored;
  fs::remove_all(path_, ignored);
}

fs::path ScratchDir::fresh(const std::string& name) const {
  const fs::path dir = path_ / name;
  fs::remove_all(dir);
  fs::create_directory(dir);
  return dir;
}

void write_file(const fs::path& file, std::string_view content) {
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out.write(content.data(), static_cast<std::streamsize>(content.size()));
  if (!out.flush()) throw std::runtime_error("cannot write " + file.string());
}

}  // namespace gputopo::fuzz
