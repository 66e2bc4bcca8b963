#include "device/record/csv_reader.hpp"

#include "device/input_file.hpp"
#include "device/record/raw_error.hpp"

namespace gputopo::device::record {
namespace {
// The largest batches write a few hundred MB of samples.
constexpr std::uint64_t kMaxSampleFileBytes = std::uint64_t{1} << 31;
}  // namespace

CsvReader::CsvReader(const std::filesystem::path& file, std::string_view header_prefix)
    : name_(file.string()) {
  std::error_code ec;
  if (!std::filesystem::exists(file, ec)) fail_file("cannot be read (missing sample file?)");
  try {
    text_ = read_input_file(file, kMaxSampleFileBytes);
  } catch (const std::runtime_error& e) {
    fail_file(e.what());
  }
  if (!next()) fail_file("is empty (expected a header line)");
  std::string_view header = text_;
  header = header.substr(0, header.find('\n'));
  if (!header.empty() && header.back() == '\r') header.remove_suffix(1);
  if (!header.starts_with(header_prefix))
    fail("header \"" + std::string(header.substr(0, 60)) + "\" does not start with \"" +
         std::string(header_prefix) + "\"");
}

bool CsvReader::next() {
  if (pos_ >= text_.size()) return false;
  std::size_t end = text_.find('\n', pos_);
  if (end == std::string::npos) end = text_.size();
  std::string_view row(text_.data() + pos_, end - pos_);
  pos_ = end + 1;
  ++line_;
  if (!row.empty() && row.back() == '\r') row.remove_suffix(1);
  if (row.empty()) fail("empty line");
  fields_.clear();
  for (std::size_t start = 0;;) {
    std::size_t comma = row.find(',', start);
    fields_.push_back(row.substr(start, comma == std::string_view::npos ? comma : comma - start));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return true;
}

void CsvReader::fail(std::string_view reason) const {
  throw RawDirError(Error::Kind::NoDevice,
                    name_ + ":" + std::to_string(line_) + ": " + std::string(reason));
}

void CsvReader::fail_file(std::string_view reason) const {
  throw RawDirError(Error::Kind::NoDevice, name_ + ": " + std::string(reason));
}

}  // namespace gputopo::device::record
