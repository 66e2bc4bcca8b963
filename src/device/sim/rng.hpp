#pragma once

#include <cstdint>
#include <string_view>

namespace gputopo::device::sim {

// SplitMix64 finaliser: mixes a 64-bit value into a well-distributed one.
constexpr std::uint64_t mix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

constexpr std::uint64_t mix64(std::uint64_t a, std::uint64_t b) { return mix64(a ^ mix64(b)); }

// FNV-1a of a text: the same on every platform, unlike std::hash.
constexpr std::uint64_t text_hash(std::string_view text) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (const char c : text) h = (h ^ static_cast<unsigned char>(c)) * 0x100000001b3ULL;
  return h;
}

// xoshiro256** seeded through SplitMix64: small, fast and identical on every platform, so that
// one seed always gives one output.
class Rng {
 public:
  explicit Rng(std::uint64_t seed) {
    std::uint64_t s = seed;
    for (auto& word : state_) {
      s += 0x9e3779b97f4a7c15ULL;
      word = mix64(s);
    }
  }

  std::uint64_t next() {
    const std::uint64_t result = rotl(state_[1] * 5, 7) * 9;
    const std::uint64_t t = state_[1] << 17;
    state_[2] ^= state_[0];
    state_[3] ^= state_[1];
    state_[1] ^= state_[2];
    state_[0] ^= state_[3];
    state_[2] ^= t;
    state_[3] = rotl(state_[3], 45);
    return result;
  }

  // Uniform in [0, n), n > 0 (the modulo bias is negligible for the ranges used here).
  std::uint64_t below(std::uint64_t n) { return next() % n; }

  // Uniform in [0, 1).
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

  // Approximately standard normal: the centred sum of four uniforms scaled to unit variance
  // (bounded at +-3.46). Plain arithmetic, so the values are the same on every platform and libm.
  double normal() {
    const double sum = uniform() + uniform() + uniform() + uniform();
    return (sum - 2.0) * 1.7320508075688772;
  }

 private:
  static constexpr std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  std::uint64_t state_[4];
};

}  // namespace gputopo::device::sim
