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

// Where 95 % of repeat runs of the probe on this GPU would put the value, widened by the
// estimator's resolution (docs/schema.md, "Intervals"). A bound may be infinite (open).
struct Interval {
  double lo = 0;
  double hi = 0;
};

// An interval times `factor`, for a value derived by scaling a measured one.
std::optional<Interval> scaled(const std::optional<Interval>& i, double factor);
// The interval of a - b, for a value derived as the difference of two measured ones.
std::optional<Interval> difference(const std::optional<Interval>& a,
                                   const std::optional<Interval>& b);

// The precision a measured size claims at full confidence (docs/methods.md, "Intervals").
inline constexpr double kSizePrecision = 0.01;
// The share of `i` within `relative` x |value| of `value`: a confidence times it claims no more
// precision than the interval allows.
double precision_share(const Interval& i, double value, double relative);

// One reported value, whatever its origin. A value that could not be obtained keeps its key, a null
// value and the reason, so that a reader can tell "absent" from "zero".
struct Attribute {
  Json value;        // number, string, bool, or null when not available
  std::string unit;  // "B", "cycles", "ns", "MHz", "GB/s", "%", "" for plain counts and names
  Source source = Source::Api;
  std::string method;                // how a measured or derived value was obtained
  std::optional<double> confidence;  // in [0, 1]; measured and derived values only
  std::optional<Interval> interval;  // measured and derived numbers: see Interval
  std::string no_interval;           // a measured or derived number without one: why
  std::string reason;                // why the value is not available, or what limits it
  std::optional<int> samples;        // the repeat measurements a value summarises (host links)
  Json evidence;                     // optional extra detail (statistics, per-view values)

  bool available() const { return !value.is_null(); }
  // A measured or derived number: it carries an interval or says in no_interval why not.
  bool needs_interval() const;

  static Attribute api(Json v, std::string unit = {});
  static Attribute table(Json v, std::string unit, std::string method);
  static Attribute unavailable(Source s, std::string unit, std::string reason);
  static Attribute measured(Json v, std::string unit, std::string method, double confidence);
};

// What a discrete number (a count, a flag, a size picked among candidates) says in place of an
// interval, and what a continuous one says when its probe gave neither interval nor reason.
inline constexpr std::string_view kDiscreteNoInterval =
    "a discrete value picked among candidates: its confidence is the probability that it is right";
inline constexpr std::string_view kExactNoInterval =
    "derived from the driver's values by a formula: exact";
inline constexpr std::string_view kNoIntervalGiven = "the probe states no interval for this value";
// Counts, sizes, flags and names (unit "", "B" or "bit"): a wrong one is a wrong structure.
bool discrete(const Attribute& a);
// Gives a measured or derived number that has neither interval nor no_interval its reason: a
// discrete one kDiscreteNoInterval; a continuous one kNoIntervalGiven, or, with `strict`, a
// std::logic_error naming `key`.
void settle_interval(Attribute& a, std::string_view key, bool strict);

// An ordered group of attributes (insertion order is report order).
using AttributeList = std::vector<std::pair<std::string, Attribute>>;

const Attribute* find(const AttributeList& list, std::string_view key);

// Adds `from` to `into`: an attribute whose key `into` already has replaces it in place, others
// are appended in their order.
void merge(AttributeList& into, const AttributeList& from);

Json to_json(const Attribute& a);
Json to_json(const AttributeList& list);

}  // namespace gputopo::model
