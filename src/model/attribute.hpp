#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gputopo::model {

// Reports keep insertion order so that they read in a sensible order.
using Json = nlohmann::ordered_json;

// Where a value came from. See docs/schema.md.
enum class Source {
  Api,       // the driver said so (CUDA runtime, NVML, or the simulated driver)
  Measured,  // a microbenchmark found it
  Derived,   // computed from other values
  Table,     // looked up in a table keyed by architecture (e.g. cores per SM)
};

std::string_view to_string(Source s);

struct Interval {
  double lo = 0;
  double hi = 0;
};

// One reported value, whatever its origin. A value that could not be obtained keeps its key, a null
// value and the reason, so that a reader can tell "absent" from "zero".
struct Attribute {
  Json value;        // number, string, bool, or null when not available
  std::string unit;  // "B", "cycles", "ns", "MHz", "GB/s", "%", "" for plain counts and names
  Source source = Source::Api;
  std::string method;                // how a measured or derived value was obtained
  std::optional<double> confidence;  // in [0, 1]; measured and derived values only
  std::optional<Interval> interval;  // sizes and boundaries
  std::string reason;                // why the value is not available, or what limits it
  Json evidence;                     // optional extra detail (statistics, per-view values)

  bool available() const { return !value.is_null(); }

  static Attribute api(Json v, std::string unit = {});
  static Attribute table(Json v, std::string unit, std::string method);
  static Attribute unavailable(Source s, std::string unit, std::string reason);
  static Attribute measured(Json v, std::string unit, std::string method, double confidence);
};

// An ordered group of attributes (insertion order is report order).
using AttributeList = std::vector<std::pair<std::string, Attribute>>;

const Attribute* find(const AttributeList& list, std::string_view key);

// Adds `from` to `into`: an attribute whose key `into` already has replaces it in place, others
// are appended in their order.
void merge(AttributeList& into, const AttributeList& from);

Json to_json(const Attribute& a);
Json to_json(const AttributeList& list);

}  // namespace gputopo::model
