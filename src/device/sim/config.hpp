#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "device/requests.hpp"
#include "device/sim/cache.hpp"
#include "device/sim/compute_config.hpp"
#include "device/sim/tlb.hpp"

namespace gputopo::device::sim {

// What the simulated driver reports (DeviceInfo) besides the memory model.
struct DeviceSpec {
  std::string name;
  std::string vendor = "NVIDIA";  // "NVIDIA" or "AMD": which element names the driver's GPU has
  std::string architecture;
  int cc_major = 0;
  int cc_minor = 0;
  int sm_count = 0;
  int warp_size = 32;
  int cores_per_sm = 0;
  int max_threads_per_block = 1024;
  int max_threads_per_sm = 2048;
  int max_blocks_per_sm = 32;
  int registers_per_block = 65536;
  int registers_per_sm = 65536;
  std::uint64_t global_memory_bytes = 0;
  std::uint64_t shared_per_block_bytes = 0;
  std::uint64_t shared_per_block_optin_bytes = 0;
  std::uint64_t shared_per_sm_bytes = 0;
  std::uint64_t shared_reserved_per_block_bytes = 0;
  std::uint64_t constant_bytes = 65536;
  double sm_clock_max_mhz = 0;
  double mem_clock_max_mhz = 0;
  int memory_bus_width_bits = 0;
  int xcd_count = 0;     // AMD: accelerator complex dies (0: the GPU has none)
  int simds_per_cu = 0;  // AMD: SIMD units per CU (0: not said)
};

// SMs pair into TPCs, TPCs into GPCs; TPCs are dealt to GPCs round-robin, skipping full GPCs.
struct LayoutSpec {
  int sms_per_tpc = 2;
  std::vector<int> gpc_tpcs;  // TPCs per GPC
  // Per GPC, how many of its TPCs (the last dealt to it) no cluster combines with other TPCs: a
  // cluster runs there only within the TPC. Empty: none.
  std::vector<int> lone_tpcs;
  int max_cluster_size = 0;  // 0: thread-block clusters unsupported
};

enum class InstanceSelect : std::uint8_t {
  Modulo,      // warp w uses instance w % instances
  Contiguous,  // the warps of a block split into `instances` contiguous ranges
};

// One SM-private physical cache (L1, texture, constant L1, constant L1.5, ...).
struct CacheSpec {
  std::string name;
  CacheGeometry geometry;          // size_bytes is 0 for the cache unified with shared memory
  std::uint64_t unified_sets = 0;  // unified cache: fixed sets; ways follow the carve-out
  double latency_cycles = 0;
  double jitter_cycles = 0;
  std::uint32_t instances_per_sm = 1;
  InstanceSelect instance_select = InstanceSelect::Modulo;
  // SMs that share one instance (AMD's scalar cache: 2 or 3 CUs): consecutive SMs of one GPC in
  // the layout's order. sm_group[sm] numbers the instance an SM uses (empty when 1).
  std::uint32_t shared_by_sms = 1;
  std::vector<int> sm_group;
};

// One L1 capacity shared with shared memory, split by the carve-out.
struct UnifiedSpec {
  int cache = -1;  // index into SimConfig::caches, -1 when there is no unified cache
  std::uint64_t total_bytes = 0;
  // (carve-out percent, shared bytes configured), ascending; a percent uses the first step at or
  // above it.
  std::vector<std::pair<int, std::uint64_t>> carveout_shared_bytes;
  int default_carveout_percent = 0;
  std::uint64_t kernel_shared_bytes = 0;  // the measuring kernel's own shared buffer
};

struct SpaceSpec {
  std::vector<int> path;  // SM-private caches, nearest first; then L2 (not for shared)
  double extra_cycles = 0;
};

struct SharedSpec {
  double latency_cycles = 0;
  double jitter_cycles = 0;
};

struct L2Spec {
  CacheGeometry geometry;  // one segment
  int segments = 1;
  // Mean over the segments; the per-segment values below are what loads cost.
  double near_latency_cycles = 0;
  double far_latency_cycles = 0;
  std::vector<double> near_latency_by_segment;  // when the segment is the SM's own
  std::vector<double> far_latency_by_segment;   // when the line is found in that segment
  double jitter_cycles = 0;
  double sm_latency_spread_cycles = 0;  // per-TPC offset in [0, spread], fixed per device
  std::vector<int> sm_segment;          // near segment of each SM
  // Write-through: every store goes on to device memory, so stores to an L2-resident buffer run
  // at most at the device-memory write bandwidth.
  bool write_back = true;
  // False: an SM reaches its own segment only (AMD's L2 per XCD): what it evicts leaves the L2,
  // and the driver reports one segment's size.
  bool far_segments = true;
  // Each segment's slices: slice bit i of a line is the parity of (line index & slice_hash[i]),
  // the line index being address / line_bytes, so slices_per_segment is 2^(hash bits). Each slice
  // serves at most slice_read_gbps (0: unbounded).
  int slices_per_segment = 1;
  std::vector<std::uint64_t> slice_hash;
  double slice_read_gbps = 0;
  // Each slice (of the hash, whatever segment) performs at most this many reductions a ns (one
  // 128 B request each); 0: reductions are not modelled, and the simulated GPU refuses them.
  double slice_reductions_per_ns = 0;
  // An L2 hit on slice k from SM s costs slice_latency_cycles x |(s + 0.5) / SMs - (k + 0.5) /
  // slices| more: SMs and slices sit along one line, so each slice has its own profile over the
  // SMs.
  double slice_latency_cycles = 0;
};

// A memory-side cache between the L2 and device memory (AMD's Infinity Cache, MALL): every L2
// miss passes through it, whichever SM made it.
struct MallSpec {
  CacheGeometry geometry;
  double latency_cycles = 0;
  double jitter_cycles = 0;
};

struct DramSpec {
  double latency_cycles = 0;
  double jitter_cycles = 0;
};

struct NoiseSpec {
  double outlier_rate = 0;
  double outlier_min_cycles = 0;
  double outlier_max_cycles = 0;
};

struct BandwidthSpec {
  double l2_read_gbps = 0;
  double l2_shared_read_gbps = 0;  // every SM reading the same data; 0: as l2_read_gbps
  double l2_write_gbps = 0;
  double dram_read_gbps = 0;
  double dram_write_gbps = 0;
  // Per SM and clock; 0: the simulated GPU models no such stream.
  double l1_read_bytes_per_clk = 0;
  double shared_read_bytes_per_clk = 0;
  double launch_overhead_us = 0;
  double jitter_fraction = 0;
  // One SM's L2 read rate (0: l2_read_gbps / sm_count), and each GPC's port to the L2, which
  // its SMs share (0: unbounded).
  double sm_l2_read_gbps = 0;
  double gpc_port_gbps = 0;
};

// Another process's work on the simulated GPU during calls [from_call, to_call) of the device
// (chase, interfere, stream and cluster calls, counted from 0).
struct CompetingLoadSpec {
  std::uint64_t from_call = 0;
  std::uint64_t to_call = UINT64_MAX;
  double slowdown = 1.6;          // each load's latency (overhead excluded) times this
  double extra_rate = 0.2;        // share of loads delayed further
  double extra_cycles = 400;      // such a delay is uniform in [0, extra_cycles]
  double bandwidth_factor = 0.5;  // streams reach this share of their idle bandwidth
  bool nvml_visible = true;       // state() shows the other process (not from another container)
};

// Faults of real machines, each at one device call or throughout.
struct FaultSpec {
  std::optional<std::uint64_t> free_memory_bytes;  // requests needing more fail: out of memory
  std::optional<std::uint64_t> hang_at_call;       // this call's kernel never returns
  std::optional<std::uint64_t> lost_at_call;       // the GPU falls off the bus at this call
};

struct SimConfig {
  std::string preset;  // "name" field
  std::string comment;
  std::vector<std::string> sources;
  DeviceSpec device;
  LayoutSpec layout;
  std::vector<CacheSpec> caches;
  UnifiedSpec unified;
  std::array<SpaceSpec, 6> spaces;  // indexed by Space
  SharedSpec shared;
  L2Spec l2;
  std::optional<MallSpec> mall;
  DramSpec dram;
  double overhead_cycles = 0;
  // Per-load samples read this much less than latency + overhead: the clock reads overlap the load.
  double overlap_cycles = 0;
  NoiseSpec noise;
  BandwidthSpec bandwidth;
  std::optional<CompetingLoadSpec> competing_load;
  FaultSpec faults;
  std::optional<ComputeSpec> compute;  // nullopt: the simulated GPU runs no compute kernels
  TlbSpec tlb;                         // no levels: loads cost no translation

  const SpaceSpec& space(Space s) const { return spaces[static_cast<std::size_t>(s)]; }
  std::uint64_t l2_bytes() const {
    return l2.geometry.size_bytes * static_cast<unsigned>(l2.segments);
  }
  // The L2 size the driver reports: the whole L2, or one segment where an SM reaches only its own.
  std::uint64_t l2_api_bytes() const {
    return l2.far_segments ? l2_bytes() : l2.geometry.size_bytes;
  }
  // Shared bytes the driver configures for a carve-out (nullopt: the default) when the kernel
  // needs `extra_shared_bytes` on top of its own buffer (a shared-memory chase array).
  std::uint64_t shared_config_bytes(std::optional<int> carveout_percent) const;
  std::uint64_t shared_config_bytes(std::optional<int> carveout_percent,
                                    std::uint64_t extra_shared_bytes) const;
  // Bytes an L2 miss fetches under a cudaLimitMaxL2FetchGranularity of `limit_bytes`: the limit
  // rounded up to a power-of-two number of sectors, at least one sector and at most the configured
  // fetch, which is also the fetch without a limit (the driver's default).
  std::uint32_t l2_fetch_bytes(std::optional<std::uint32_t> limit_bytes) const;
  // Geometry of cache `index` under that configuration.
  CacheGeometry geometry(std::size_t index, std::optional<int> carveout_percent,
                         std::uint64_t extra_shared_bytes = 0) const;
};

// Parses and validates a configuration. `origin` names the file in messages. Throws
// device::Error(BadRequest) with one line "ORIGIN: FIELD: REASON" on any problem.
SimConfig parse_config(const std::string& text, const std::string& origin);

}  // namespace gputopo::device::sim
