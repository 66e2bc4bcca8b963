#include "recording_archive.hpp"

#include <algorithm>

namespace gputopo::fuzz {
namespace {

constexpr std::string_view kHeader = "=== ";
constexpr std::string_view kOnly = "only ";

bool plain_name(std::string_view name) {
  if (name.empty() || name.size() > 64 || name == "." || name == "..") return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
           c == '_' || c == '-';
  });
}

std::vector<std::string> split_list(std::string_view list) {
  std::vector<std::string> names;
  for (std::size_t at = 0; at <= list.size();) {
    std::size_t end = std::min(list.find(',', at), list.size());
    names.emplace_back(list.substr(at, end - at));
    at = end + 1;
  }
  return names;
}

// The position of the next header line at or after `from`, or text.size().
std::size_t next_header(std::string_view text, std::size_t from) {
  if (from == 0 && text.starts_with(kHeader)) return 0;
  const std::size_t at =
      text.find(std::string("\n") + std::string(kHeader), from == 0 ? 0 : from - 1);
  return at == std::string_view::npos ? text.size() : at + 1;
}

}  // namespace

RecordingArchive unpack_recording(std::string_view text) {
  RecordingArchive archive;
  if (text.starts_with(kOnly)) {
    const std::size_t end = std::min(text.find('\n'), text.size());
    archive.only = split_list(text.substr(kOnly.size(), end - kOnly.size()));
  }
  std::size_t files = 0;
  for (std::size_t at = next_header(text, 0); at < text.size() && files < archive.kMaxFiles;
       ++files) {
    const std::size_t name_end = std::min(text.find('\n', at), text.size());
    const std::string_view name = text.substr(at + kHeader.size(), name_end - at - kHeader.size());
    const std::size_t content = std::min(name_end + 1, text.size());
    const std::size_t end = next_header(text, content);
    if (plain_name(name)) archive.files[std::string(name)] = text.substr(content, end - content);
    at = end;
  }
  return archive;
}

}  // namespace gputopo::fuzz
