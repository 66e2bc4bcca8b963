#include "sim_value_truth.hpp"

#include <algorithm>
#include <cmath>

#include "device/sim/chase_engine.hpp"
#include "result_access.hpp"
#include "sim_truth.hpp"

namespace gputopo::discovery::testing {

double tolerance(TruthKind kind) {
  switch (kind) {
    case TruthKind::Size:
      return 0.01;
    case TruthKind::Latency:
    case TruthKind::Bandwidth:
      return 0.05;
    case TruthKind::Discrete:
      return 0;
  }
  return 0;
}

std::string_view to_string(TruthKind kind) {
  switch (kind) {
    case TruthKind::Size:
      return "size";
    case TruthKind::Latency:
      return "latency";
    case TruthKind::Bandwidth:
      return "bandwidth";
    case TruthKind::Discrete:
      return "discrete";
  }
  return "";
}

namespace {

using device::sim::SimConfig;

double evidence_number(const model::Attribute& a, const char* key, double fallback) {
  return a.evidence.is_object() ? a.evidence.value(key, fallback) : fallback;
}

void l1_family(const SimConfig& cfg, std::vector<ValueTruth>& out) {
  for (const ElementTruth& t : l1_family_truth(cfg, 0)) {
    if (!t.exists) continue;
    out.push_back({t.element, "size", static_cast<double>(t.size), TruthKind::Size, t.size_capped});
    out.push_back({t.element, "latency", t.latency, TruthKind::Latency});
    out.push_back(
        {t.element, "fetchGranularity", static_cast<double>(t.fetch), TruthKind::Discrete});
    if (t.element == "constantL15") continue;
    out.push_back({t.element, "lineSize", static_cast<double>(t.line), TruthKind::Discrete});
    out.push_back({t.element, "countPerSm", static_cast<double>(t.instances), TruthKind::Discrete});
  }
  out.push_back({shared_element(cfg), "latency", cfg.shared.latency_cycles, TruthKind::Latency});
}

// What the simulator's stream model gives for a buffer of `bytes` (its formula without jitter).
double stream_gbps(const SimConfig& cfg, double bytes, double l2_gbps, double dram_gbps) {
  const double in_l2 = std::min(1.0, static_cast<double>(cfg.l2_bytes()) / bytes);
  const double seconds = bytes * (in_l2 / l2_gbps + (1 - in_l2) / dram_gbps) / 1e9;
  const double passes = std::max(1.0, std::ceil(2048.0 * 1024 * 1024 / bytes));
  return bytes * passes / (seconds * passes + cfg.bandwidth.launch_overhead_us * 1e-6) / 1e9;
}

void bandwidths(const SimConfig& cfg, const Result& r, std::vector<ValueTruth>& out) {
  const auto& bw = cfg.bandwidth;
  const double l2_write =
      cfg.l2.write_back ? bw.l2_write_gbps : std::min(bw.l2_write_gbps, bw.dram_write_gbps);
  struct Stream {
    const char* element;
    const char* key;
    double l2;
    double dram;
  };
  for (const Stream& s : {Stream{"l2", "unsharedReadBandwidth", bw.l2_read_gbps, bw.dram_read_gbps},
                          Stream{"l2", "writeBandwidth", l2_write, bw.dram_write_gbps},
                          Stream{"dram", "readBandwidth", bw.l2_read_gbps, bw.dram_read_gbps},
                          Stream{"dram", "writeBandwidth", l2_write, bw.dram_write_gbps}}) {
    const auto* a = attr(r, s.element, s.key);
    if (!a || !a->available()) continue;
    const double bytes = evidence_number(*a, "bufferBytes", 0.0);
    if (bytes > 0)
      out.push_back(
          {s.element, s.key, stream_gbps(cfg, bytes, s.l2, s.dram), TruthKind::Bandwidth});
  }
  // An SM's own memories: 16 GiB a launch at bytes per clock x SMs x clock.
  const double moved = 16384.0 * 1024 * 1024;
  const auto sm_stream = [&](const std::string& element, double per_clk) {
    if (per_clk <= 0) return;
    const double gbps = per_clk * cfg.device.sm_count * cfg.device.sm_clock_max_mhz / 1e3;
    const double seconds = moved / (gbps * 1e9) + bw.launch_overhead_us * 1e-6;
    out.push_back({element, "readBandwidth", moved / seconds / 1e9, TruthKind::Bandwidth});
  };
  sm_stream("l1", bw.l1_read_bytes_per_clk);
  sm_stream(shared_element(cfg), bw.shared_read_bytes_per_clk);
}

void l2_and_dram(const SimConfig& cfg, const Result& r, std::vector<ValueTruth>& out) {
  device::sim::ChaseEngine engine(cfg);
  const double extra = cfg.space(device::Space::L2).extra_cycles;
  const auto sm_of = [&](const char* element, const char* key) {
    const auto* a = attr(r, element, key);
    return a ? static_cast<int>(evidence_number(*a, "sm", 0)) : 0;
  };
  const double near_offset = engine.sm_l2_offset(sm_of("l2", "nearLatency")) + extra;
  out.push_back(
      {"l2", "nearLatency", cfg.l2.near_latency_cycles + near_offset, TruthKind::Latency});
  if (cfg.l2.segments > 1 && cfg.l2.far_segments)
    out.push_back(
        {"l2", "farLatency", cfg.l2.far_latency_cycles + near_offset, TruthKind::Latency});
  out.push_back({"dram", "latency",
                 cfg.dram.latency_cycles + engine.sm_l2_offset(sm_of("dram", "latency")) + extra,
                 TruthKind::Latency});
  out.push_back(
      {"l2", "lineSize", static_cast<double>(cfg.l2.geometry.line_bytes), TruthKind::Discrete});
  if (!cfg.l2.far_segments) return;
  const double segment = static_cast<double>(cfg.l2.geometry.size_bytes);
  out.push_back({"l2", "segmentCount", static_cast<double>(cfg.l2.segments), TruthKind::Discrete});
  out.push_back({"l2", "segmentSize", segment, TruthKind::Size});
  out.push_back({"l2", "measuredSegmentSize", segment, TruthKind::Size});
}

}  // namespace

std::vector<ValueTruth> value_truth(const SimConfig& cfg, const Result& r) {
  std::vector<ValueTruth> out;
  l1_family(cfg, out);
  l2_and_dram(cfg, r, out);
  bandwidths(cfg, r, out);
  return out;
}

}  // namespace gputopo::discovery::testing
