#pragma once

#include <cstddef>
#include <string>

#include "model/attribute.hpp"

namespace gputopo::device::record {

// JSON text in which an array or object stays on one line when it holds no arrays or objects or
// when it fits within `width` columns; the others put one member per line. One request or
// attribute is then one line of a diff.
// `indent` is the column the value starts in after a line break.
std::string dump_fitted(const model::Json& json, std::size_t indent = 0, std::size_t width = 100);

// One line, never throws (invalid UTF-8 is replaced).
std::string dump_flat(const model::Json& json);

}  // namespace gputopo::device::record
