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
  // `so_far` is the result as it stands, so that a caller can write partial results, where
  // wants_result() asked for it just before; nullptr otherwise.
  virtual void end(std::string_view phase, double seconds, std::string_view status,
                   const Result* so_far) = 0;
  // Whether the coming end() is to carry the result so far. Putting it together copies every
  // finding and its evidence: after each of a main job's 73 phases that took 60 ms of an H200's
  // 1.1 s discovery.
  virtual bool wants_result() const { return false; }
  // The run ends on an error after which nothing can be measured (the GPU lost, ...), which
  // discover() then throws: `so_far` is everything measured before it.
  virtual void stopped_by_error(const Result& /*so_far*/) {}
};

// Reports nothing.
class NullProgress final : public Progress {
 public:
  void begin(std::string_view, std::size_t, std::size_t) override {}
  void advance(std::size_t, std::size_t) override {}
  void end(std::string_view, double, std::string_view, const Result*) override {}
};

}  // namespace gputopo::discovery
