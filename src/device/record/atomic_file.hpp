#pragma once

#include <filesystem>
#include <string_view>

namespace gputopo::device::record {

// Writes `text` to `file` through a temporary file and a rename, so that a reader (or a run cut
// short) sees either the old content or the new, never a partial file. Throws RawDirError
// (Kind::Measurement) when the file cannot be written.
void write_atomically(const std::filesystem::path& file, std::string_view text);

}  // namespace gputopo::device::record
