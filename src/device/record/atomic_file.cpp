#include "device/record/atomic_file.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <string>
#include <system_error>

#include "device/record/raw_error.hpp"

namespace gputopo::device::record {

void write_atomically(const std::filesystem::path& file, std::string_view text) {
  write_atomically(file, {text});
}

void write_atomically(const std::filesystem::path& file,
                      std::initializer_list<std::string_view> pieces) {
  std::filesystem::path temp = file;
  temp += kTempSuffix;
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    for (std::string_view text : pieces)
      if (out) out.write(text.data(), static_cast<std::streamsize>(text.size()));
    out.close();
    if (!out) {
      const int error = errno;
      std::error_code ec;
      std::filesystem::remove(temp, ec);
      throw RawDirError(Error::Kind::Measurement,
                        "cannot write " + temp.string() + ": " + std::strerror(error));
    }
  }
  std::error_code ec;
  std::filesystem::rename(temp, file, ec);
  if (ec) {
    std::error_code ignored;
    std::filesystem::remove(temp, ignored);
    throw RawDirError(Error::Kind::Measurement, "cannot rename " + temp.string() + " to " +
                                                    file.string() + ": " + ec.message());
  }
}

}  // namespace gputopo::device::record
