#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "device/compute_request.hpp"

// The sample file of a compute call (docs/raw.md): request,block,sm,cycles, one row per block.
namespace gputopo::device::record {

std::string compute_samples_csv(const std::vector<ComputeResult>& results);
// One result per request, each with a row for every block of the request. Throws RawDirError
// naming the file and line.
std::vector<ComputeResult> read_compute_samples(const std::filesystem::path& file,
                                                const std::vector<ComputeRequest>& requests);

}  // namespace gputopo::device::record
