#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "device/results.hpp"

// The per-call sample files of a raw directory (docs/raw.md).
namespace gputopo::device::record {

// request,sm,overhead_cycles,c0,c1,...: one row per result, the cycles as read.
std::string chase_samples_csv(const std::vector<ChaseResult>& results);
// request,i0,i1,...: one row per result that holds loaded indices; "" when none does.
std::string indices_csv(const std::vector<ChaseResult>& results);
// INDEX,VALUE: one row per value, numbered from 0 (a stream's repeat,gbps; a timed SM's
// visit,cycles).
struct Column {
  const char* index;
  const char* value;
};
inline constexpr Column kStreamColumn{"repeat", "gbps"};
inline constexpr Column kVisitColumn{"visit", "cycles"};
std::string column_csv(Column column, const std::vector<double>& values);

// Readers. `expected` is the count the manifest gives; a file with another count is rejected.
// They throw RawDirError naming the file and line of the first problem.
std::vector<ChaseResult> read_chase_samples(const std::filesystem::path& file,
                                            std::size_t expected);
// Adds the indices to `results` (as read by read_chase_samples).
void read_indices(const std::filesystem::path& file, std::vector<ChaseResult>& results);
std::vector<double> read_column(const std::filesystem::path& file, Column column,
                                std::size_t expected);

}  // namespace gputopo::device::record
