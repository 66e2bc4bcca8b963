#pragma once

#include <charconv>
#include <cmath>
#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace gputopo::device::record {

// A small CSV file (numbers only, no quoting) read row by row, with errors that name the file
// and the line.
class CsvReader {
 public:
  // Reads the whole file and its header line; the header must start with `header_prefix`.
  CsvReader(const std::filesystem::path& file, std::string_view header_prefix);

  // Moves to the next row; false after the last one.
  bool next();
  std::size_t columns() const { return fields_.size(); }

  // Field `i` of the current row as a number of type T; `column` names it in errors.
  template <class T>
  T number(std::size_t i, std::string_view column) const {
    std::string_view text = fields_.at(i);
    T value{};
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    bool finite = true;
    if constexpr (std::is_floating_point_v<T>) finite = std::isfinite(value);
    if (ec != std::errc() || end != text.data() + text.size() || text.empty() || !finite)
      fail(std::string(column) + " \"" + std::string(text) + "\" is not " + kind_of<T>());
    return value;
  }

  [[noreturn]] void fail(std::string_view reason) const;
  // Fails about the file as a whole, without a line.
  [[noreturn]] void fail_file(std::string_view reason) const;

 private:
  template <class T>
  static std::string kind_of() {
    if constexpr (std::is_floating_point_v<T>) return "a finite number";
    if constexpr (std::is_signed_v<T>) return "an integer in range";
    return "an unsigned integer in range";
  }

  std::string name_;
  std::string text_;
  std::size_t pos_ = 0;
  std::size_t line_ = 0;
  std::vector<std::string_view> fields_;
};

}  // namespace gputopo::device::record
