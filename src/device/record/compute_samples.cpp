#include "device/record/compute_samples.hpp"

#include <fmt/format.h>

#include "device/record/csv_reader.hpp"

namespace gputopo::device::record {

std::string compute_samples_csv(const std::vector<ComputeResult>& results) {
  std::string out = "request,block,sm,cycles\n";
  for (std::size_t i = 0; i < results.size(); ++i)
    for (std::size_t b = 0; b < results[i].cycles.size(); ++b)
      out += fmt::format("{},{},{},{}\n", i, b, b < results[i].sms.size() ? results[i].sms[b] : -1,
                         results[i].cycles[b]);
  return out;
}

std::vector<ComputeResult> read_compute_samples(const std::filesystem::path& file,
                                                const std::vector<ComputeRequest>& requests) {
  CsvReader csv(file, "request,block,sm,cycles");
  const std::size_t expected = requests.size();
  std::vector<ComputeResult> results(expected);
  std::size_t last = 0;
  while (csv.next()) {
    if (csv.columns() != 4) csv.fail("expected request,block,sm,cycles");
    const auto request = csv.number<std::size_t>(0, "request");
    if (request >= expected || request < last)
      csv.fail("request " + std::to_string(request) +
               " is out of order or not among the manifest's " + std::to_string(expected) +
               " results");
    last = request;
    ComputeResult& r = results[request];
    if (csv.number<std::size_t>(1, "block") != r.cycles.size())
      csv.fail("blocks must be numbered 0, 1, 2, ... in order");
    r.sms.push_back(csv.number<int>(2, "sm"));
    r.cycles.push_back(csv.number<std::uint64_t>(3, "cycles"));
  }
  // Every request ran all its blocks: a file cut short misses some.
  for (std::size_t i = 0; i < expected; ++i)
    if (results[i].cycles.size() != requests[i].blocks)
      csv.fail("after the last row: request " + std::to_string(i) + " has " +
               std::to_string(results[i].cycles.size()) + " of its " +
               std::to_string(requests[i].blocks) + " blocks (the file is cut short?)");
  return results;
}

}  // namespace gputopo::device::record
