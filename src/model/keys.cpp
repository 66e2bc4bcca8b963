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
                                &sharedBySms,
                                &instanceCount,
                                &carveout,
                                &globalLoadsCached,
                                &segmentSize,
                                &segmentCount,
                                &sliceCount,
                                &measuredSegmentSize,
                                &nearLatency,
                                &farLatency,
                                &readBandwidth,
                                &readBytesPerClkPerSm,
                                &sharedReadBandwidth,
                                &writeBandwidth,
                                &copyBandwidth,
                                &nearLatencyNs,
                                &farLatencyNs,
                                &capacity,
                                &nearLatencyBySm,
                                &readFractionOfPeak,
                                &tlbLevels,
                                &pageSize,
                                &entries,
                                &reach,
                                &associativity,
                                &sets,
                                &indexFunction,
                                &replacementPolicy,
                                &sectorsPerLine,
                                &missFill,
                                &segmentsHashAlike,
                                &writePolicy,
                                &writeAllocate,
                                &tpcCount,
                                &smsPerTpc,
                                &gpcCount,
                                &smsPerGpc,
                                &nearL2Segments,
                                &pipelines,
                                &sharedBankCount,
                                &sharedBankWidth,
                                &sharedConflictCycles,
                                &sharedLoadLatency,
                                &warpSchedulers,
                                &syncthreadsLatency,
                                &syncthreadsBlockLatency,
                                &divergenceCyclesPerPath,
                                &divergenceReconverges,
                                &dsmemLatency,
                                &dsmemReadBytesPerClkPerSm,
                                &clusterSyncLatency,
                                &clusterSyncBlockLatency,
                                &clusterSyncRelaxedLatency,
                                &registerReadsPerClk,
                                &registerBanks,
                                &instructionCacheSizes,
                                &instructionCacheHoldsConstants};

constexpr std::array kFamilies{&opLatency, &opThroughput, &opPerClkPerSm, &opTflops};

}  // namespace

std::span<const Key* const> catalogue() { return kCatalogue; }

std::span<const KeyFamily* const> key_families() { return kFamilies; }

std::optional<std::pair<const KeyFamily*, std::string_view>> family_member(std::string_view name) {
  if (key_named(name) != nullptr) return std::nullopt;
  for (const KeyFamily* f : kFamilies)
    if (name.size() > f->suffix.size() && name.ends_with(f->suffix))
      return std::pair{f, name.substr(0, name.size() - f->suffix.size())};
  return std::nullopt;
}

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
