#pragma once

#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>

namespace gputopo::device {

// Reads a whole input file that must be a regular file of at most `max_bytes`. A FIFO, a device
// (/dev/zero), a directory or a socket is refused before anything is read, so that no input can
// block or grow without end. Throws std::runtime_error with a one-line reason that does not name
// the file (the caller does).
std::string read_input_file(const std::filesystem::path& file, std::uint64_t max_bytes);

}  // namespace gputopo::device
