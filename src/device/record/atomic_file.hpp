#pragma once

#include <filesystem>
#include <initializer_list>
#include <string_view>

namespace gputopo::device::record {

// The temporary file of NAME is NAME.tmp (a raw directory has one writer: it is locked).
inline constexpr std::string_view kTempSuffix = ".tmp";

// Writes `text` to `file` through a temporary file and a rename, so that a reader (or a run cut
// short) sees either the old content or the new, never a partial file. Throws RawDirError
// (Kind::Measurement) when the file cannot be written, after removing the temporary file.
void write_atomically(const std::filesystem::path& file, std::string_view text);
// The same for text given in pieces, written one after another.
void write_atomically(const std::filesystem::path& file,
                      std::initializer_list<std::string_view> pieces);

}  // namespace gputopo::device::record
