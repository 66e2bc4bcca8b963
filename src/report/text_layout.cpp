#include "report/text_layout.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <sstream>

namespace gputopo::report {

std::size_t columns(const std::string& s) {
  return static_cast<std::size_t>(std::count_if(
      s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

std::string fit(const std::string& s, std::size_t width) {
  if (columns(s) <= width) return s;
  std::string out;
  std::size_t used = 0;
  for (char c : s) {
    const bool starts = (static_cast<unsigned char>(c) & 0xC0) != 0x80;
    if (starts && used + 3 >= width) break;
    out += c;
    if (starts) ++used;
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out + "...";
}

std::vector<std::string> align(const std::vector<std::vector<std::string>>& rows,
                               const std::vector<bool>& right) {
  std::vector<std::size_t> width;
  for (const auto& row : rows)
    for (std::size_t i = 0; i < row.size(); ++i) {
      if (width.size() <= i) width.push_back(0);
      width[i] = std::max(width[i], columns(row[i]));
    }
  std::vector<std::string> out;
  for (const auto& row : rows) {
    std::string line;
    for (std::size_t i = 0; i < row.size(); ++i) {
      const std::string pad(width[i] - columns(row[i]), ' ');
      const bool r = i < right.size() && right[i];
      if (i > 0) line += "  ";
      line += r ? pad + row[i] : row[i] + (i + 1 < row.size() ? pad : "");
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out.push_back(line);
  }
  return out;
}

std::vector<std::string> wrap(const std::string& text, std::size_t width, const std::string& first,
                              const std::string& rest) {
  std::vector<std::string> out;
  std::istringstream words(text);
  std::string line = first;
  bool empty = true;
  for (std::string word; words >> word;) {
    if (!empty && columns(line) + 1 + columns(word) > width) {
      out.push_back(line);
      line = rest;
      empty = true;
    }
    line += (empty ? "" : " ") + word;
    empty = false;
  }
  if (!empty) out.push_back(fit(line, width));
  return out;
}

std::string short_reason(const std::string& reason, std::size_t width) {
  std::string s = reason.substr(0, reason.find("; "));
  for (;;) {
    const auto open = s.find(" (");
    if (open == std::string::npos) break;
    std::size_t depth = 0;
    std::size_t close = open + 1;
    for (; close < s.size(); ++close) {
      if (s[close] == '(') ++depth;
      if (s[close] == ')' && --depth == 0) break;
    }
    s.erase(open, close + 1 - open);
  }
  return fit(s, width);
}

void write_fitted(std::ostream& out, const std::vector<std::string>& lines) {
  for (const auto& l : lines) out << fit(l, kTextWidth) << "\n";
}

std::string short_number(double x) {
  return x >= 100 || x <= -100 ? fmt::format("{:.0f}", x) : fmt::format("{:.3g}", x);
}

}  // namespace gputopo::report
