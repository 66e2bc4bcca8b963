#include "discovery/probes/compute/compute_batch.hpp"

namespace gputopo::discovery {

device::ComputeBatch two_length_batch(const std::vector<device::ComputeRequest>& items, int repeats,
                                      std::uint32_t short_steps, std::uint32_t long_steps) {
  device::ComputeBatch batch;
  for (int rep = 0; rep < repeats; ++rep)
    for (const auto& item : items)
      for (const std::uint32_t steps : {short_steps, long_steps}) {
        batch.requests.push_back(item);
        batch.requests.back().chain_length = steps;
      }
  return batch;
}

std::optional<device::ComputeBatchResult> run_compute_batch(Context& ctx,
                                                            const device::ComputeBatch& batch,
                                                            std::string& why) {
  ctx.expect_batches(1);
  try {
    return ctx.compute(batch);
  } catch (const device::Error& e) {
    if (e.kind() != device::Error::Kind::BadRequest) throw;
    why = e.what();
    return std::nullopt;
  }
}

}  // namespace gputopo::discovery
