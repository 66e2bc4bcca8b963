#pragma once

#include <string>
#include <string_view>

namespace gputopo::model {

// `text` with every control character and every byte that is not part of well-formed UTF-8
// written as an escape (\n, \r, \t, \xHH), so that a message quoting a file name, an argument or
// a JSON key prints as one line of valid UTF-8 and moves no cursor.
std::string printable(std::string_view text);

// `text` of several lines made printable line by line: its line ends are kept.
std::string printable_lines(std::string_view text);

}  // namespace gputopo::model
