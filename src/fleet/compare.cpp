#include "fleet/compare.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <string_view>
#include <unordered_map>

#include "fleet/uncertainty.hpp"

namespace gputopo::fleet {
namespace {

using model::Json;

// One attribute's values: the members whose report has it, in member order; its unit is the
// first report's.
struct Column {
  std::string_view path;
  std::string_view unit;
  std::vector<std::pair<std::size_t, const Value*>> entries;
};

std::vector<Column> columns_of(const std::vector<Member>& members) {
  std::vector<Column> columns;
  std::unordered_map<std::string_view, std::size_t> index;
  for (std::size_t m = 0; m < members.size(); ++m)
    for (const Value& v : members[m].values) {
      auto [it, added] = index.try_emplace(v.path, columns.size());
      if (added) columns.push_back({v.path, v.unit, {}});
      columns[it->second].entries.emplace_back(m, &v);
    }
  return columns;
}

// Numbers that a measurement gave, or that were derived (from measurements, mostly): they vary
// from run to run, unlike the driver's.
bool measured_numbers(const Column& c) {
  bool measured = false;
  for (const auto& [m, v] : c.entries) {
    if (v->value.is_null()) continue;
    if (!v->value.is_number()) return false;
    measured = measured || v->source == "measured" || v->source == "derived";
  }
  return measured;
}

// What a member is compared with: the consensus value, and for numbers the standard deviations
// that make up the scale; for anything else the values that agree.
struct Consensus {
  Json value;
  std::string basis;
  bool numbers = false;
  double fleet_sd = 0;               // the spread between the GPUs (3 or more)
  double median_sd = 0;              // the median's own
  const Value* reference = nullptr;  // two GPUs: the first, whose own sd faces the member's value
  std::vector<Json> agreeing;
};

// The most common established value; of equally common ones the first.
Json most_common(const Column& c) {
  std::map<Json, std::pair<std::size_t, std::size_t>> counts;  // value -> (count, first entry)
  for (std::size_t i = 0; i < c.entries.size(); ++i)
    if (established(c.entries[i].second))
      ++counts.try_emplace(c.entries[i].second->value, 0, i).first->second.first;
  Json best;
  std::pair<std::size_t, std::size_t> best_count{0, 0};
  for (const auto& [value, count] : counts)
    if (count.first > best_count.first ||
        (count.first == best_count.first && count.second < best_count.second)) {
      best = value;
      best_count = count;
    }
  return best;
}

std::optional<Consensus> fleet_consensus(const Column& c, bool numbers) {
  std::vector<double> x;
  std::size_t have = 0;
  for (const auto& [m, v] : c.entries)
    if (established(v)) {
      ++have;
      if (numbers) x.push_back(v->value.get<double>());
    }
  if (2 * have <= c.entries.size()) return std::nullopt;
  if (!numbers) {
    Json common = most_common(c);
    return Consensus{common, "most common", false, 0, 0, nullptr, {common}};
  }
  std::sort(x.begin(), x.end());
  const std::size_t n = x.size();
  const double median = n % 2 == 1 ? x[n / 2] : 0.5 * (x[n / 2 - 1] + x[n / 2]);
  std::vector<double> own;
  for (const auto& [m, v] : c.entries)
    if (established(v)) own.push_back(own_sd(*v, median));
  return Consensus{median, "median", true, fleet_sd(x), median_sd(own), nullptr, {}};
}

std::optional<Consensus> reference_consensus(const Column& c, bool numbers) {
  const Value* ref = c.entries.front().first == 0 ? c.entries.front().second : nullptr;
  if (!established(ref)) return std::nullopt;
  Consensus out{ref->value, "reference", numbers, 0, 0, ref, {ref->value}};
  if (ref->spread && !numbers)
    out.agreeing.insert(out.agreeing.end(), ref->spread->values.begin(), ref->spread->values.end());
  return out;
}

std::optional<double> relative_of(const Json& value, const Json& consensus) {
  if (!value.is_number() || !consensus.is_number()) return std::nullopt;
  const double x = value.get<double>();
  const double c = consensus.get<double>();
  // x / |c| - c / |c| rather than (x - c) / |c|, which overflows for values near the double range.
  return c != 0 ? x / std::abs(c) - c / std::abs(c) : (x == 0 ? 0.0 : 1.0);
}

// How far x lies from what the consensus allows without noise: a reference's runs spanned a
// range, any of which a healthy GPU may give; else its value.
double distance(double x, const Consensus& c) {
  const Value* ref = c.reference;
  if (ref && ref->spread && ref->spread->range)
    return std::max({0.0, ref->spread->range->first - x, x - ref->spread->range->second});
  return std::abs(x - c.value.get<double>());
}

std::optional<Deviation> judge(const Value& v, const Consensus& c, const CompareOptions& o,
                               double healthy_sd) {
  // A value not established on both sides does not differ: its report says why.
  if (!established(&v)) return std::nullopt;
  Deviation d{"", v.value, std::nullopt, std::nullopt, v.interval};
  if (!c.numbers) {
    for (const Json& a : c.agreeing)
      if (a == v.value) return std::nullopt;
    d.relative = relative_of(v.value, c.value);
    return d;
  }
  const double x = v.value.get<double>();
  const double m = c.value.get<double>();
  const double consensus_sd = c.reference ? own_sd(*c.reference, x) : c.median_sd;
  // The fleet's spread already holds each GPU's run-to-run noise: the larger of the two counts.
  const double scale = std::hypot(std::max({c.fleet_sd, own_sd(v, m), healthy_sd}), consensus_sd);
  const double relative = *relative_of(v.value, c.value);
  if (!(distance(x, c) > o.threshold * scale) || !(std::abs(relative) > o.tolerance))
    return std::nullopt;
  d.relative = relative;
  d.scale = scale;
  return d;
}

}  // namespace

Comparison compare(const std::vector<Member>& members, const CompareOptions& options) {
  Comparison out;
  out.tolerance = options.tolerance;
  out.threshold = options.threshold;
  for (const Member& m : members) out.members.push_back(m.name);
  std::map<std::string_view, double> healthy;  // path -> sigma of the model's healthy runs
  if (options.healthy) {
    out.healthy = options.healthy->name;
    for (const Value& v : options.healthy->values)
      if (v.spread) healthy.emplace(v.path, v.spread->sigma);
  }
  std::vector<std::size_t> counts(members.size(), 0);
  for (const Column& c : columns_of(members)) {
    if (c.entries.size() < 2) continue;
    ++out.compared;
    const bool numbers = measured_numbers(c);
    const auto consensus =
        members.size() == 2 ? reference_consensus(c, numbers) : fleet_consensus(c, numbers);
    if (!consensus) continue;  // most GPUs did not establish it: nothing to differ from
    Difference diff{
        std::string(c.path), std::string(c.unit), consensus->value, consensus->basis, {}};
    for (const auto& [m, v] : c.entries) {
      if (consensus->reference == v) continue;
      const auto h = healthy.find(c.path);
      if (auto d = judge(*v, *consensus, options, h == healthy.end() ? 0.0 : h->second)) {
        d->member = members[m].name;
        diff.members.push_back(std::move(*d));
        ++counts[m];
      }
    }
    if (!diff.members.empty()) out.differences.push_back(std::move(diff));
  }
  for (std::size_t m = 0; m < members.size(); ++m)
    if (counts[m] > 0) out.outliers.push_back({members[m].name, counts[m]});
  std::stable_sort(
      out.outliers.begin(), out.outliers.end(),
      [](const Outlier& a, const Outlier& b) { return a.differences > b.differences; });
  return out;
}

}  // namespace gputopo::fleet
