#include "device/sim/config.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "device/sim/presets.hpp"
#include "device/sim/rng.hpp"
#include "device/sim/sim_device.hpp"
#include "model/dram_peak.hpp"

namespace gputopo::device::sim {
namespace {

using model::Json;

std::string preset_text(std::string_view name) {
  for (const auto& [n, text] : embedded_presets())
    if (n == name) return std::string(text);
  return {};
}

// The message of the error parse_config throws for `json`, or "" when it parses.
std::string error_of(const Json& json) {
  try {
    parse_config(json.dump(), "bad.json");
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), Error::Kind::BadRequest);
    return e.what();
  }
  return {};
}

TEST(SimConfig, EveryPresetLoadsAndNamesItself) {
  const auto names = preset_names();
  for (const char* required : {"h100-sxm", "a100", "v100", "toy", "odd-2xl1", "odd-3seg"})
    EXPECT_NE(std::find(names.begin(), names.end(), required), names.end()) << required;
  for (const auto& name : names) {
    const SimConfig cfg = load_config(name);
    EXPECT_EQ(cfg.preset, name);
    EXPECT_FALSE(cfg.sources.empty()) << name;
    EXPECT_FALSE(cfg.comment.empty()) << name;
    const auto device = open(name);
    EXPECT_TRUE(device->info().simulated);
    EXPECT_EQ(device->info().sm_count(), cfg.device.sm_count);
    EXPECT_EQ(device->info().l2_bytes(), cfg.l2_api_bytes());
  }
}

// Issue 32 row 9: the toy presets streamed six times what their memory clock and bus width allow.
// AMD's driver may give a quarter of HBM3's data rate as its clock (docs/schema.md): twice.
TEST(SimConfig, EveryPresetStreamsDeviceMemoryBelowItsDerivedPeak) {
  for (const auto& name : preset_names()) {
    const SimConfig cfg = load_config(name);
    const double peak =
        model::peak_dram_gbps(cfg.device.mem_clock_max_mhz, cfg.device.memory_bus_width_bits) *
        (cfg.device.vendor == "AMD" ? 2 : 1);
    EXPECT_LE(cfg.bandwidth.dram_read_gbps, peak) << name;
    EXPECT_LE(cfg.bandwidth.dram_write_gbps, peak) << name;
  }
}

TEST(SimConfig, H100PresetMatchesTheDriverValues) {
  const auto device = open("h100-sxm");
  const DeviceInfo& info = device->info();
  EXPECT_EQ(info.sm_count(), 132);
  EXPECT_EQ(info.l2_bytes(), 50u * 1024 * 1024);
  EXPECT_EQ(info.compute_capability().major, 9);
  EXPECT_TRUE(info.simulated);
  EXPECT_EQ(info.sm_count.source, model::Source::Api);
  EXPECT_FALSE(info.uuid.known());
  EXPECT_FALSE(info.uuid.missing.empty());
}

TEST(SimConfig, CarveoutStepsGiveTheL1Size) {
  const SimConfig cfg = load_config("h100-sxm");
  const auto l1 = [&](std::optional<int> p) { return cfg.geometry(0, p).size_bytes / 1024; };
  EXPECT_EQ(l1(0), 248u);
  EXPECT_EQ(l1(25), 152u);
  EXPECT_EQ(l1(50), 56u);
  EXPECT_EQ(l1(100), 24u);
  EXPECT_EQ(l1(std::nullopt), l1(40));
  // A kernel that needs 120 KiB of shared memory cannot keep a 248 KiB L1.
  EXPECT_EQ(cfg.geometry(0, 0, 120 * 1024).size_bytes / 1024, 120u);
}

TEST(SimConfig, LoadsAFileAndReportsAMissingOne) {
  const auto path = std::filesystem::temp_directory_path() / "gputopo_sim_config_test.json";
  {
    std::ofstream out(path);
    out << preset_text("toy");
  }
  EXPECT_EQ(load_config(path.string()).device.sm_count, 6);
  EXPECT_THROW(load_config(path.parent_path().string()), Error);  // a directory
  std::filesystem::remove(path);
  try {
    load_config(path.string());
    FAIL() << "a missing file loaded";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), Error::Kind::BadRequest);
    EXPECT_NE(std::string(e.what()).find("h100-sxm"), std::string::npos) << e.what();
  }
}

struct Mutation {
  const char* pointer;  // JSON pointer into the toy preset
  Json value;           // null removes the field
  const char* field;    // what the message must name
  const char* reason;   // and part of why
};

TEST(SimConfig, RejectsBadFilesNamingFieldAndReason) {
  const Json toy = Json::parse(preset_text("toy"));
  const std::vector<Mutation> mutations{
      {"/device/sm_count", nullptr, "device.sm_count", "missing"},
      {"/device/sm_count", 0, "device.sm_count", "must be in"},
      {"/device/sm_count", "six", "device.sm_count", "whole number"},
      {"/device/compute_capability", "nine", "device.compute_capability", "MAJOR.MINOR"},
      {"/device/colour", "blue", "device.colour", "unknown field"},
      {"/layout/gpc_tpcs", Json::array({3, 2}), "layout.gpc_tpcs", "device.sm_count is 6"},
      {"/caches/l1/line_bytes", 48, "caches.l1.line_bytes", "power of two"},
      {"/caches/l1/ways", 5, "caches.l1.size_bytes", "multiple of"},
      {"/caches/l1/replacement", "mru", "caches.l1.replacement", "unknown policy"},
      {"/caches/l1/sector_bytes", 1, "caches.l1.sector_bytes", "at most 32 sectors"},
      {"/caches/l1/fetch_bytes", 8, "caches.l1.fetch_bytes", "at least sector_bytes"},
      {"/caches/tex/replacement", "tree-plru", "caches.tex.ways", "power of two"},
      {"/caches/l1/latency_cycles", -3, "caches.l1.latency_cycles", "must be in"},
      {"/spaces/texture/path", Json::array({"l3"}), "spaces.texture.path[0]", "names no cache"},
      {"/spaces/l2/path", Json::array({"l1"}), "spaces.l2.path", "bypass"},
      {"/spaces/constant", nullptr, "spaces.constant", "missing"},
      {"/l2/size_bytes", 1048577, "l2.size_bytes", "segments"},
      {"/l2/segments", 0, "l2.segments", "must be in"},
      {"/l2/far_latency_cycles", Json::array({1, 2, 3}), "l2.far_latency_cycles",
       "3 latencies for 2 segments"},
      {"/l2/near_latency_cycles", Json::array({100, 0}), "l2.near_latency_cycles[1]", "must be in"},
      {"/l2/size_bytes", 1ull << 36, "l2.size_bytes", "must be in [1, 268435456]"},
      {"/l2/sm_segment", Json::array({0, 1}), "l2.sm_segment", "device.sm_count is 6"},
      {"/l2/sm_segment", Json::array({0, 1, 2, 0, 1, 0}), "l2.sm_segment[2]", "must be in"},
      {"/l2/sm_segment", "by_tpc", "l2.sm_segment", "by_gpc"},
      {"/dram", nullptr, "dram", "missing"},
      {"/noise/outlier_rate", 2, "noise.outlier_rate", "must be in"},
      {"/bandwidth/dram_read_gbps", 0, "bandwidth.dram_read_gbps", "must be in"},
      {"/sources", Json::array(), "sources", "at least one"},
      {"/timing/overhead_cycles", "lots", "timing.overhead_cycles", "number"},
  };
  for (const Mutation& m : mutations) {
    Json bad = toy;
    const Json::json_pointer at(m.pointer);
    if (m.value.is_null())
      bad[at.parent_pointer()].erase(at.back());
    else
      bad[at] = m.value;
    const std::string message = error_of(bad);
    EXPECT_NE(message.find(std::string("bad.json: ") + m.field + ":"), std::string::npos)
        << m.pointer << " -> " << message;
    EXPECT_NE(message.find(m.reason), std::string::npos) << m.pointer << " -> " << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
}

TEST(SimConfig, AnInstructionCacheLevelHoldsConstantsOnlyAsTheConstantL15) {
  const Json h100 = Json::parse(preset_text("h100-sxm"));
  Json small = h100;
  small["compute"]["instruction_caches"][0]["holds_constants"] = true;
  small["compute"]["instruction_caches"][1].erase("holds_constants");
  std::string message = error_of(small);
  EXPECT_NE(message.find("compute.instruction_caches[0].holds_constants: the level must be as "
                         "large as constant_l15 (131072 B)"),
            std::string::npos)
      << message;
  Json two = h100;
  two["compute"]["instruction_caches"][0]["holds_constants"] = true;
  message = error_of(two);
  EXPECT_NE(message.find("compute.instruction_caches[1].holds_constants: only one level can"),
            std::string::npos)
      << message;
}

// Configurations that would take hours or gigabytes are refused on the field that costs too much.
TEST(SimConfig, RejectsModelsTooCostlyToRun) {
  const Json toy = Json::parse(preset_text("toy"));
  Json bad = toy;
  bad["device"]["sm_count"] = 4096;
  EXPECT_NE(error_of(bad).find("device.sm_count: must be in [1, 320]"), std::string::npos)
      << error_of(bad);

  bad = toy;
  bad["l2"] = {{"size_bytes", 1ull << 36},
               {"ways", 256},
               {"line_bytes", 4096},
               {"near_latency_cycles", 200}};
  bad["device"]["global_memory_bytes"] = ~0ull;
  EXPECT_NE(error_of(bad).find("l2.size_bytes: must be in"), std::string::npos) << error_of(bad);

  bad = toy;
  for (int i = 0; i < 30; ++i)
    bad["caches"]["big" + std::to_string(i)] = {
        {"size_bytes", 1u << 28}, {"ways", 16}, {"line_bytes", 64}, {"latency_cycles", 30}};
  EXPECT_NE(error_of(bad).find("caches.big1: takes the model past"), std::string::npos)
      << error_of(bad);

  bad = toy;
  bad["caches"]["l1"] = {{"size_bytes", 1u << 26},
                         {"ways", 16},
                         {"line_bytes", 32},
                         {"latency_cycles", 30},
                         {"instances_per_sm", 64}};
  EXPECT_NE(error_of(bad).find("caches.l1: takes the model past"), std::string::npos)
      << error_of(bad);

  Json h100 = Json::parse(preset_text("h100-sxm"));
  h100["caches"]["l1"]["sets"] = 1u << 22;
  h100["caches"]["l1"]["line_bytes"] = 4;
  h100["caches"]["l1"].erase("sector_bytes");
  h100["caches"]["l1"].erase("fetch_bytes");
  h100["unified_l1_shared"]["total_bytes"] = 1u << 28;
  EXPECT_NE(error_of(h100).find("lines; the simulator models at most"), std::string::npos)
      << error_of(h100);
}

TEST(SimConfig, RejectsHostileTextWithOneLine) {
  const std::string toy = preset_text("toy");
  const auto message = [](const std::string& text) {
    try {
      parse_config(text, "bad.json");
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  const std::string deep = std::string(300000, '[') + std::string(300000, ']');
  EXPECT_EQ(message("{\"name\": " + deep + "}"),
            "bad.json: not valid JSON: nests deeper than 64 levels");
  std::string overflow = toy;
  overflow.replace(overflow.find("\"latency_cycles\": 20"), 20, "\"latency_cycles\": 1e400");
  EXPECT_NE(message(overflow).find("bad.json: not valid JSON:"), std::string::npos);
  EXPECT_NE(message(overflow).find("number overflow"), std::string::npos) << message(overflow);
  std::string control = toy;
  control.replace(control.find("\"far_latency_cycles\""), 20, "\"f\\r\\n_latency_cycles\"");
  EXPECT_EQ(message(control), "bad.json: l2.f\\r\\n_latency_cycles: unknown field");
}

TEST(SimConfig, RefusesFilesThatAreNotRegular) {
  const auto fifo =
      std::filesystem::temp_directory_path() / ("gputopo_sim_fifo_" + std::to_string(getpid()));
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  for (const std::string& file : {fifo.string(), std::string("/dev/zero")}) {
    try {
      load_config(file);
      ADD_FAILURE() << file << " loaded";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("not a regular file"), std::string::npos) << e.what();
    }
  }
  std::filesystem::remove(fifo);
}

TEST(SimConfig, RejectsBadCarveoutTables) {
  Json h100 = Json::parse(preset_text("h100-sxm"));
  Json bad = h100;
  bad["unified_l1_shared"]["carveout_shared_bytes"] = Json::array({Json::array({0, 8192})});
  EXPECT_NE(error_of(bad).find("last step must be for 100"), std::string::npos);
  bad = h100;
  bad["unified_l1_shared"]["carveout_shared_bytes"] =
      Json::array({Json::array({50, 8192}), Json::array({25, 9000}), Json::array({100, 9000})});
  EXPECT_NE(error_of(bad).find("ascend"), std::string::npos);
  bad = h100;
  bad["unified_l1_shared"]["carveout_shared_bytes"] = Json::array({Json::array({100, 262144})});
  EXPECT_NE(error_of(bad).find("less than one way"), std::string::npos);
  bad = h100;
  bad["unified_l1_shared"]["cache"] = "constant_l1";
  EXPECT_NE(error_of(bad).find("instead of size_bytes"), std::string::npos);
  bad = h100;
  bad.erase("unified_l1_shared");
  EXPECT_NE(error_of(bad).find("caches.l1: gives \"sets\""), std::string::npos) << error_of(bad);
}

TEST(SimConfig, NeverCrashesOnMangledText) {
  const std::string text = preset_text("odd-3seg");
  Rng rng(5);
  int rejected = 0;
  for (int i = 0; i < 300; ++i) {
    std::string mangled = text;
    const int edits = 1 + static_cast<int>(rng.below(4));
    for (int e = 0; e < edits; ++e) {
      const auto pos = rng.below(mangled.size());
      switch (rng.below(3)) {
        case 0:
          mangled[pos] = static_cast<char>(32 + rng.below(95));
          break;
        case 1:
          mangled.erase(pos, 1 + rng.below(20));
          break;
        default:
          mangled.resize(pos);
      }
    }
    try {
      parse_config(mangled, "mangled.json");
    } catch (const Error& e) {
      ++rejected;
      EXPECT_EQ(std::string(e.what()).rfind("mangled.json: ", 0), 0u) << e.what();
    }
  }
  EXPECT_GT(rejected, 200);
}

TEST(SimConfig, RejectsNonJsonAndNonObjects) {
  EXPECT_NE(error_of(Json::array({1, 2})).find("must be an object"), std::string::npos);
  try {
    parse_config("{ not json", "x.json");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("x.json: not valid JSON"), std::string::npos);
  }
}

}  // namespace
}  // namespace gputopo::device::sim
