#include "model/keys.hpp"

#include <algorithm>
#include <array>

namespace gputopo::model {
namespace {

using namespace keys;

constexpr std::array kCatalogue{&apiSize,
                                &persistingMax,
                                &perBlockOptin,
                                &busWidth,
                                &clock,
                                &peakBandwidth,
                                &size,
                                &lineSize,
                                &fetchGranularity,
                                &sectorSize,
                                &latency,
                                &latencyNs,
                                &missPenalty,
                                &missPenaltyNs,
                                &countPerSm,
                                &sharedWith,
                                &carveout,
                                &globalLoadsCached,
                                &segmentSize,
                                &segmentCount,
                                &measuredSegmentSize,
                                &nearLatency,
                                &farLatency,
                                &readBandwidth,
                                &readBytesPerClkPerSm,
                                &writeBandwidth,
                                &copyBandwidth,
                                &nearLatencyNs,
                                &farLatencyNs,
                                &capacity,
                                &nearLatencyBySm,
                                &readFractionOfPeak,
                                &associativity,
                                &sets,
                                &indexFunction,
                                &replacementPolicy,
                                &sectorsPerLine,
                                &missFill,
                                &writePolicy,
                                &tpcCount,
                                &smsPerTpc,
                                &gpcCount,
                                &smsPerGpc,
                                &pipelines,
                                &sharedBankCount,
                                &sharedBankWidth,
                                &sharedConflictCycles,
                                &sharedLoadLatency};

}  // namespace

std::span<const Key* const> catalogue() { return kCatalogue; }

const Key* key_named(std::string_view name) {
  const auto it = std::find_if(kCatalogue.begin(), kCatalogue.end(),
                               [&](const Key* k) { return k->name == name; });
  return it == kCatalogue.end() ? nullptr : *it;
}

std::size_t report_rank(std::string_view name) {
  const auto it = std::find_if(kCatalogue.begin(), kCatalogue.end(),
                               [&](const Key* k) { return k->name == name; });
  return static_cast<std::size_t>(it - kCatalogue.begin());
}

}  // namespace gputopo::model
