#include "report/mt4g_writer.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>

#include "report/writers.hpp"

namespace gputopo::report {
namespace {

using model::Json;

constexpr double kBytesPerGiB = 1024.0 * 1024.0 * 1024.0;

const model::Attribute* found(const model::AttributeList& list, const char* key) {
  const model::Attribute* a = model::find(list, key);
  return a && a->available() && a->value.is_number() ? a : nullptr;
}

const model::AttributeList* section_of(const model::Report& r, const char* key) {
  for (const auto& e : r.memory)
    if (e.key == key) return &e.attributes;
  return nullptr;
}

std::string method(const model::Attribute& a) {
  return "gputopo " + std::string(model::to_string(a.source)) +
         (a.method.empty() ? "" : ": " + a.method);
}

// MT4G's measured-size object: {"size", "unit", "confidence", "method", "randomized"}.
void put_size(Json& into, const char* name, const model::AttributeList& list, const char* key) {
  const auto* a = found(list, key);
  if (!a) return;
  into[name] = {{"size", a->value.get<std::uint64_t>()},
                {"unit", "bytes"},
                {"confidence", a->confidence.value_or(1.0)},
                {"method", method(*a)},
                {"randomized", false}};
}

// MT4G's plain value: {"unit", "value"}, converted by `scale`.
void put_value(Json& into, const char* name, const model::Attribute* a, const char* unit,
               double scale = 1) {
  if (!a) return;
  const double v = a->value.get<double>() * scale;
  if (std::floor(v) == v && std::abs(v) < 9e15)
    into[name] = {{"unit", unit}, {"value", static_cast<std::int64_t>(v)}};
  else
    into[name] = {{"unit", unit}, {"value", v}};
}

// A dependent-chain latency: MT4G's readers take its `mean`. gputopo has no per-load p50 or p95
// to give, so it writes only what it measured.
void put_latency(Json& into, const model::AttributeList& list, const char* key) {
  const auto* a = found(list, key);
  if (!a) return;
  into["latency"] = {{"mean", a->value.get<double>()},
                     {"unit", "cycles"},
                     {"confidence", a->confidence.value_or(1.0)},
                     {"method", method(*a)}};
}

// GB/s (gputopo) to GiB/s (MT4G).
void put_bandwidth(Json& into, const char* name, const model::AttributeList& list,
                   const char* key) {
  put_value(into, name, found(list, key), "GiB/s", 1e9 / kBytesPerGiB);
}

std::string mt4g_name(const std::string& element) {
  if (element == "l1") return "L1";
  if (element == "texture") return "Texture";
  if (element == "readOnly") return "Read Only";
  if (element == "constantL1") return "Constant L1";
  return element;
}

Json cache(const model::AttributeList& list) {
  Json c = Json::object();
  put_size(c, "size", list, "size");
  put_size(c, "lineSize", list, "lineSize");
  put_size(c, "fetchGranularity", list, "fetchGranularity");
  put_latency(c, list, "latency");
  put_value(c, "missPenalty", found(list, "missPenalty"), "cycles");
  if (const auto* n = found(list, "countPerSm")) c["amountPerMultiprocessor"] = n->value.get<int>();
  if (const auto* shared = model::find(list, "sharedWith");
      shared && shared->available() && shared->value.is_array() && !shared->value.empty()) {
    // MT4G lists them by name, and sys-sage names the cache after the list: "L1+Read Only+Texture".
    std::vector<std::string> names;
    for (const auto& other : shared->value) names.push_back(mt4g_name(other.get<std::string>()));
    std::sort(names.begin(), names.end());
    c["sharedWith"] = names;
  }
  return c;
}

// A driver fact MT4G writes as a plain value (bool or number): null where the report has none, the
// reason kept in meta.notAvailable.
Json fact(const model::AttributeList& list, const char* key, const std::string& mt4g,
          Json& not_available) {
  const auto* a = model::find(list, key);
  if (a && a->available()) return a->value;
  not_available[mt4g] =
      a ? a->reason : "gputopo's driver queries have no " + std::string(key) + " for this GPU";
  return nullptr;
}

// The six driver facts MT4G writes beside its measurements; null (and a reason in
// meta.notAvailable) where the report has none.
void put_driver_facts(const model::Report& r, Json& doc) {
  Json missing = Json::object();
  doc["general"]["asicRevision"] = fact(r.device, "asicRevision", "general.asicRevision", missing);
  doc["compute"]["concurrentKernels"] =
      fact(r.compute, "concurrentKernels", "compute.concurrentKernels", missing);
  doc["compute"]["supportsCooperativeLaunch"] =
      fact(r.compute, "cooperativeLaunch", "compute.supportsCooperativeLaunch", missing);
  Json& l1 = doc["memory"]["l1"];
  l1["globalL1CacheSupported"] =
      fact(r.compute, "globalL1Cache", "memory.l1.globalL1CacheSupported", missing);
  l1["localL1CacheSupported"] =
      fact(r.compute, "localL1Cache", "memory.l1.localL1CacheSupported", missing);
  const Json persisting =
      fact(r.compute, "l2PersistingMax", "memory.l2.persistingL2CacheMaxSize", missing);
  doc["memory"]["l2"]["persistingL2CacheMaxSize"] =
      persisting.is_number() ? Json{{"unit", "bytes"}, {"value", persisting}} : Json();
  if (!missing.empty()) doc["meta"]["notAvailable"] = std::move(missing);
}

Json general(const model::Report& r) {
  Json g = Json::object();
  const auto* name = model::find(r.device, "name");
  g["name"] = name && name->value.is_string() ? name->value : Json("unknown");
  const auto* vendor = model::find(r.device, "vendor");
  g["vendor"] = vendor && vendor->value.is_string() ? vendor->value : Json("NVIDIA");
  if (const auto* cc = model::find(r.device, "computeCapability"); cc && cc->value.is_string()) {
    const std::string text = cc->value.get<std::string>();
    const auto dot = text.find('.');
    if (dot != std::string::npos)
      g["computeCapability"] = {{"major", std::stoi(text.substr(0, dot))},
                                {"minor", std::stoi(text.substr(dot + 1))}};
  }
  put_value(g, "clockRate", found(r.device, "smClockMax"), "kHz", 1000);
  return g;
}

Json compute(const model::Report& r) {
  Json c = Json::object();
  const std::pair<const char*, const char*> keys[] = {
      {"multiProcessorCount", "smCount"},
      {"numberOfCoresPerMultiProcessor", "coresPerSm"},
      {"warpSize", "warpSize"},
      {"maxThreadsPerBlock", "maxThreadsPerBlock"},
      {"maxThreadsPerMultiProcessor", "maxThreadsPerSm"},
      {"maxBlocksPerMultiProcessor", "maxBlocksPerSm"},
      {"regsPerBlock", "registersPerBlock"},
      {"regsPerMultiProcessor", "registersPerSm"},
      {"numXCDs", "xcdCount"},
      {"computeUnitsPerDie", "cusPerXcd"},
      {"numSIMDsPerCU", "simdsPerCu"}};
  for (const auto& [mt4g, ours] : keys)
    if (const auto* a = found(r.compute, ours)) c[mt4g] = a->value.get<std::int64_t>();
  return c;
}

// sys-sage reads a level's bandwidths whenever it finds its latency: both or neither.
void keep_latency_with_bandwidths(Json& level) {
  if (level.contains("latency") &&
      (!level.contains("readBandwidth") || !level.contains("writeBandwidth")))
    level.erase("latency");
}

Json main_memory(const model::Report& r) {
  Json m = Json::object();
  if (const auto* dram = section_of(r, "dram")) {
    put_latency(m, *dram, "latency");
    put_bandwidth(m, "readBandwidth", *dram, "readBandwidth");
    put_bandwidth(m, "writeBandwidth", *dram, "writeBandwidth");
  }
  keep_latency_with_bandwidths(m);
  put_value(m, "totalGlobalMem", found(r.device, "memorySize"), "bytes");
  put_value(m, "memoryClockRate", found(r.device, "memoryClockMax"), "kHz", 1000);
  put_value(m, "memoryBusWidth", found(r.device, "memoryBusWidth"), "bit");
  return m;
}

Json l2(const model::AttributeList& list) {
  Json l = Json::object();
  put_value(l, "size", found(list, "apiSize") ? found(list, "apiSize") : found(list, "size"),
            "bytes");
  put_size(l, "lineSize", list, "lineSize");
  put_size(l, "fetchGranularity", list, "fetchGranularity");
  put_size(l, "segmentSize", list, "segmentSize");
  put_latency(l, list, "nearLatency");
  put_value(l, "missPenalty", found(list, "missPenalty"), "cycles");
  put_bandwidth(l, "readBandwidth", list, "readBandwidth");
  put_bandwidth(l, "writeBandwidth", list, "writeBandwidth");
  keep_latency_with_bandwidths(l);
  // AMD: one L2 per XCD.
  if (const auto* n = found(list, "instanceCount")) l["amount"] = n->value.get<int>();
  return l;
}

// AMD's scalar L1: a cache, the CU groups that share one (MT4G's sharedBetween) and their number.
Json scalar_l1(const model::Report& r, const model::AttributeList& list) {
  Json c = cache(list);
  if (const auto* shared = model::shared_cache(r.topology, "scalarL1"))
    c["sharedBetween"] = shared->groups;
  if (const auto* n = found(list, "instanceCount")) c["uniqueAmount"] = n->value.get<int>();
  return c;
}

// AMD's memory-side cache (Infinity Cache), MT4G's l3.
Json l3(const model::AttributeList& list) {
  Json l = Json::object();
  put_size(l, "size", list, "size");
  put_latency(l, list, "latency");
  return l;
}

// MT4G's constant section: the constant memory, and its L1 and L1.5 where gputopo found what
// sys-sage requires of them (size and fetch granularity, and the L1's latency).
Json constant(const model::Report& r) {
  Json c = Json::object();
  put_value(c, "totalConstMem", found(r.compute, "constantMemory"), "bytes");
  const auto* l1 = section_of(r, "constantL1");
  const auto* l15 = section_of(r, "constantL15");
  if (!l1 || !l15) return c;
  Json l1_json = cache(*l1);
  Json l15_json = cache(*l15);
  const bool complete = l1_json.contains("size") && l1_json.contains("fetchGranularity") &&
                        l1_json.contains("latency") && l15_json.contains("size") &&
                        l15_json.contains("fetchGranularity");
  if (!complete) return c;
  c["l1"] = std::move(l1_json);
  c["l1.5"] = std::move(l15_json);
  return c;
}

Json shared(const model::Report& r) {
  Json s = Json::object();
  put_value(s, "sharedMemPerBlock", found(r.compute, "sharedMemoryPerBlock"), "bytes");
  put_value(s, "sharedMemPerMultiProcessor", found(r.compute, "sharedMemoryPerSm"), "bytes");
  put_value(s, "reservedSharedMemPerBlock", found(r.compute, "sharedMemoryReservedPerBlock"),
            "bytes");
  for (const char* name : {"shared", "lds"})
    if (const auto* list = section_of(r, name)) put_latency(s, *list, "latency");
  return s;
}

Json meta(const model::Report& r) {
  Json m = Json::object();
  if (!r.run.timestamp.empty()) m["timestamp"] = r.run.timestamp;
  const auto version = [&](const char* key) -> Json {
    const auto* a = model::find(r.device, key);
    return a && a->available() ? a->value : Json();
  };
  m["driver"] = version("driverCudaVersion");
  m["runtime"] = version("runtimeVersion");
  m["tool"] = model::to_json(r.tool);
  m["simulated"] = r.simulated;
  return m;
}

}  // namespace

model::Json to_mt4g(const model::Report& report) {
  Json memory = Json::object();
  memory["main"] = main_memory(report);
  if (const auto* list = section_of(report, "l2")) memory["l2"] = l2(*list);
  for (const char* key : {"l1", "texture", "readOnly"})
    if (const auto* list = section_of(report, key)) memory[key] = cache(*list);
  if (const auto* list = section_of(report, "scalarL1"))
    memory["scalarL1"] = scalar_l1(report, *list);
  if (const auto* list = section_of(report, "mall"); list && found(*list, "size"))
    memory["l3"] = l3(*list);
  memory["constant"] = constant(report);
  memory["shared"] = shared(report);
  Json doc = {{"general", general(report)},
              {"compute", compute(report)},
              {"memory", std::move(memory)},
              {"meta", meta(report)}};
  put_driver_facts(report, doc);
  return doc;
}

namespace {
class Mt4gWriter final : public Writer {
 public:
  std::string_view name() const override { return "mt4g"; }
  bool terminal_text() const override { return false; }
  std::string_view extension() const override { return ".mt4g.json"; }
  void write(std::ostream& out, const model::Report& report) const override {
    out << to_mt4g(report).dump(4, ' ', false, Json::error_handler_t::replace) << "\n";
  }
};
}  // namespace

std::unique_ptr<Writer> make_mt4g_writer() { return std::make_unique<Mt4gWriter>(); }

}  // namespace gputopo::report
