#include "device/cuda/plan/chase_layout.hpp"

#include <numeric>
#include <random>
#include <string>
#include <utility>

#include "device/device.hpp"

namespace gputopo::device::cuda {
namespace {

[[noreturn]] void bad(const ChaseRequest& r, const std::string& why) {
  throw Error(Error::Kind::BadRequest, "chase request (" + std::string(to_string(r.space)) + ", " +
                                           std::to_string(r.array_bytes) + " B, stride " +
                                           std::to_string(r.stride_bytes) + " B): " + why);
}

// Uniform in [0, bound) from a 64-bit engine, identical on every platform (unlike
// std::uniform_int_distribution, whose algorithm the standard leaves open).
std::uint64_t below(std::mt19937_64& rng, std::uint64_t bound) {
  const std::uint64_t limit = ~std::uint64_t{0} - (~std::uint64_t{0} % bound);
  std::uint64_t x = 0;
  do x = rng();
  while (x >= limit);
  return x % bound;
}

}  // namespace

unsigned index_bytes_for(std::uint64_t array_bytes) {
  return array_bytes > kNarrowIndexLimitBytes ? 8U : 4U;
}

ChaseLayout make_layout(const ChaseRequest& r, const ChaseLimits& limits) {
  ChaseLayout l;
  l.index_bytes = index_bytes_for(r.array_bytes);
  if (r.stride_bytes == 0 || r.stride_bytes % l.index_bytes != 0)
    bad(r, "the stride must be a positive multiple of the " + std::to_string(l.index_bytes) +
               "-byte index word");
  if (r.array_bytes < r.stride_bytes) bad(r, "the array must hold at least one stride");
  if (r.recorded_loads == 0) bad(r, "at least one recorded load is needed");
  if (r.region.value_or(0) > kMaxRegion)
    bad(r, "the region must be at most " + std::to_string(kMaxRegion));
  if (const auto why = chain_problem(r)) bad(r, *why);
  if (const auto why = sequence_problem(r)) bad(r, *why);
  if (const auto why = warmup_problem(r)) bad(r, *why);
  l.words = r.array_bytes / l.index_bytes;
  l.elements = r.array_bytes / r.stride_bytes;
  l.stride_words = r.stride_bytes / l.index_bytes;
  switch (r.space) {
    case Space::Constant:
      if (r.array_bytes > limits.constant_bytes)
        bad(r, "constant arrays hold at most " + std::to_string(limits.constant_bytes) + " B");
      break;
    case Space::Shared:
      if (r.array_bytes > limits.shared_bytes)
        bad(r, "a block gets at most " + std::to_string(limits.shared_bytes) +
                   " B of dynamic shared memory");
      break;
    case Space::Texture:
      if (l.words > limits.texture_max_elements)
        bad(r, "a linear texture holds at most " + std::to_string(limits.texture_max_elements) +
                   " 4-byte texels");
      break;
    default:
      break;
  }
  if (r.sm >= limits.sm_count && limits.sm_count > 0)
    bad(r, "SM " + std::to_string(r.sm) + " does not exist (the device has " +
               std::to_string(limits.sm_count) + ")");
  return l;
}

std::vector<std::uint64_t> successors(std::uint64_t elements, Pattern pattern,
                                      const std::vector<std::uint64_t>& sequence) {
  std::vector<std::uint64_t> next(elements);
  if (elements == 0) return next;
  if (pattern == Pattern::Sequence) {
    std::iota(next.begin(), next.end(), std::uint64_t{0});
    for (std::size_t i = 0; i < sequence.size(); ++i)
      next[sequence[i]] = sequence[i + 1 == sequence.size() ? 0 : i + 1];
    return next;
  }
  if (pattern == Pattern::Strided) {
    for (std::uint64_t k = 0; k < elements; ++k) next[k] = (k + 1) % elements;
    return next;
  }
  std::iota(next.begin(), next.end(), std::uint64_t{0});
  std::mt19937_64 rng(0x9E3779B97F4A7C15ULL ^ elements);
  for (std::uint64_t i = elements - 1; i > 0; --i) std::swap(next[i], next[below(rng, i)]);
  return next;
}

std::vector<std::uint32_t> image32(const ChaseLayout& layout, Pattern pattern,
                                   const std::vector<std::uint64_t>& sequence) {
  std::vector<std::uint32_t> words(layout.words, 0);
  const auto next = successors(layout.elements, pattern, sequence);
  for (std::uint64_t k = 0; k < layout.elements; ++k)
    words[layout.position(k)] = static_cast<std::uint32_t>(layout.position(next[k]));
  return words;
}

}  // namespace gputopo::device::cuda
