#pragma once

#include <cstddef>
#include <string_view>

#include "discovery/result.hpp"

namespace gputopo::discovery {

// How discovery reports its progress. The CLI renders it (a bar on a TTY, plain lines otherwise);
// tests and benchmarks record it. Calls come from the thread that runs discover().
class Progress {
 public:
  virtual ~Progress() = default;
  // Phase `index` (0-based) of `count` begins; a phase is one probe, e.g. "l1.size".
  virtual void begin(std::string_view phase, std::size_t index, std::size_t count) = 0;
  // Inside the current phase, `done` of `total` device batches have run (total may still grow).
  virtual void advance(std::size_t done, std::size_t total) = 0;
  // The phase ended after `seconds` with `status` ("ok", "skipped: ...", "failed: ...").
  // `so_far` is the result as it stands, so that a caller can write partial results.
  virtual void end(std::string_view phase, double seconds, std::string_view status,
                   const Result& so_far) = 0;
};

// Reports nothing.
class NullProgress final : public Progress {
 public:
  void begin(std::string_view, std::size_t, std::size_t) override {}
  void advance(std::size_t, std::size_t) override {}
  void end(std::string_view, double, std::string_view, const Result&) override {}
};

}  // namespace gputopo::discovery
