#pragma once

#include <cstdint>

namespace gputopo::device::cuda {

// The instruction-cache sweep's bodies compiled ahead of time: the cubin of `instructions` FFMAs
// (no constant chase) for sm_`sm`, or null where the build made none. The build compiles the
// doubling sweep's sizes for each real architecture it builds (aot/CMakeLists.txt), so that a
// machine whose JIT cache is empty does not spend seconds compiling the 1 MiB body.
const void* aot_code_body(int sm, std::uint32_t instructions);

}  // namespace gputopo::device::cuda
