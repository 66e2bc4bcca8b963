#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>

// The catalogue of report attribute keys: every key a report's memory elements and measured
// compute values carry, with its unit and meaning. Its order is the order of an element's
// attributes in the report. Probes read and write findings by these entries, so a misspelt key
// does not compile, and each key's identifier is the report key itself.
namespace gputopo::model {

struct Key {
  std::string_view name;         // the report key, e.g. "segmentSize"
  std::string_view unit;         // "B", "cycles", "ns", "GB/s", "B/clk", "%", "MHz", "bit" or ""
  std::string_view elements;     // which elements carry it, e.g. "l2" or "caches"
  std::string_view description;  // what it is, in a line

  std::string str() const { return std::string(name); }
};

// A family of keys, one per member (a compute op): the member's name and the suffix, e.g.
// "ffmaLatency" for member "ffma" of the family with suffix "Latency".
struct KeyFamily {
  std::string_view suffix;
  std::string_view unit;
  std::string_view elements;
  std::string_view description;

  std::string of(std::string_view member) const {
    return std::string(member) + std::string(suffix);
  }
};

namespace keys {
// API values (the info report); no probe writes them.
inline constexpr Key apiSize{"apiSize", "B", "l2, shared", "the driver's size"};
inline constexpr Key persistingMax{"persistingMax", "B", "l2",
                                   "the largest persisting L2 window (compute.l2PersistingMax)"};
inline constexpr Key perBlockOptin{"perBlockOptin", "B", "shared",
                                   "shared memory per block with opt-in"};
inline constexpr Key busWidth{"busWidth", "bit", "dram", "memory bus width (API)"};
inline constexpr Key clock{"clock", "MHz", "dram", "maximum memory clock (API)"};
inline constexpr Key peakBandwidth{"peakBandwidth", "GB/s", "dram",
                                   "2 x clock x busWidth / 8 (double data rate)"};
// Measured, in report order.
inline constexpr Key size{"size", "B", "dram, L1 family",
                          "dram: API total memory; L1 family: measured capacity"};
inline constexpr Key lineSize{"lineSize", "B", "caches", "cache line size"};
inline constexpr Key fetchGranularity{"fetchGranularity", "B", "caches", "bytes fetched per miss"};
inline constexpr Key sectorSize{"sectorSize", "B", "l2",
                                "the fetch granularity with the L2 fetch limit at its minimum"};
inline constexpr Key latency{"latency", "cycles", "caches, shared, dram",
                             "load-to-use latency of a hit, a dependent chain"};
inline constexpr Key latencyNs{"latencyNs", "ns", "caches, shared, dram", "latency in ns"};
inline constexpr Key missPenalty{"missPenalty", "cycles", "caches, TLB levels",
                                 "extra latency of a miss over a hit"};
inline constexpr Key missPenaltyNs{"missPenaltyNs", "ns", "caches", "miss penalty in ns"};
inline constexpr Key countPerSm{"countPerSm", "", "L1 family", "instances per SM"};
inline constexpr Key sharedWith{"sharedWith", "", "L1 family, tlb1",
                                "the other spaces served by the same physical cache"};
inline constexpr Key sharedBySms{"sharedBySms", "", "scalarL1, l2 (AMD)",
                                 "SMs (CUs) sharing one instance, the most common group"};
inline constexpr Key instanceCount{"instanceCount", "", "scalarL1, l2 (AMD)",
                                   "instances on the GPU: groups of SMs sharing one"};
inline constexpr Key carveout{"carveout", "%", "L1 family",
                              "the shared-memory carve-out the element was measured under"};
inline constexpr Key globalLoadsCached{"globalLoadsCached", "", "l1",
                                       "whether global loads are cached in L1"};
inline constexpr Key segmentSize{"segmentSize", "B", "l2",
                                 "near-partition step aligned to the nearest 1/n of the API size"};
inline constexpr Key segmentCount{"segmentCount", "", "l2", "L2 partitions"};
inline constexpr Key sliceCount{"sliceCount", "", "l2",
                                "slices told apart by two-line read rates (a segment's)"};
inline constexpr Key measuredSegmentSize{"measuredSegmentSize", "B", "l2",
                                         "the near-partition step before alignment"};
inline constexpr Key nearLatency{"nearLatency", "cycles", "l2", "hit latency, near partition"};
inline constexpr Key farLatency{"farLatency", "cycles", "l2", "hit latency, far partition"};
inline constexpr Key readBandwidth{"readBandwidth", "GB/s", "l1, shared, l2, dram",
                                   "stream read bandwidth"};
inline constexpr Key readBytesPerClkPerSm{"readBytesPerClkPerSm", "B/clk", "l1, shared",
                                          "read bandwidth per SM and SM clock"};
inline constexpr Key sharedReadBandwidth{"sharedReadBandwidth", "GB/s", "l2",
                                         "stream read bandwidth, every SM reading the same data"};
inline constexpr Key writeBandwidth{"writeBandwidth", "GB/s", "l2, dram", "stream write bandwidth"};
inline constexpr Key copyBandwidth{"copyBandwidth", "GB/s", "dram",
                                   "stream copy bandwidth, bytes read plus written"};
inline constexpr Key nearLatencyNs{"nearLatencyNs", "ns", "l2", "near latency in ns"};
inline constexpr Key farLatencyNs{"farLatencyNs", "ns", "l2", "far latency in ns"};
inline constexpr Key capacity{"capacity", "B", "l2",
                              "the DRAM step one SM sees, cross-checked against apiSize"};
inline constexpr Key nearLatencyBySm{"nearLatencyBySm", "cycles", "l2",
                                     "slowest minus fastest SM's near latency"};
inline constexpr Key readFractionOfPeak{"readFractionOfPeak", "%", "dram",
                                        "readBandwidth / peakBandwidth"};
inline constexpr Key tlbLevels{"tlbLevels", "", "tlb",
                               "TLB levels the global loads through the L2 go through"};
inline constexpr Key pageSize{"pageSize", "B", "tlb, TLB levels",
                              "the page size a TLB level holds (tlb: the first level's)"};
inline constexpr Key entries{"entries", "", "TLB levels", "pages a TLB level holds"};
inline constexpr Key reach{"reach", "B", "TLB levels", "entries x pageSize"};
inline constexpr Key associativity{"associativity", "", "caches, TLB levels",
                                   "ways per set, where the index lets them be separated"};
inline constexpr Key sets{"sets", "", "caches", "sets (of the L2: per segment)"};
inline constexpr Key indexFunction{"indexFunction", "", "caches",
                                   "plain modulo on which address bits, or hashed"};
inline constexpr Key replacementPolicy{"replacementPolicy", "", "caches",
                                       "LRU, FIFO, tree-PLRU, random or other"};
inline constexpr Key sectorsPerLine{"sectorsPerLine", "", "l1, texture, readOnly, constantL1, l2",
                                    "lineSize / sector (the smallest fetch)"};
inline constexpr Key missFill{"missFill", "", "l1, texture, readOnly, constantL1, l2",
                              "what a miss brings in: sector, line, or n sectors"};
inline constexpr Key segmentsHashAlike{
    "segmentsHashAlike", "", "l2",
    "whether every L2 segment keeps the same lines at each stride (one index function)"};
inline constexpr Key writePolicy{
    "writePolicy", "", "l1, l2",
    "write-back or write-through (l2: store bandwidth; l1: whether stores reach the L2 at once)"};
inline constexpr Key writeAllocate{"writeAllocate", "", "l1, l2",
                                   "whether a store that misses brings its line in"};
// Measured compute values (the compute section).
inline constexpr Key tpcCount{"tpcCount", "", "compute", "TPCs"};
inline constexpr Key smsPerTpc{"smsPerTpc", "", "compute", "SMs per TPC"};
inline constexpr Key gpcCount{"gpcCount", "", "compute", "GPCs"};
inline constexpr Key smsPerGpc{"smsPerGpc", "", "compute", "SMs per GPC, per GPC"};
inline constexpr Key nearL2Segments{
    "nearL2Segments", "", "compute",
    "L2 segments the SMs load through (which: evidence.segmentOfSm, segmentOfGpc)"};
inline constexpr Key pipelines{"pipelines", "", "compute",
                               "the ops the pipeline probe measured, with the whole table"};
inline constexpr Key sharedBankCount{"sharedBankCount", "banks", "compute", "shared-memory banks"};
inline constexpr Key sharedBankWidth{"sharedBankWidth", "B", "compute", "bytes per bank"};
inline constexpr Key sharedConflictCycles{"sharedConflictCycles", "cycles", "compute",
                                          "cycles per extra pass of a bank conflict"};
inline constexpr Key sharedLoadLatency{"sharedLoadLatency", "cycles", "compute",
                                       "a 4-byte shared load's step in a dependent chain"};
inline constexpr Key warpSchedulers{"warpSchedulers", "", "compute",
                                    "warp schedulers (sub-partitions) per SM"};
inline constexpr Key syncthreadsLatency{"syncthreadsLatency", "cycles", "compute",
                                        "a __syncthreads of a one-warp block, in a chain"};
inline constexpr Key syncthreadsBlockLatency{
    "syncthreadsBlockLatency", "cycles", "compute",
    "a __syncthreads of a block of the most warps, in a chain"};
inline constexpr Key divergenceCyclesPerPath{
    "divergenceCyclesPerPath", "cycles", "compute",
    "what one more distinct path among a warp's lanes adds to a branch"};
inline constexpr Key divergenceReconverges{
    "divergenceReconverges", "", "compute",
    "whether a warp's paths rejoin after a divergent branch (code after it runs once)"};
inline constexpr Key dsmemLatency{"dsmemLatency", "cycles", "compute",
                                  "a load from another block's shared memory in a cluster"};
inline constexpr Key dsmemReadBytesPerClkPerSm{
    "dsmemReadBytesPerClkPerSm", "B/clk", "compute",
    "bytes a block reads from another block's shared memory per clock"};
inline constexpr Key clusterSyncLatency{"clusterSyncLatency", "cycles", "compute",
                                        "a cluster barrier of blocks of one warp, in a chain"};
inline constexpr Key clusterSyncBlockLatency{"clusterSyncBlockLatency", "cycles", "compute",
                                             "a cluster barrier of blocks of 32 warps, in a chain"};
inline constexpr Key clusterSyncRelaxedLatency{
    "clusterSyncRelaxedLatency", "cycles", "compute",
    "a cluster barrier without its release fence, blocks of one warp, in a chain"};
inline constexpr Key registerReadsPerClk{
    "registerReadsPerClk", "registers/clk", "compute",
    "vector-register operands one warp's instructions read per clock"};
inline constexpr Key registerBanks{
    "registerBanks", "", "compute",
    "vector-register file banks, as conflicts between the registers one instruction reads"};
inline constexpr Key instructionCacheSizes{
    "instructionCacheSizes", "B", "compute",
    "instruction-cache levels: each [at least, at most] bytes of code it holds"};
inline constexpr Key instructionCacheHoldsConstants{
    "instructionCacheHoldsConstants", "", "compute",
    "whether the constant L1.5 is an instruction-cache level (evidence.level: which)"};
// Per compute op (device/compute_op.hpp names them).
inline constexpr KeyFamily opLatency{"Latency", "cycles", "compute",
                                     "cycles per instruction of a dependent chain"};
inline constexpr KeyFamily opThroughput{"Throughput", "instr/clk/SM", "compute",
                                        "thread instructions per clock per SM"};
inline constexpr KeyFamily opPerClkPerSm{"PerClkPerSm", "FLOP/clk/SM", "compute",
                                         "tensor-core operations per clock per SM"};
inline constexpr KeyFamily opTflops{"Tflops", "TFLOP/s", "compute",
                                    "tensor-core TFLOP/s (TOPS) of the GPU at the measured clock"};
}  // namespace keys

// Every key, in report order.
std::span<const Key* const> catalogue();
// The catalogue entry of a report key; nullptr for a name outside the catalogue.
const Key* key_named(std::string_view name);
// Every key family.
std::span<const KeyFamily* const> key_families();
// The family whose member `name` is (e.g. opLatency for "ffmaLatency"), with the member's name;
// nullopt for a catalogue key or a name of no family.
std::optional<std::pair<const KeyFamily*, std::string_view>> family_member(std::string_view name);
// A key's position in the catalogue; keys outside it come last.
std::size_t report_rank(std::string_view name);

}  // namespace gputopo::model
