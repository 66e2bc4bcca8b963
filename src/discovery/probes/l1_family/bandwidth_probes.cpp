#include <algorithm>
#include <array>

#include "discovery/measure.hpp"
#include "discovery/probes/l1_family/l1_family_probes.hpp"
#include "discovery/registry.hpp"
#include "discovery/stream_probe.hpp"
#include "model/vendor.hpp"

namespace gputopo::discovery {
namespace {

// Per block an eighth of the L1 (at most four blocks per SM stay well inside it) and half of it
// (one block per SM: a longer walk a pass); where the L1 size is not established, an eighth of the
// shared memory per SM the driver reports (L1 and shared memory share one array on every supported
// GPU, and the L1 is at least as large at carve-out 0).
Buffers l1_buffers(const Context& ctx) {
  const Input size = ctx.input("l1", keys::size);
  if (!size) {
    const std::uint64_t pool = ctx.info().shared_per_sm_bytes();
    if (pool < 32 * 1024) return {{}, "needs the L1 size: " + size.why};
    return {{pool / 8 / 4096 * 4096},
            "every block reads an eighth of the shared memory per SM (API) through L1, again and "
            "again (L1 size not established)"};
  }
  return {{round_up(static_cast<std::uint64_t>(*size.value / 8), 4096),
           round_up(static_cast<std::uint64_t>(*size.value / 2), 4096)},
          "every block reads an eighth or half of the L1 through L1, again and again"};
}

// Per block 48 KiB of shared memory (a quarter of the opt-in limit where that is smaller): four
// blocks fit an SM, and each thread's walk is long enough to keep its loads in flight.
Buffers shared_buffers(const Context& ctx) {
  const std::uint64_t optin = ctx.info().shared_per_block_optin_bytes();
  if (optin < 4096) return {{}, "the driver reports no shared memory per block"};
  return {{std::min<std::uint64_t>(48 * 1024, optin / 4 / 4096 * 4096)},
          "every block reads its own shared memory, again and again"};
}

}  // namespace

// Read bandwidth of the SMs' L1s and shared memories, whole GPU and per SM clock
//.
GPUTOPO_REGISTER_PROBE(Family::L1Family, 130, Made::Once, [](const Site&) {
  constexpr std::array kinds{Stream{device::StreamKind::Read}};
  return std::make_unique<StreamProbe>("l1", device::Space::L1, kinds, l1_buffers,
                                       std::vector<Finding>{{"l1", &keys::size}});
});

GPUTOPO_REGISTER_PROBE(Family::L1Family, 140, Made::Once, [](const Site& s) {
  constexpr std::array kinds{Stream{device::StreamKind::Read}};
  return std::make_unique<StreamProbe>(std::string(model::shared_memory_element(s.info)),
                                       device::Space::Shared, kinds, shared_buffers,
                                       std::vector<Finding>{});
});

}  // namespace gputopo::discovery
