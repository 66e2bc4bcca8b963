#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>

namespace gputopo::discovery::testing {

// A GPU that no preset describes: `preset`'s configuration with every cache's set count, every
// latency and every bandwidth scaled by factors drawn from `seed` (sets 0.55-1.8 x, by a power of
// two where the index is hashed; latencies a common 0.8-1.3 x times 0.9-1.1 x each; bandwidths
// 0.6-1.6 x each). Each space's path stays slower level by level, and the L2 and device memory
// behind it, so that the result is a GPU the tool must read right without having been tuned on
// it. Throws std::runtime_error where no draw of 32 keeps the order. Its name is the preset's with
// "~seed" appended.
nlohmann::json perturbed_config(const nlohmann::json& preset, std::uint64_t seed);

}  // namespace gputopo::discovery::testing
