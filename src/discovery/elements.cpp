#include "discovery/elements.hpp"

#include <algorithm>
#include <array>
#include <string_view>

namespace gputopo::discovery {
namespace {

constexpr std::array<std::string_view, 21> kOrder{"size",
                                                  "lineSize",
                                                  "fetchGranularity",
                                                  "sectorSize",
                                                  "latency",
                                                  "latencyNs",
                                                  "missPenalty",
                                                  "missPenaltyNs",
                                                  "countPerSm",
                                                  "sharedWith",
                                                  "carveout",
                                                  "globalLoadsCached",
                                                  "segmentSize",
                                                  "segmentCount",
                                                  "measuredSegmentSize",
                                                  "nearLatency",
                                                  "farLatency",
                                                  "readBandwidth",
                                                  "readBytesPerClkPerSm",
                                                  "writeBandwidth",
                                                  "copyBandwidth"};

std::size_t rank(std::string_view key) {
  const auto it = std::find(kOrder.begin(), kOrder.end(), key);
  return static_cast<std::size_t>(it - kOrder.begin());
}

}  // namespace

std::vector<model::Element> assemble_elements(
    const std::map<std::string, model::AttributeList>& findings,
    const std::vector<std::string>& keys) {
  std::vector<model::Element> elements;
  for (const auto& key : keys) {
    model::Element e{key, {}};
    if (const auto it = findings.find(key); it != findings.end()) {
      e.attributes = it->second;
      std::stable_sort(e.attributes.begin(), e.attributes.end(),
                       [](const auto& a, const auto& b) { return rank(a.first) < rank(b.first); });
    }
    elements.push_back(std::move(e));
  }
  return elements;
}

}  // namespace gputopo::discovery
