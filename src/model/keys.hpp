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

// A family of keys, one per member (a compute op): "ffmaLatency" is member "ffma" of the family
// with suffix "Latency". Each member is a key of its own in the catalogue (keys.def).
struct KeyFamily {
  std::string_view suffix;
  std::string_view description;
};

// A report key: its name, unit and meaning, declared once in keys.def.
struct Key {
  std::string_view name;         // the report key, e.g. "segmentSize"
  std::string_view unit;         // "B", "cycles", "ns", "GB/s", "B/clk", "%", "MHz", "bit" or ""
  std::string_view elements;     // which elements carry it, e.g. "l2" or "caches"
  std::string_view description;  // what it is, in a line
  const KeyFamily* family = nullptr;  // the family a compute op's key belongs to

  std::string str() const { return std::string(name); }
  // A family member's op, e.g. "ffma" for ffmaLatency; "" for a key of no family.
  std::string_view member() const {
    return family ? name.substr(0, name.size() - family->suffix.size()) : std::string_view{};
  }
};

namespace keys {
// The families of the compute ops' keys.
inline constexpr KeyFamily opLatency{"Latency", "cycles per instruction of a dependent chain"};
inline constexpr KeyFamily opThroughput{"Throughput", "thread instructions per clock per SM"};
inline constexpr KeyFamily opPerClkPerSm{"PerClkPerSm", "tensor-core operations per clock per SM"};
inline constexpr KeyFamily opTflops{"Tflops",
                                    "tensor-core TFLOP/s (TOPS) of the GPU at the measured clock"};

#define GPUTOPO_KEY(id, unit, elements, description) \
  inline constexpr Key id{#id, unit, elements, description};
#define GPUTOPO_OP_KEY(id, family, unit) \
  inline constexpr Key id{#id, unit, "compute", family.description, &family};
#include "model/keys.def"
#undef GPUTOPO_KEY
#undef GPUTOPO_OP_KEY
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
