#include <cstddef>
#include <cstdint>
#include <string_view>

#include "targets.hpp"

// One libFuzzer executable per target; GPUTOPO_FUZZ_TARGET names it (tests/fuzz/CMakeLists.txt).
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  gputopo::fuzz::GPUTOPO_FUZZ_TARGET(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
