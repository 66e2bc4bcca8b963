#pragma once

#include <string>
#include <string_view>

// Which GPUs a build supports, and the one-line messages for those it cannot use. Pure, so that
// the error paths are tested without such a GPU.
namespace gputopo::model {

// True when compute capability major.minor is at least min_major.min_minor.
bool compute_capability_at_least(int major, int minor, int min_major, int min_minor);

// "GPU 0 (Tesla P100) has compute capability 6.0; this gputopo build needs 7.5 or newer (its
// lowest CUDA architecture is sm_75); use --sim PRESET ..."
std::string unsupported_gpu_message(int index, std::string_view name, int major, int minor,
                                    int min_major, int min_minor);

// "GPU 4 does not exist: this host has 2 CUDA GPUs (indices 0 to 1); choose one with -d N"
std::string missing_gpu_message(int index, int count);

}  // namespace gputopo::model
