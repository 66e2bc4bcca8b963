#include "device/sim/config.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <limits>
#include <numeric>

#include "device/device.hpp"
#include "device/sim/json_reader.hpp"
#include "device/sim/layout.hpp"
#include "model/json_input.hpp"

namespace gputopo::device::sim {
namespace {

constexpr std::uint64_t kMaxU64 = std::numeric_limits<std::uint64_t>::max();
constexpr double kMaxCycles = 1e6;
// Lines one cache (or L2 segment) may hold, and all caches together (every instance, the L2's
// segments): the model stores about 20 B per line, so it stays under about 200 MiB.
constexpr std::uint64_t kMaxLines = std::uint64_t{1} << 22;
constexpr std::uint64_t kMaxModelLines = std::uint64_t{1} << 23;
// The size of any cache, shared memory or the constant bank. The probes sweep arrays a few times
// this size; at 256 MiB a whole discovery takes under ten seconds.
constexpr std::uint64_t kMaxBytes = std::uint64_t{1} << 28;

int to_int(std::uint64_t v) { return static_cast<int>(v); }

DeviceSpec parse_device(const JsonReader& r) {
  r.only({"name",
          "architecture",
          "compute_capability",
          "sm_count",
          "warp_size",
          "cores_per_sm",
          "max_threads_per_block",
          "max_threads_per_sm",
          "max_blocks_per_sm",
          "registers_per_block",
          "registers_per_sm",
          "global_memory_bytes",
          "shared_per_block_bytes",
          "shared_per_block_optin_bytes",
          "shared_per_sm_bytes",
          "shared_reserved_per_block_bytes",
          "constant_bytes",
          "sm_clock_max_mhz",
          "mem_clock_max_mhz",
          "memory_bus_width_bits",
          "vendor",
          "xcd_count",
          "simds_per_cu"});
  DeviceSpec d;
  d.name = r.at("name").string();
  if (d.name.empty()) r.at("name").fail("must not be empty");
  if (r.has("vendor")) {
    d.vendor = r.at("vendor").string();
    if (d.vendor != "NVIDIA" && d.vendor != "AMD") r.at("vendor").fail("must be NVIDIA or AMD");
  }
  d.architecture = r.at("architecture").string();
  const auto cc = r.at("compute_capability");
  const std::string text = cc.string();
  const auto dot = text.find('.');
  try {
    if (dot == std::string::npos) throw std::invalid_argument(text);
    std::size_t used = 0;
    d.cc_major = std::stoi(text.substr(0, dot), &used);
    if (used != dot) throw std::invalid_argument(text);
    d.cc_minor = std::stoi(text.substr(dot + 1), &used);
    if (used != text.size() - dot - 1) throw std::invalid_argument(text);
  } catch (const std::exception&) {
    cc.fail("must read MAJOR.MINOR, e.g. \"9.0\"");
  }
  if (d.cc_major < 1 || d.cc_minor < 0) cc.fail("must read MAJOR.MINOR, e.g. \"9.0\"");
  d.sm_count = to_int(r.at("sm_count").integer(1, kMaxSmCount));
  d.warp_size = to_int(r.integer("warp_size", 1, 64, 32));
  d.cores_per_sm = to_int(r.at("cores_per_sm").integer(1, 1024));
  d.max_threads_per_block = to_int(r.at("max_threads_per_block").integer(1, 4096));
  if (d.max_threads_per_block % d.warp_size != 0)
    r.at("max_threads_per_block").fail("must be a multiple of warp_size");
  d.max_threads_per_sm = to_int(r.at("max_threads_per_sm").integer(d.max_threads_per_block, 65536));
  d.max_blocks_per_sm = to_int(r.at("max_blocks_per_sm").integer(1, 1024));
  d.registers_per_block = to_int(r.at("registers_per_block").integer(1, 1u << 24));
  d.registers_per_sm = to_int(r.at("registers_per_sm").integer(1, 1u << 24));
  d.global_memory_bytes = r.at("global_memory_bytes").integer(1, kMaxU64);
  d.shared_per_block_bytes = r.at("shared_per_block_bytes").integer(0, kMaxBytes);
  d.shared_per_block_optin_bytes =
      r.at("shared_per_block_optin_bytes").integer(d.shared_per_block_bytes, kMaxBytes);
  d.shared_per_sm_bytes =
      r.at("shared_per_sm_bytes").integer(d.shared_per_block_optin_bytes, kMaxBytes);
  d.shared_reserved_per_block_bytes = r.integer("shared_reserved_per_block_bytes", 0, 1u << 20, 0);
  d.constant_bytes = r.at("constant_bytes").integer(1, kMaxBytes);
  d.sm_clock_max_mhz = r.at("sm_clock_max_mhz").number(1, 1e5);
  d.mem_clock_max_mhz = r.number("mem_clock_max_mhz", 0, 1e5, 0);
  d.memory_bus_width_bits = to_int(r.integer("memory_bus_width_bits", 0, 1u << 16, 0));
  d.xcd_count = to_int(r.integer("xcd_count", 0, 64, 0));
  if (d.xcd_count > 0 && d.sm_count % d.xcd_count != 0)
    r.at("xcd_count").fail("must divide sm_count");
  d.simds_per_cu = to_int(r.integer("simds_per_cu", 0, 64, 0));
  return d;
}

LayoutSpec parse_layout(const JsonReader& r, const DeviceSpec& device) {
  r.only({"sms_per_tpc", "gpc_tpcs", "lone_tpcs", "max_cluster_size"});
  LayoutSpec l;
  l.sms_per_tpc = to_int(r.at("sms_per_tpc").integer(1, 64));
  const auto gpcs = r.at("gpc_tpcs");
  if (gpcs.size() == 0) gpcs.fail("must list at least one GPC");
  for (std::size_t i = 0; i < gpcs.size(); ++i)
    l.gpc_tpcs.push_back(to_int(gpcs.at(i).integer(1, kMaxSmCount)));
  const int sms = std::accumulate(l.gpc_tpcs.begin(), l.gpc_tpcs.end(), 0) * l.sms_per_tpc;
  if (sms != device.sm_count)
    gpcs.fail(fmt::format("holds {} SMs ({} per TPC), but device.sm_count is {}", sms,
                          l.sms_per_tpc, device.sm_count));
  if (r.has("lone_tpcs")) {
    const auto lone = r.at("lone_tpcs");
    if (lone.size() != l.gpc_tpcs.size())
      lone.fail(fmt::format("lists {} GPCs, gpc_tpcs {}", lone.size(), l.gpc_tpcs.size()));
    for (std::size_t i = 0; i < lone.size(); ++i)
      l.lone_tpcs.push_back(to_int(lone.at(i).integer(0, l.gpc_tpcs[i])));
  }
  l.max_cluster_size = to_int(r.integer("max_cluster_size", 0, 64, 0));
  return l;
}

Replacement parse_replacement(const JsonReader& r) {
  const auto name = r.string();
  const auto policy = replacement_from_string(name);
  if (!policy) r.fail(fmt::format("unknown policy \"{}\" (lru, fifo, random, tree-plru)", name));
  return *policy;
}

// The line/sector/fetch/replacement/index part shared by SM caches and L2 segments.
void parse_lines(const JsonReader& r, CacheGeometry& g) {
  const auto pow2 = [&](std::string_view key, std::uint64_t lo, std::uint64_t hi) {
    const auto v = r.at(key).integer(lo, hi);
    if (!std::has_single_bit(v)) r.at(key).fail("must be a power of two");
    return static_cast<std::uint32_t>(v);
  };
  g.line_bytes = pow2("line_bytes", 4, 4096);
  g.sector_bytes = r.has("sector_bytes") ? pow2("sector_bytes", 1, g.line_bytes) : g.line_bytes;
  if (g.line_bytes / g.sector_bytes > 32)
    r.at("sector_bytes").fail("a line may hold at most 32 sectors");
  g.fetch_bytes = r.has("fetch_bytes") ? pow2("fetch_bytes", 1, g.line_bytes) : g.sector_bytes;
  if (g.fetch_bytes < g.sector_bytes) r.at("fetch_bytes").fail("must be at least sector_bytes");
  g.replacement = r.has("replacement") ? parse_replacement(r.at("replacement")) : Replacement::Lru;
  g.hashed_index = r.boolean("hashed_index", false);
  g.write_allocate = r.boolean("write_allocate", true);
  if (r.has("index_xor_bits")) {
    const auto bits = r.at("index_xor_bits");
    const auto line_bit = static_cast<std::uint64_t>(std::countr_zero(g.line_bytes));
    for (std::size_t i = 0; i < bits.size(); ++i)
      g.index_xor_bits.push_back(static_cast<std::uint32_t>(bits.at(i).integer(line_bit + 1, 62)));
  }
}

// "write_policy": write-back or write-through (`fallback` where not given).
bool parse_write_back(const JsonReader& r, bool fallback) {
  if (!r.has("write_policy")) return fallback;
  const auto policy = r.at("write_policy").string();
  if (policy != "write-back" && policy != "write-through")
    r.at("write_policy").fail(fmt::format("unknown \"{}\" (write-back, write-through)", policy));
  return policy == "write-back";
}

void check_lines(const JsonReader& where, const CacheGeometry& g) {
  if (g.size_bytes / g.line_bytes > kMaxLines)
    where.fail(fmt::format("holds {} lines; the simulator models at most {}",
                           g.size_bytes / g.line_bytes, kMaxLines));
}

void check_ways(const JsonReader& where, const CacheGeometry& g) {
  if (g.ways < 1 || g.ways > 256)
    where.fail(fmt::format("gives {} ways; 1 to 256 are supported", g.ways));
  if (g.replacement == Replacement::TreePlru && (!std::has_single_bit(g.ways) || g.ways > 64))
    where.fail(fmt::format("gives {} ways; tree-plru needs a power of two up to 64", g.ways));
}

void parse_sized(const JsonReader& r, CacheGeometry& g) {
  g.size_bytes = r.at("size_bytes").integer(1, kMaxBytes);
  g.ways = static_cast<std::uint32_t>(r.at("ways").integer(1, 256));
  check_ways(r.at("ways"), g);
  const std::uint64_t way_bytes = std::uint64_t{g.line_bytes} * g.ways;
  if (g.size_bytes % way_bytes != 0)
    r.at("size_bytes").fail(fmt::format("must be a multiple of line_bytes * ways = {}", way_bytes));
  check_lines(r.at("size_bytes"), g);
}

CacheSpec parse_cache(const JsonReader& r, std::string name) {
  r.only({"size_bytes", "ways", "sets", "line_bytes", "sector_bytes", "fetch_bytes", "replacement",
          "hashed_index", "index_xor_bits", "latency_cycles", "jitter_cycles", "instances_per_sm",
          "instance_select", "shared_by_sms", "write_policy", "write_allocate"});
  CacheSpec c;
  c.name = std::move(name);
  parse_lines(r, c.geometry);
  c.geometry.write_back = parse_write_back(r, false);
  if (r.has("sets")) {
    if (r.has("size_bytes") || r.has("ways"))
      r.at("sets").fail(
          "a cache unified with shared memory gives sets only; size and ways follow the carve-out");
    c.unified_sets = r.at("sets").integer(1, kMaxLines);
  } else {
    parse_sized(r, c.geometry);
  }
  c.latency_cycles = r.at("latency_cycles").number(1, kMaxCycles);
  c.jitter_cycles = r.number("jitter_cycles", 0, kMaxCycles, 0);
  c.instances_per_sm = static_cast<std::uint32_t>(r.integer("instances_per_sm", 1, 64, 1));
  if (r.has("instance_select")) {
    const auto how = r.at("instance_select").string();
    if (how == "modulo")
      c.instance_select = InstanceSelect::Modulo;
    else if (how == "contiguous")
      c.instance_select = InstanceSelect::Contiguous;
    else
      r.at("instance_select").fail(fmt::format("unknown \"{}\" (modulo, contiguous)", how));
  }
  c.shared_by_sms = static_cast<std::uint32_t>(r.integer("shared_by_sms", 1, 16, 1));
  return c;
}

int cache_index(const SimConfig& cfg, const JsonReader& where) {
  const auto name = where.string();
  for (std::size_t i = 0; i < cfg.caches.size(); ++i)
    if (cfg.caches[i].name == name) return static_cast<int>(i);
  where.fail(fmt::format("names no cache in \"caches\": \"{}\"", name));
}

void parse_unified(const JsonReader& r, SimConfig& cfg) {
  r.only({"cache", "total_bytes", "carveout_shared_bytes", "default_carveout_percent",
          "kernel_shared_bytes"});
  UnifiedSpec& u = cfg.unified;
  u.cache = cache_index(cfg, r.at("cache"));
  const CacheSpec& c = cfg.caches[static_cast<std::size_t>(u.cache)];
  if (c.unified_sets == 0)
    r.at("cache").fail("that cache must give \"sets\" instead of size_bytes and ways");
  u.total_bytes = r.at("total_bytes").integer(1, kMaxBytes);
  const auto steps = r.at("carveout_shared_bytes");
  if (steps.size() == 0) steps.fail("must list at least one [percent, shared_bytes] step");
  const std::uint64_t min_l1 = c.unified_sets * c.geometry.line_bytes;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const auto step = steps.at(i);
    if (step.size() != 2) step.fail("must be [percent, shared_bytes]");
    const int percent = to_int(step.at(0).integer(0, 100));
    const std::uint64_t shared = step.at(1).integer(0, u.total_bytes);
    if (!u.carveout_shared_bytes.empty() && (percent <= u.carveout_shared_bytes.back().first ||
                                             shared < u.carveout_shared_bytes.back().second))
      step.fail("steps must ascend in percent and not descend in shared bytes");
    if (u.total_bytes - shared < min_l1)
      step.at(1).fail(fmt::format("leaves less than one way ({} B) of L1", min_l1));
    u.carveout_shared_bytes.emplace_back(percent, shared);
  }
  if (u.carveout_shared_bytes.back().first != 100) steps.fail("the last step must be for 100 %");
  for (const auto& [percent, shared] : u.carveout_shared_bytes) {
    CacheGeometry g = c.geometry;
    g.ways = static_cast<std::uint32_t>((u.total_bytes - shared) / min_l1);
    g.size_bytes = std::uint64_t{g.ways} * min_l1;
    check_ways(steps, g);
    check_lines(steps, g);
  }
  u.default_carveout_percent = to_int(r.at("default_carveout_percent").integer(0, 100));
  u.kernel_shared_bytes = r.integer("kernel_shared_bytes", 0, u.total_bytes, 0);
}

// The lines of every cache instance and L2 segment together, each cache at its largest carve-out
// size; fails on the field that takes the sum past kMaxModelLines.
void check_model_size(const JsonReader& r, const SimConfig& cfg) {
  std::uint64_t lines = 0;
  const auto add = [&](const JsonReader& where, std::uint64_t more) {
    lines += more;
    if (lines > kMaxModelLines)
      where.fail(
          fmt::format("takes the model past {} cache lines in all (every instance of every "
                      "cache, and the L2); the simulator models at most {}",
                      lines, kMaxModelLines));
  };
  for (std::size_t i = 0; i < cfg.caches.size(); ++i) {
    std::uint64_t largest = 0;
    for (int percent = 0; percent <= 100; ++percent)
      largest = std::max(largest, cfg.geometry(i, percent, 0).size_bytes);
    add(r.at("caches").at(cfg.caches[i].name),
        largest / cfg.caches[i].geometry.line_bytes * cfg.caches[i].instances_per_sm);
  }
  add(r.at("l2").at("size_bytes"), cfg.l2.geometry.size_bytes / cfg.l2.geometry.line_bytes *
                                       static_cast<std::uint64_t>(cfg.l2.segments));
  if (cfg.mall)
    add(r.at("mall").at("size_bytes"),
        cfg.mall->geometry.size_bytes / cfg.mall->geometry.line_bytes);
}

void parse_spaces(const JsonReader& r, SimConfig& cfg) {
  r.only({"l1", "l2", "readOnly", "texture", "constant", "shared"});
  for (const Space s : {Space::L1, Space::L2, Space::ReadOnly, Space::Texture, Space::Constant}) {
    const auto sr = r.at(to_string(s));
    sr.only({"path", "extra_cycles"});
    SpaceSpec& spec = cfg.spaces[static_cast<std::size_t>(s)];
    const auto path = sr.at("path");
    if (path.size() > 8) path.fail("lists more than 8 caches");
    for (std::size_t i = 0; i < path.size(); ++i) {
      const int index = cache_index(cfg, path.at(i));
      if (std::find(spec.path.begin(), spec.path.end(), index) != spec.path.end())
        path.at(i).fail("names a cache twice");
      spec.path.push_back(index);
    }
    if (s == Space::L2 && !spec.path.empty())
      path.fail("must be empty: l2 loads bypass the SM's caches");
    spec.extra_cycles = sr.number("extra_cycles", -kMaxCycles, kMaxCycles, 0);
  }
  const auto sh = r.at("shared");
  sh.only({"latency_cycles", "jitter_cycles"});
  cfg.shared.latency_cycles = sh.at("latency_cycles").number(1, kMaxCycles);
  cfg.shared.jitter_cycles = sh.number("jitter_cycles", 0, kMaxCycles, 0);
}

// A latency for every segment: one number for all, or a list with one value per segment.
std::vector<double> per_segment(const JsonReader& r, int segments) {
  const auto n = static_cast<std::size_t>(segments);
  if (!r.json().is_array()) return std::vector<double>(n, r.number(1, kMaxCycles));
  if (r.size() != n) r.fail(fmt::format("lists {} latencies for {} segments", r.size(), segments));
  std::vector<double> values;
  for (std::size_t i = 0; i < n; ++i) values.push_back(r.at(i).number(1, kMaxCycles));
  return values;
}

// Slice masks over line-index bits: one per slice bit, none a combination of the others (every
// slice reachable).
void parse_slices(const JsonReader& r, L2Spec& l2) {
  l2.slices_per_segment = to_int(r.integer("slices_per_segment", 1, 256, 1));
  l2.slice_read_gbps = r.number("slice_read_gbps", 0, 1e6, 0);
  l2.slice_reductions_per_ns = r.number("slice_reductions_per_ns", 0, 1e3, 0);
  l2.slice_latency_cycles = r.number("slice_latency_cycles", 0, kMaxCycles, 0);
  const auto slices = static_cast<unsigned>(l2.slices_per_segment);
  if ((slices & (slices - 1)) != 0) r.at("slices_per_segment").fail("must be a power of two");
  const auto bits = static_cast<std::size_t>(std::countr_zero(slices));
  if (bits == 0 && !r.has("slice_hash")) return;
  const auto hash = r.at("slice_hash");
  if (hash.size() != bits)
    hash.fail(fmt::format("lists {} masks for {} slices ({} wanted)", hash.size(), slices, bits));
  std::vector<std::uint64_t> basis;
  for (std::size_t i = 0; i < bits; ++i) {
    const std::uint64_t mask = hash.at(i).integer(1, std::numeric_limits<std::uint64_t>::max());
    std::uint64_t reduced = mask;
    for (const std::uint64_t b : basis) reduced = std::min(reduced, reduced ^ b);
    if (reduced == 0) hash.at(i).fail("is a combination of the masks before it");
    basis.push_back(reduced);
    std::sort(basis.rbegin(), basis.rend());
    l2.slice_hash.push_back(mask);
  }
}

void parse_l2(const JsonReader& r, SimConfig& cfg) {
  r.only({"size_bytes",
          "segments",
          "ways",
          "line_bytes",
          "sector_bytes",
          "fetch_bytes",
          "replacement",
          "hashed_index",
          "index_xor_bits",
          "near_latency_cycles",
          "far_latency_cycles",
          "jitter_cycles",
          "sm_latency_spread_cycles",
          "sm_segment",
          "write_policy",
          "write_allocate",
          "far_segments",
          "slices_per_segment",
          "slice_hash",
          "slice_read_gbps",
          "slice_reductions_per_ns",
          "slice_latency_cycles"});
  L2Spec& l2 = cfg.l2;
  l2.far_segments = r.boolean("far_segments", true);
  l2.segments = to_int(r.integer("segments", 1, 16, 1));
  parse_lines(r, l2.geometry);
  const std::uint64_t total = r.at("size_bytes").integer(1, kMaxBytes);
  if (total % static_cast<unsigned>(l2.segments) != 0)
    r.at("size_bytes").fail("must divide evenly into the segments");
  l2.geometry.size_bytes = total / static_cast<unsigned>(l2.segments);
  l2.geometry.ways = static_cast<std::uint32_t>(r.at("ways").integer(1, 256));
  check_ways(r.at("ways"), l2.geometry);
  const std::uint64_t way_bytes = std::uint64_t{l2.geometry.line_bytes} * l2.geometry.ways;
  if (l2.geometry.size_bytes % way_bytes != 0)
    r.at("size_bytes")
        .fail(fmt::format("one segment must be a multiple of line_bytes * ways = {}", way_bytes));
  check_lines(r.at("size_bytes"), l2.geometry);
  l2.near_latency_by_segment = per_segment(r.at("near_latency_cycles"), l2.segments);
  l2.far_latency_by_segment = r.has("far_latency_cycles")
                                  ? per_segment(r.at("far_latency_cycles"), l2.segments)
                                  : l2.near_latency_by_segment;
  const auto mean = [](const std::vector<double>& v) {
    return std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
  };
  l2.near_latency_cycles = mean(l2.near_latency_by_segment);
  l2.far_latency_cycles = mean(l2.far_latency_by_segment);
  l2.jitter_cycles = r.number("jitter_cycles", 0, kMaxCycles, 0);
  l2.sm_latency_spread_cycles = r.number("sm_latency_spread_cycles", 0, kMaxCycles, 0);
  l2.write_back = parse_write_back(r, true);
  parse_slices(r, l2);

  const int sms = cfg.device.sm_count;
  l2.sm_segment.assign(static_cast<std::size_t>(sms), 0);
  if (!r.has("sm_segment") || r.at("sm_segment").json().is_string()) {
    if (r.has("sm_segment") && r.at("sm_segment").string() != "by_gpc")
      r.at("sm_segment").fail("must be \"by_gpc\" or a list with one segment per SM");
    // GPCs split evenly between the segments, in GPC order.
    const Topology topology = build_topology(cfg.layout, sms);
    const auto gpcs = static_cast<int>(cfg.layout.gpc_tpcs.size());
    for (std::size_t sm = 0; sm < l2.sm_segment.size(); ++sm)
      l2.sm_segment[sm] = topology.gpc_of_sm[sm] * l2.segments / gpcs;
  } else {
    const auto list = r.at("sm_segment");
    if (list.size() != static_cast<std::size_t>(sms))
      list.fail(fmt::format("lists {} SMs, device.sm_count is {}", list.size(), sms));
    for (std::size_t i = 0; i < list.size(); ++i)
      l2.sm_segment[i] = to_int(list.at(i).integer(0, static_cast<std::uint64_t>(l2.segments - 1)));
  }
}

MallSpec parse_mall(const JsonReader& r) {
  r.only({"size_bytes", "ways", "line_bytes", "sector_bytes", "fetch_bytes", "replacement",
          "hashed_index", "latency_cycles", "jitter_cycles"});
  MallSpec m;
  parse_lines(r, m.geometry);
  parse_sized(r, m.geometry);
  m.latency_cycles = r.at("latency_cycles").number(1, kMaxCycles);
  m.jitter_cycles = r.number("jitter_cycles", 0, kMaxCycles, 0);
  return m;
}

// The instance each SM uses of a cache shared by several SMs: consecutive SMs of one GPC.
void assign_sm_groups(SimConfig& cfg) {
  const Topology topology = build_topology(cfg.layout, cfg.device.sm_count);
  for (CacheSpec& c : cfg.caches) {
    if (c.shared_by_sms <= 1) continue;
    c.sm_group.assign(static_cast<std::size_t>(cfg.device.sm_count), 0);
    int group = 0;
    for (const auto& sms : topology.gpc_sms)
      for (std::size_t i = 0; i < sms.size(); ++i) {
        if (i > 0 && i % c.shared_by_sms == 0) ++group;
        c.sm_group[static_cast<std::size_t>(sms[i])] = group;
        if (i + 1 == sms.size()) ++group;
      }
  }
}

void parse_rest(const JsonReader& r, SimConfig& cfg) {
  const auto dram = r.at("dram");
  dram.only({"latency_cycles", "jitter_cycles"});
  cfg.dram.latency_cycles = dram.at("latency_cycles").number(1, kMaxCycles);
  cfg.dram.jitter_cycles = dram.number("jitter_cycles", 0, kMaxCycles, 0);

  const auto timing = r.at("timing");
  timing.only({"overhead_cycles", "overlap_cycles"});
  cfg.overhead_cycles = timing.at("overhead_cycles").number(0, kMaxCycles);
  cfg.overlap_cycles = timing.number("overlap_cycles", 0, kMaxCycles, 0);

  if (r.has("noise")) {
    const auto noise = r.at("noise");
    noise.only({"outlier_rate", "outlier_min_cycles", "outlier_max_cycles"});
    cfg.noise.outlier_rate = noise.number("outlier_rate", 0, 1, 0);
    cfg.noise.outlier_min_cycles = noise.number("outlier_min_cycles", 0, kMaxCycles, 0);
    cfg.noise.outlier_max_cycles = noise.number("outlier_max_cycles", cfg.noise.outlier_min_cycles,
                                                kMaxCycles, cfg.noise.outlier_min_cycles);
  }

  const auto bw = r.at("bandwidth");
  bw.only({"l2_read_gbps", "l2_shared_read_gbps", "l2_write_gbps", "dram_read_gbps",
           "dram_write_gbps", "l1_read_bytes_per_clk", "shared_read_bytes_per_clk",
           "launch_overhead_us", "jitter_fraction", "sm_l2_read_gbps", "gpc_port_gbps"});
  BandwidthSpec& b = cfg.bandwidth;
  b.l2_read_gbps = bw.at("l2_read_gbps").number(0.001, 1e6);
  b.l2_shared_read_gbps = bw.number("l2_shared_read_gbps", 0, 1e6, 0);
  b.l2_write_gbps = bw.at("l2_write_gbps").number(0.001, 1e6);
  b.dram_read_gbps = bw.at("dram_read_gbps").number(0.001, 1e6);
  b.dram_write_gbps = bw.at("dram_write_gbps").number(0.001, 1e6);
  b.l1_read_bytes_per_clk = bw.number("l1_read_bytes_per_clk", 0, 1e4, 0);
  b.shared_read_bytes_per_clk = bw.number("shared_read_bytes_per_clk", 0, 1e4, 0);
  b.launch_overhead_us = bw.number("launch_overhead_us", 0, 1e6, 0);
  b.jitter_fraction = bw.number("jitter_fraction", 0, 0.5, 0);
  b.sm_l2_read_gbps = bw.number("sm_l2_read_gbps", 0, 1e6, 0);
  b.gpc_port_gbps = bw.number("gpc_port_gbps", 0, 1e6, 0);
}

void parse_environment(const JsonReader& r, SimConfig& cfg) {
  constexpr auto kMax = std::numeric_limits<std::uint64_t>::max();
  if (r.has("competing_load")) {
    const auto load = r.at("competing_load");
    load.only({"from_call", "to_call", "slowdown", "extra_rate", "extra_cycles", "bandwidth_factor",
               "nvml_visible"});
    CompetingLoadSpec l;
    l.from_call = load.integer("from_call", 0, kMax, 0);
    l.to_call = load.integer("to_call", l.from_call, kMax, kMax);
    l.slowdown = load.number("slowdown", 1, 100, l.slowdown);
    l.extra_rate = load.number("extra_rate", 0, 1, l.extra_rate);
    l.extra_cycles = load.number("extra_cycles", 0, kMaxCycles, l.extra_cycles);
    l.bandwidth_factor = load.number("bandwidth_factor", 0.01, 1, l.bandwidth_factor);
    l.nvml_visible = load.boolean("nvml_visible", l.nvml_visible);
    cfg.competing_load = l;
  }
  if (r.has("faults")) {
    const auto faults = r.at("faults");
    faults.only({"free_memory_bytes", "hang_at_call", "lost_at_call"});
    auto optional = [&](std::string_view key) -> std::optional<std::uint64_t> {
      if (!faults.has(key)) return std::nullopt;
      return faults.at(key).integer(0, kMax);
    };
    cfg.faults.free_memory_bytes = optional("free_memory_bytes");
    cfg.faults.hang_at_call = optional("hang_at_call");
    cfg.faults.lost_at_call = optional("lost_at_call");
  }
}

std::vector<std::string> parse_sources(const JsonReader& r) {
  std::vector<std::string> sources;
  const auto list = r.at("sources");
  for (std::size_t i = 0; i < list.size(); ++i) sources.push_back(list.at(i).string());
  if (sources.empty()) list.fail("must cite at least one source");
  return sources;
}

// An instruction-cache level that holds constants is the constant space's last cache.
void check_constant_level(const JsonReader& compute, const SimConfig& cfg) {
  const auto& levels = cfg.compute->instruction_caches;
  for (std::size_t i = 0; i < levels.size(); ++i) {
    if (!levels[i].holds_constants) continue;
    const auto where = compute.at("instruction_caches").at(i).at("holds_constants");
    const auto& path = cfg.space(Space::Constant).path;
    if (path.empty()) where.fail("needs a constant-space cache (spaces.constant.path)");
    const CacheSpec& last = cfg.caches[static_cast<std::size_t>(path.back())];
    if (last.geometry.size_bytes != levels[i].size_bytes)
      where.fail(fmt::format("the level must be as large as {} ({} B)", last.name,
                             last.geometry.size_bytes));
  }
}

}  // namespace

SimConfig parse_config(const std::string& text, const std::string& origin) {
  model::Json json;
  try {
    json = model::parse_json_input(text);
  } catch (const std::runtime_error& e) {
    throw Error(Error::Kind::BadRequest, fmt::format("{}: not valid JSON: {}", origin, e.what()));
  }
  const JsonReader r(json, origin, "");
  r.only({"name", "comment", "sources", "device", "layout", "caches", "unified_l1_shared", "spaces",
          "l2", "mall", "dram", "timing", "noise", "bandwidth", "competing_load", "faults",
          "compute", "tlb"});
  SimConfig cfg;
  cfg.preset = r.at("name").string();
  if (cfg.preset.empty()) r.at("name").fail("must not be empty");
  cfg.comment = r.has("comment") ? r.at("comment").string() : std::string();
  cfg.sources = parse_sources(r);
  cfg.device = parse_device(r.at("device"));
  cfg.layout = parse_layout(r.at("layout"), cfg.device);
  const auto caches = r.at("caches");
  if (!caches.json().is_object()) caches.fail("must be an object of named caches");
  for (const auto& item : caches.json().items())
    cfg.caches.push_back(parse_cache(caches.at(item.key()), item.key()));
  for (std::size_t i = 0; i < cfg.caches.size(); ++i)
    if (cfg.caches[i].unified_sets != 0 && !r.has("unified_l1_shared"))
      caches.at(cfg.caches[i].name).fail("gives \"sets\" but there is no \"unified_l1_shared\"");
  if (r.has("unified_l1_shared")) parse_unified(r.at("unified_l1_shared"), cfg);
  for (std::size_t i = 0; i < cfg.caches.size(); ++i)
    if (cfg.caches[i].unified_sets != 0 && static_cast<int>(i) != cfg.unified.cache)
      caches.at(cfg.caches[i].name)
          .fail("gives \"sets\" but unified_l1_shared.cache names another cache");
  parse_spaces(r.at("spaces"), cfg);
  parse_l2(r.at("l2"), cfg);
  if (r.has("mall")) cfg.mall = parse_mall(r.at("mall"));
  assign_sm_groups(cfg);
  check_model_size(r, cfg);
  parse_rest(r, cfg);
  parse_environment(r, cfg);
  if (r.has("compute")) {
    cfg.compute = parse_compute(r.at("compute"), cfg.device.cc_major, cfg.device.cc_minor);
    check_constant_level(r.at("compute"), cfg);
  }
  if (r.has("tlb")) cfg.tlb = parse_tlb(r.at("tlb"));
  return cfg;
}

std::uint64_t SimConfig::shared_config_bytes(std::optional<int> carveout_percent) const {
  return shared_config_bytes(carveout_percent, 0);
}

std::uint64_t SimConfig::shared_config_bytes(std::optional<int> carveout_percent,
                                             std::uint64_t extra_shared_bytes) const {
  const auto& steps = unified.carveout_shared_bytes;
  if (steps.empty()) return device.shared_per_sm_bytes;
  const int percent =
      std::clamp(carveout_percent.value_or(unified.default_carveout_percent), 0, 100);
  std::size_t i = 0;
  while (i + 1 < steps.size() && steps[i].first < percent) ++i;
  // The driver grows the shared part until the kernel's own buffer fits.
  const std::uint64_t needed =
      unified.kernel_shared_bytes + device.shared_reserved_per_block_bytes + extra_shared_bytes;
  while (i + 1 < steps.size() && steps[i].second < needed) ++i;
  return steps[i].second;
}

std::uint32_t SimConfig::l2_fetch_bytes(std::optional<std::uint32_t> limit_bytes) const {
  const std::uint32_t fetch = l2.geometry.fetch_bytes;
  if (!limit_bytes) return fetch;
  const std::uint32_t sector = l2.geometry.sector_bytes;
  const std::uint32_t sectors = (*limit_bytes + sector - 1) / sector;
  return std::clamp(std::bit_ceil(std::max(sectors, 1u)) * sector, sector, fetch);
}

CacheGeometry SimConfig::geometry(std::size_t index, std::optional<int> carveout_percent,
                                  std::uint64_t extra_shared_bytes) const {
  const CacheSpec& c = caches[index];
  CacheGeometry g = c.geometry;
  if (c.unified_sets != 0) {
    const std::uint64_t way_bytes = c.unified_sets * g.line_bytes;
    const std::uint64_t l1 =
        unified.total_bytes - shared_config_bytes(carveout_percent, extra_shared_bytes);
    g.ways = static_cast<std::uint32_t>(l1 / way_bytes);
    g.size_bytes = std::uint64_t{g.ways} * way_bytes;
  }
  return g;
}

}  // namespace gputopo::device::sim
