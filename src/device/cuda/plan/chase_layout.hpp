#pragma once

#include <cstdint>
#include <vector>

#include "device/requests.hpp"

// Where the chased elements of one request lie, and in which order they are visited. Plain C++:
// the kernels follow what this describes, and the unit tests check it without a GPU.
namespace gputopo::device::cuda {

// Arrays up to this size index their words with 32 bits; larger ones need 64-bit indices.
inline constexpr std::uint64_t kNarrowIndexLimitBytes = std::uint64_t{16} << 30;

// Limits of the device a request must fit (filled from DeviceInfo and the runtime).
struct ChaseLimits {
  std::uint64_t constant_bytes = 64 * 1024;  // the __constant__ chase bank
  std::uint64_t shared_bytes = 0;            // dynamic shared memory a block can get
  std::uint64_t texture_max_elements = 0;    // maxTexture1DLinear, in 32-bit texels
  std::uint32_t max_threads_per_block = 1024;
  int sm_count = 0;
};

struct ChaseLayout {
  unsigned index_bytes = 4;        // width of one array word: 4, or 8 above 16 GiB
  std::uint64_t words = 0;         // array_bytes / index_bytes
  std::uint64_t elements = 0;      // chased elements: array_bytes / stride_bytes
  std::uint64_t stride_words = 0;  // distance between consecutive elements, in words
  std::uint64_t position(std::uint64_t element) const { return element * stride_words; }
};

unsigned index_bytes_for(std::uint64_t array_bytes);

// The layout of a request, or Error(BadRequest) naming what does not fit.
ChaseLayout make_layout(const ChaseRequest& request, const ChaseLimits& limits);

// successor[k] is the element visited after element k. Strided: k + 1, wrapping. Random: a
// random cyclic permutation (Sattolo's algorithm), so one cycle still visits every element; the
// seed derives from the element count, so a request always gets the same cycle. Sequence: each
// listed element points to the next listed one, every other element to itself.
std::vector<std::uint64_t> successors(std::uint64_t elements, Pattern pattern,
                                      const std::vector<std::uint64_t>& sequence = {});

// The whole array as 32-bit words: each chased position holds the position of its successor,
// every other word 0. For arrays small enough to build on the host (the constant bank, tests).
std::vector<std::uint32_t> image32(const ChaseLayout& layout, Pattern pattern,
                                   const std::vector<std::uint64_t>& sequence = {});

}  // namespace gputopo::device::cuda
