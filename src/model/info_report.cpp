#include "model/info_report.hpp"

#include <array>
#include <cstdint>
#include <string_view>

#include "model/device_facts.hpp"
#include "model/dram_peak.hpp"
#include "model/keys.hpp"
#include "model/vendor.hpp"

namespace gputopo::model {
namespace {

enum class Group { General, Compute };

// Where each API size of the memory section comes from.
struct MemoryFromApi {
  std::string_view element;
  const Key* key;
  Group group;
  std::string_view source_key;
};

constexpr std::array<MemoryFromApi, 8> kMemoryFromApi{{
    {"l2", &keys::apiSize, Group::Compute, "l2Size"},
    {"l2", &keys::persistingMax, Group::Compute, "l2PersistingMax"},
    {"shared", &keys::apiSize, Group::Compute, "sharedMemoryPerSm"},
    {"shared", &keys::perBlockOptin, Group::Compute, "sharedMemoryPerBlockOptin"},
    {"dram", &keys::size, Group::General, "memorySize"},
    {"dram", &keys::busWidth, Group::General, "memoryBusWidth"},
    {"dram", &keys::clock, Group::General, "memoryClockMax"},
    {"mall", &keys::apiSize, Group::Compute, "mallSize"},
}};

Element& element(std::vector<Element>& memory, std::string_view key) {
  for (auto& e : memory)
    if (e.key == key) return e;
  memory.push_back({std::string(key), {}});
  return memory.back();
}

// Theoretical peak from the API's double-data-rate memory clock and bus width.
Attribute peak_bandwidth(const AttributeList& dram) {
  const Attribute* clock = find(dram, keys::clock.str());
  const Attribute* width = find(dram, keys::busWidth.str());
  if (clock == nullptr || width == nullptr || !clock->value.is_number() ||
      !width->value.is_number())
    return Attribute::unavailable(Source::Derived, "GB/s",
                                  "needs the memory clock and bus width from the API");
  Attribute a = Attribute::api(
      peak_dram_gbps(clock->value.get<double>(), width->value.get<double>()), "GB/s");
  a.source = Source::Derived;
  a.method = "2 * dram.clock * dram.busWidth / 8";
  a.no_interval = kExactNoInterval;
  return a;
}
}  // namespace

Report make_info_report(const DeviceInfo& info) {
  Report r;
  r.simulated = info.simulated;
  DeviceSections sections = device_sections(info);
  r.device = std::move(sections.general);
  r.compute = std::move(sections.compute);
  for (const auto& m : kMemoryFromApi) {
    const AttributeList& group = m.group == Group::General ? r.device : r.compute;
    const std::string_view name =
        m.element == "shared" ? shared_memory_element(info) : std::string_view(m.element);
    if (const Attribute* a = find(group, m.source_key); a != nullptr)
      element(r.memory, name).attributes.emplace_back(m.key->str(), *a);
  }
  for (auto& e : r.memory)
    if (e.key == "dram")
      e.attributes.emplace_back(keys::peakBandwidth.str(), peak_bandwidth(e.attributes));
  return r;
}

}  // namespace gputopo::model
