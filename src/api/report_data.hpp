#pragma once

#include "gputopo/gputopo.hpp"
#include "model/report.hpp"

namespace gputopo {

// What a library Report holds: the report the writers write.
struct Report::Data {
  model::Report report;
};

}  // namespace gputopo
