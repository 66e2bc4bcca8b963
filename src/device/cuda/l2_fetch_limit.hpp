#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

namespace gputopo::device::cuda {

// The current context's cudaLimitMaxL2FetchGranularity in bytes, or nullopt where the driver
// cannot read it.
std::optional<std::uint32_t> read_l2_fetch_limit();

// Sets the current context's L2 fetch-granularity limit for its lifetime and restores the value
// before it on destruction, also when the batch in between throws. The setting belongs to this
// process's context; it changes nothing on the card for other processes.
class ScopedL2FetchLimit {
 public:
  // `bytes` (0..128, validated by the caller): the limit to set; nullopt leaves the driver's
  // setting. Where the driver refuses the limit, nothing is changed and applied() is nullopt.
  explicit ScopedL2FetchLimit(std::optional<std::uint32_t> bytes);
  ~ScopedL2FetchLimit();
  ScopedL2FetchLimit(const ScopedL2FetchLimit&) = delete;
  ScopedL2FetchLimit& operator=(const ScopedL2FetchLimit&) = delete;

  // The limit in effect, read back from the driver after setting it.
  std::optional<std::uint32_t> applied() const { return applied_; }

 private:
  std::optional<std::size_t> previous_;  // set only when this object changed the limit
  std::optional<std::uint32_t> applied_;
};

}  // namespace gputopo::device::cuda
