#pragma once

#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

// Laying text out in a fixed width: aligned columns, wrapped paragraphs, one-line reasons.
namespace gputopo::report {

// The summaries' width limit, in columns.
inline constexpr std::size_t kTextWidth = 100;

// Columns in a string: UTF-8 continuation bytes take none.
std::size_t columns(const std::string& s);

// `s` cut to at most `width` columns, ending in "..." where cut.
std::string fit(const std::string& s, std::size_t width);

// Rows of cells aligned in columns two spaces apart; `right[i]` right-aligns column i. A row with
// fewer cells leaves the rest empty; trailing blanks are dropped.
std::vector<std::string> align(const std::vector<std::vector<std::string>>& rows,
                               const std::vector<bool>& right = {});

// `text` wrapped at `width` columns between words: the first line starts with `first`, the others
// with `rest`.
std::vector<std::string> wrap(const std::string& text, std::size_t width, const std::string& first,
                              const std::string& rest);

// A reason in one short line: its first clause (up to the first "; "), parenthesised asides
// dropped, at most `width` columns.
std::string short_reason(const std::string& reason, std::size_t width);

// Each line, cut to kTextWidth columns.
void write_fitted(std::ostream& out, const std::vector<std::string>& lines);

// Three significant digits, whole numbers from 100 up: 856, 16.2, 3182, 0.5.
std::string short_number(double x);

}  // namespace gputopo::report
