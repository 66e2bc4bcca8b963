#include "model/device_facts.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <set>
#include <string>

namespace gputopo::model {
namespace {

// The keys of the docs/schema.md table that begins with `heading` (first column, backquoted).
std::set<std::string> documented_keys(const std::string& heading) {
  std::ifstream in(GPUTOPO_SCHEMA_DOC);
  std::set<std::string> out;
  bool in_section = false;
  bool in_table = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("## ", 0) == 0) {
      if (in_table) break;
      in_section = line == heading;
      continue;
    }
    if (!in_section) continue;
    if (line.rfind("| Key |", 0) == 0) {
      in_table = true;
      continue;
    }
    if (in_table && line.rfind("|", 0) != 0) break;
    if (!in_table || line.rfind("|---", 0) == 0) continue;
    const std::string first = line.substr(1, line.find('|', 1) - 1);
    static const std::regex key("`([A-Za-z0-9]+)`");
    for (std::sregex_iterator it(first.begin(), first.end(), key), end; it != end; ++it)
      out.insert((*it)[1]);
  }
  return out;
}

const Attribute* in(const AttributeList& list, std::string_view key) { return find(list, key); }

DeviceInfo nvidia(int major, int minor) {
  DeviceInfo d;
  d.name = "GPU";
  d.compute_capability = ComputeCapability{major, minor};
  d.sm_count = 132;
  return d;
}

TEST(DeviceFacts, TheSchemaDocumentListsEveryDeviceKeyAndNoOther) {
  const auto general = documented_keys("## `device` (general)");
  const auto compute = documented_keys("## `compute`");
  ASSERT_FALSE(general.empty());
  ASSERT_FALSE(compute.empty());
  std::set<std::string> table_general;
  for (const DeviceKey& k : device_keys()) {
    const auto& documented = k.section == Section::General ? general : compute;
    EXPECT_TRUE(documented.count(std::string(k.name))) << k.name << " not in docs/schema.md";
    if (k.section == Section::General) table_general.insert(std::string(k.name));
  }
  for (const auto& name : general) EXPECT_TRUE(table_general.count(name)) << name << " not a key";
}

TEST(DeviceFacts, KeysAreUniqueAndSectionsKeepTheTableOrder) {
  std::set<std::string_view> seen;
  for (const DeviceKey& k : device_keys()) EXPECT_TRUE(seen.insert(k.name).second) << k.name;
  const DeviceSections s = device_sections(nvidia(9, 0));
  ASSERT_GE(s.general.size(), 3u);
  EXPECT_EQ(s.general[0].first, "vendor");
  EXPECT_EQ(s.general[1].first, "name");
  EXPECT_EQ(s.general[2].first, "architecture");
}

TEST(DeviceFacts, NvidiaArchitectureAndCoresComeFromTheCapabilityTable) {
  const DeviceSections s = device_sections(nvidia(9, 0));
  const Attribute* arch = in(s.general, "architecture");
  ASSERT_NE(arch, nullptr);
  EXPECT_EQ(arch->value, "Hopper");
  EXPECT_EQ(arch->source, Source::Table);
  const Attribute* cores = in(s.compute, "cores");
  ASSERT_NE(cores, nullptr);
  EXPECT_EQ(cores->value, 132 * 128);
  EXPECT_EQ(cores->source, Source::Derived);
}

TEST(DeviceFacts, AnUnknownCapabilitySaysSoInsteadOfGuessing) {
  const DeviceSections s = device_sections(nvidia(42, 0));
  for (const char* key : {"coresPerSm", "cores"}) {
    const Attribute* a = in(s.compute, key);
    ASSERT_NE(a, nullptr) << key;
    EXPECT_FALSE(a->available()) << key;
    EXPECT_NE(a->reason.find("42.0"), std::string::npos) << a->reason;
  }
}

TEST(DeviceFacts, OtherVendorsGetNoNvidiaTableValues) {
  DeviceInfo amd = nvidia(9, 0);
  amd.vendor = "AMD";
  amd.architecture = "gfx90a";
  amd.xcd_count = 4;
  amd.sm_count = 304;
  const DeviceSections s = device_sections(amd);
  EXPECT_EQ(in(s.general, "architecture")->value, "gfx90a");
  EXPECT_EQ(in(s.compute, "coresPerSm"), nullptr);
  EXPECT_EQ(in(s.compute, "cores"), nullptr);
  EXPECT_EQ(in(s.compute, "cusPerXcd")->value, 76);
}

TEST(DeviceFacts, EmptyFactsAreLeftOutAndMissingOnesKeepTheirReason) {
  DeviceInfo d = nvidia(9, 0);
  d.uuid = Fact<std::string>::none("NVML not loaded", "nvmlDeviceGetUUID");
  const DeviceSections s = device_sections(d);
  EXPECT_EQ(in(s.general, "pciBusId"), nullptr);
  EXPECT_EQ(in(s.general, "simulated"), nullptr);
  const Attribute* uuid = in(s.general, "uuid");
  ASSERT_NE(uuid, nullptr);
  EXPECT_FALSE(uuid->available());
  EXPECT_EQ(uuid->reason, "NVML not loaded");
  EXPECT_EQ(uuid->method, "nvmlDeviceGetUUID");
}

TEST(DeviceFacts, ValuesReadTheWayTheReportWritesThem) {
  DeviceInfo d = nvidia(9, 0);
  d.mig_enabled = true;
  d.sm_clock_max_mhz = 1980.0;
  d.mem_clock_max_mhz = 1215.5;
  d.max_block_dim = std::array<int, 3>{1024, 1024, 64};
  const DeviceSections s = device_sections(d);
  EXPECT_EQ(in(s.general, "migMode")->value, "enabled");
  EXPECT_EQ(in(s.general, "smClockMax")->value.dump(), "1980");
  EXPECT_EQ(in(s.general, "memoryClockMax")->value.dump(), "1215.5");
  EXPECT_EQ(in(s.general, "computeCapability")->value, "9.0");
  EXPECT_EQ(in(s.compute, "maxBlockDim")->value, Json::array({1024, 1024, 64}));
}

TEST(DeviceFacts, ReadingTheSectionsBackGivesTheSameFacts) {
  DeviceInfo d = nvidia(8, 6);
  d.mig_enabled = false;
  d.mem_clock_max_mhz = 1215.5;
  d.l2_bytes = 6ull << 20;
  d.max_grid_dim = std::array<int, 3>{2147483647, 65535, 65535};
  d.ecc = Fact<bool>::none("no answer", "cudaDevAttrEccEnabled");
  const DeviceSections s = device_sections(d);
  DeviceInfo back;
  EXPECT_EQ(read_device_sections(s.general, s.compute, back), "");
  EXPECT_EQ(back.compute_capability().minor, 6);
  EXPECT_FALSE(back.mig_enabled());
  EXPECT_TRUE(back.mig_enabled.known());
  EXPECT_EQ(back.mem_clock_max_mhz(), 1215.5);
  EXPECT_EQ(back.l2_bytes(), 6ull << 20);
  EXPECT_EQ(back.ecc.missing, "no answer");
  const DeviceSections again = device_sections(back);
  EXPECT_EQ(to_json(again.general), to_json(s.general));
  EXPECT_EQ(to_json(again.compute), to_json(s.compute));
}

TEST(DeviceFacts, AValueOfTheWrongTypeIsNamed) {
  AttributeList compute{{"smCount", Attribute::api("many")}};
  DeviceInfo d;
  EXPECT_EQ(read_device_sections({}, compute, d),
            "compute.smCount: the value \"many\" is of the wrong type");
}

}  // namespace
}  // namespace gputopo::model
