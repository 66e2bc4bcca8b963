#pragma once

#include <cstdint>
#include <string>

namespace gputopo::device::cuda {

// The code-body kernel `gputopo_code_body` as PTX for sm_`sm`: a loop over `instructions` FFMAs
// over 8 independent chains, after a chase of constant memory where `chase`. Plain C++: the build
// also runs it (aot/) to compile the bodies of the instruction-cache sweep ahead of time.
std::string code_body_ptx(std::uint32_t instructions, bool chase, int sm);

}  // namespace gputopo::device::cuda
