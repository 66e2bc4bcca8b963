#include "fleet/compare.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "analysis/summary.hpp"

namespace gputopo::fleet {
namespace {

using model::Json;

// Each attribute's values, one a member (null where the member's report lacks it), in the order
// the attributes first appear; its unit is the first report's.
struct Column {
  std::string path;
  std::string unit;
  std::vector<const Value*> values;
  std::size_t present = 0;  // members whose report has it
};

std::vector<Column> columns_of(const std::vector<Member>& members) {
  std::vector<Column> columns;
  std::map<std::string, std::size_t, std::less<>> index;
  for (std::size_t m = 0; m < members.size(); ++m)
    for (const Value& v : members[m].values) {
      auto [it, added] = index.try_emplace(v.path, columns.size());
      if (added)
        columns.push_back({v.path, v.unit, std::vector<const Value*>(members.size(), nullptr)});
      columns[it->second].values[m] = &v;
      ++columns[it->second].present;
    }
  return columns;
}

bool established(const Value* v) { return v != nullptr && !v->value.is_null(); }

// Numbers that a measurement gave, or that were derived (from measurements, mostly): they vary
// from run to run, unlike the driver's.
bool measured_numbers(const Column& c) {
  bool measured = false;
  for (const Value* v : c.values) {
    if (!established(v)) continue;
    if (!v->value.is_number()) return false;
    measured = measured || v->source == "measured" || v->source == "derived";
  }
  return measured;
}

// The most common established value; of equally common ones the first.
Json most_common(const Column& c) {
  Json best;
  std::size_t best_count = 0;
  for (const Value* v : c.values) {
    if (!established(v)) continue;
    const auto count = static_cast<std::size_t>(
        std::count_if(c.values.begin(), c.values.end(),
                      [&](const Value* w) { return established(w) && w->value == v->value; }));
    if (count > best_count) {
      best = v->value;
      best_count = count;
    }
  }
  return best;
}

// The consensus and how it was chosen; null where most GPUs that report the attribute did not
// establish it.
std::pair<Json, std::string> consensus_of(const Column& c, bool numbers) {
  if (c.values.size() == 2)
    return {established(c.values[0]) ? c.values[0]->value : Json(), "reference"};
  const auto have =
      static_cast<std::size_t>(std::count_if(c.values.begin(), c.values.end(), established));
  if (2 * have <= c.present) return {Json(), ""};
  if (!numbers) return {most_common(c), "most common"};
  std::vector<double> x;
  for (const Value* v : c.values)
    if (established(v)) x.push_back(v->value.get<double>());
  return {analysis::median(x), "median"};
}

std::optional<Deviation> deviation(const Value* v, const Json& consensus, bool numbers,
                                   double tolerance) {
  // A report without the attribute did not try it (a run with --only, an older version).
  if (v == nullptr) return std::nullopt;
  Deviation d{"", v->value, std::nullopt, v->interval, v->reason};
  if (consensus.is_null()) {
    if (!established(v)) return std::nullopt;
    d.reason = "the reference did not establish it";
    return d;
  }
  if (!established(v)) return d;
  if (!numbers) {
    if (v->value.is_number() && consensus.is_number()
            ? v->value.get<double>() == consensus.get<double>()
            : v->value == consensus)
      return std::nullopt;
    if (v->value.is_number() && consensus.is_number() && consensus.get<double>() != 0)
      d.relative = v->value.get<double>() / std::abs(consensus.get<double>()) -
                   consensus.get<double>() / std::abs(consensus.get<double>());
    return d;
  }
  const double x = v->value.get<double>();
  const double c = consensus.get<double>();
  // x / |c| - c / |c| rather than (x - c) / |c|, which overflows for values near the double range.
  const double relative = c != 0 ? x / std::abs(c) - c / std::abs(c) : (x == 0 ? 0.0 : 1.0);
  const bool inside = v->interval && c >= v->interval->first && c <= v->interval->second;
  if (std::abs(relative) <= tolerance || inside) return std::nullopt;
  d.relative = relative;
  return d;
}

}  // namespace

Comparison compare(const std::vector<Member>& members, const CompareOptions& options) {
  Comparison out;
  out.tolerance = options.tolerance;
  for (const Member& m : members) out.members.push_back(m.name);
  std::vector<std::size_t> counts(members.size(), 0);
  for (const Column& c : columns_of(members)) {
    if (c.present < 2) continue;
    ++out.compared;
    const bool numbers = measured_numbers(c);
    auto [consensus, basis] = consensus_of(c, numbers);
    if (basis.empty()) continue;  // most GPUs did not establish it: nothing to differ from
    Difference diff;
    const std::size_t first = c.values.size() == 2 ? 1 : 0;
    for (std::size_t m = first; m < c.values.size(); ++m)
      if (auto d = deviation(c.values[m], consensus, numbers, options.tolerance)) {
        d->member = members[m].name;
        diff.members.push_back(std::move(*d));
        ++counts[m];
      }
    if (diff.members.empty()) continue;
    diff.path = c.path;
    diff.unit = c.unit;
    diff.consensus = consensus;
    diff.basis = basis;
    out.differences.push_back(std::move(diff));
  }
  for (std::size_t m = 0; m < members.size(); ++m)
    if (counts[m] > 0) out.outliers.push_back({members[m].name, counts[m]});
  std::stable_sort(
      out.outliers.begin(), out.outliers.end(),
      [](const Outlier& a, const Outlier& b) { return a.differences > b.differences; });
  return out;
}

}  // namespace gputopo::fleet
