#include "device/requests.hpp"

#include <algorithm>
#include <array>
#include <utility>

namespace gputopo::device {
namespace {
constexpr std::array<std::pair<Space, std::string_view>, 6> kSpaceNames{{
    {Space::L1, "l1"},
    {Space::L2, "l2"},
    {Space::ReadOnly, "readOnly"},
    {Space::Texture, "texture"},
    {Space::Constant, "constant"},
    {Space::Shared, "shared"},
}};
}  // namespace

std::string_view to_string(Space s) {
  for (const auto& [space, name] : kSpaceNames)
    if (space == s) return name;
  return "unknown";
}

std::optional<Space> space_from_string(std::string_view name) {
  for (const auto& [space, n] : kSpaceNames)
    if (n == name) return space;
  return std::nullopt;
}

bool sm_private(Space s) { return s != Space::L2; }

std::uint64_t region_offset(const ChaseRequest& r) {
  const std::uint64_t aligned = (std::max<std::uint64_t>(r.array_bytes, 1) + kArrayAlignment - 1) /
                                kArrayAlignment * kArrayAlignment;
  return std::uint64_t{r.region.value_or(0)} * aligned;
}

std::string_view to_string(StreamKind k) {
  switch (k) {
    case StreamKind::Read:
      return "read";
    case StreamKind::Write:
      return "write";
    case StreamKind::Copy:
      return "copy";
  }
  return "unknown";
}

}  // namespace gputopo::device
