#pragma once

#include <cstddef>
#include <string_view>

#include "model/attribute.hpp"

namespace gputopo::model {

// Nesting deeper than this is refused: no input of gputopo's nests past a few levels.
constexpr std::size_t kMaxJsonDepth = 64;

// Parses `text` as JSON. The nesting is checked before any value is built, so that hostile input
// cannot exhaust the stack of the code that walks the result. Throws std::runtime_error with a
// one-line reason (invalid JSON with its position, a number out of range, too deep).
Json parse_json_input(std::string_view text, std::size_t max_depth = kMaxJsonDepth);

}  // namespace gputopo::model
