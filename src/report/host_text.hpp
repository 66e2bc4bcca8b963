#pragma once

#include <ostream>

#include "model/attribute.hpp"

namespace gputopo::report {

// The host section of a -d all document (docs/schema.md) as text: the GPUs with their locality,
// each GPU's host link, the peer matrix and the outliers.
void write_host_text(std::ostream& out, const model::Json& host);

}  // namespace gputopo::report
