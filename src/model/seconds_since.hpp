#pragma once

#include <chrono>

namespace gputopo::model {

// Seconds of the steady clock from `start` to now.
inline double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace gputopo::model
