#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "device/compute_request.hpp"

// The sample file of a compute call (docs/raw.md): request,block,sm,cycles, one row per block.
namespace gputopo::device::record {

std::string compute_samples_csv(const std::vector<ComputeResult>& results);
// `expected`: the results the manifest lists. Throws RawDirError naming the file and line.
std::vector<ComputeResult> read_compute_samples(const std::filesystem::path& file,
                                                std::size_t expected);

}  // namespace gputopo::device::record
