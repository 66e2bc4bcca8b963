#include <algorithm>
#include <string>

#include "discovery/context.hpp"
#include "discovery/measure.hpp"
#include "discovery/probes/geometry/hit_classifier.hpp"
#include "discovery/registry.hpp"
#include "model/vendor.hpp"

namespace gputopo::discovery {
namespace {

// One stride of the first segment's profile: the lines it kept, and whether the search stopped
// at its bound (then one line more was never seen to overflow).
struct StrideCount {
  std::uint64_t stride = 0;
  std::uint64_t lines = 0;
  bool bounded = false;
};

std::vector<StrideCount> profile_of(const model::Json& lines_at_stride) {
  std::vector<StrideCount> out;
  for (const auto& [stride, count] : lines_at_stride.items()) {
    StrideCount s;
    s.stride = std::stoull(stride);
    if (count.is_string()) {
      s.bounded = true;
      s.lines = std::stoull(count.get<std::string>().substr(2));  // ">=N"
    } else {
      s.lines = count.get<std::uint64_t>();
    }
    if (s.lines >= 2) out.push_back(s);
  }
  return out;
}

// Lines past a stride's count that the other segment must overflow by: at small strides a hashed
// index spreads the lines over many sets, and the first line past the count overflows one set by
// one line, an edge that the hash's placement of one array moves by a line or two; an index that
// differs moves the count by a factor.
std::uint64_t edge_slack(std::uint64_t lines) { return std::max<std::uint64_t>(1, lines / 8); }
// The count the other segment must keep: the slack below the edge, where that leaves two lines.
std::uint64_t inside(std::uint64_t lines) {
  return lines > edge_slack(lines) + 1 ? lines - edge_slack(lines) + 1 : lines;
}

// Whether the L2's segments index addresses alike: the capacity at each power-of-two stride that
// the set-geometry search found through SM 0's segment (l2.indexFunction's linesAtStride), chased
// again from an SM of each other segment (compute.nearL2Segments): the count less an eighth (but
// one) must fit there and, where the search found its edge, an eighth more lines (at least one)
// must overflow, or else three eighths more (an edge that the placement of the lines moved). One
// stride alone that still differs is a fragile edge, not a different index: "false" then claims
// less than even odds.
class SegmentHashProbe final : public Probe {
 public:
  SegmentHashProbe() : Probe("l2.segmentHash", {"l2"}) {
    declare({{"l2", &keys::indexFunction}, compute(keys::nearL2Segments)},
            {{"l2", &keys::segmentsHashAlike}});
  }

  void run(Context& ctx) override {
    if (ctx.options().depth == Depth::Quick)
      return fail(ctx, "not established: needs --depth full (docs/discovery.md, geometry)");
    const auto* near = ctx.get_compute(keys::nearL2Segments);
    if (!near || !near->available() || !near->evidence.contains("groups"))
      return fail(ctx, "needs the segment each SM loads through: " +
                           (near ? near->reason : std::string("compute.nearL2Segments not run")));
    const auto& groups = near->evidence["groups"];
    if (groups.size() < 2) return fail(ctx, "the SMs load through a single segment");
    const auto* index = ctx.get("l2", keys::indexFunction);
    if (!index || !index->evidence.is_object() || !index->evidence.contains("linesAtStride") ||
        !index->evidence.contains("hitMiss"))
      return fail(ctx, "needs the L2's stride profile: " +
                           (index ? index->reason : std::string("l2.geometry not run")));
    const auto profile = profile_of(index->evidence["linesAtStride"]);
    HitClassifier c;
    c.threshold = index->evidence["hitMiss"].value("threshold", 0.0);
    c.outlier_rate = index->evidence["hitMiss"].value(
        "slowHitShareBound", index->evidence["hitMiss"].value("slowHitShare", 0.0));
    model::Json checked = model::Json::array();
    std::size_t differing = 0;   // the most strides one segment differs at
    bool count_differs = false;  // a count less its slack overflowed somewhere
    for (std::size_t g = 1; g < groups.size(); ++g) {
      const int sm = groups[g][0].get<int>();
      const auto d = compare(ctx, profile, c, sm);
      differing = std::max(differing, d.strides.size());
      count_differs = count_differs || d.strides.size() > d.without_edge.size();
      checked.push_back({{"segment", g},
                         {"sm", sm},
                         {"stridesThatDiffer", d.strides},
                         {"stridesWithoutEdge", d.without_edge},
                         {"edgesSettled", d.settled},
                         {"overflowsNotRepeated", d.not_repeated}});
    }
    // One stride whose count fits but whose edge moved is a fragile edge, not another index
    // (which moves the count at most strides): the segments read alike, with less confidence.
    const bool alike = differing == 0 || (differing == 1 && !count_differs);
    const double confidence = alike ? (differing == 0 ? 0.9 : 0.5) : (differing >= 2 ? 0.8 : 0.4);
    auto a = model::Attribute::measured(
        alike, "",
        "the line count SM 0's segment kept at each stride (l2.indexFunction's linesAtStride) "
        "chased from an SM of each other segment: an eighth less (but one) fits there and, where "
        "the search found its edge, an eighth more (at least one line) overflows, else three "
        "eighths more; a count that overflows must do so again in one of two more chases; one "
        "stride whose edge alone differs does not make the segments differ",
        confidence);
    a.evidence = {{"checked", checked}, {"strides", profile.size()}};
    if (differing == 1)
      a.reason = "one stride differs: a single edge that the placement of the lines can move";
    ctx.put("l2", keys::segmentsHashAlike, a);
  }

 private:
  struct Difference {
    model::Json strides = model::Json::array();       // where the count or the edge differs
    model::Json without_edge = model::Json::array();  // where only the edge does
    model::Json settled = model::Json::array();       // edges that overflowed three eighths past
    model::Json not_repeated = model::Json::array();  // counts that overflowed once only
  };

  // The profile chased from `sm`: the strides where that segment differs.
  static Difference compare(Context& ctx, const std::vector<StrideCount>& profile,
                            const HitClassifier& c, int sm) {
    device::ChaseBatch batch;
    for (const auto& s : profile) {
      batch.requests.push_back(placed(inside(s.lines), s.stride, sm));
      if (!s.bounded) batch.requests.push_back(placed(s.lines + edge_slack(s.lines), s.stride, sm));
    }
    ctx.expect_batches(1);
    const auto result = ctx.chase(batch);
    std::size_t k = 0;
    Difference d;
    std::vector<StrideCount> fragile, unfit;
    for (const auto& s : profile) {
      const bool fits = !overflowed(result.results[k++], inside(s.lines), c);
      const bool edge =
          s.bounded || overflowed(result.results[k++], s.lines + edge_slack(s.lines), c);
      if (!fits) unfit.push_back(s);
      if (fits && !edge) fragile.push_back(s);
    }
    confirm_overflows(ctx, unfit, c, sm, d);
    settle_edges(ctx, fragile, c, sm, d);
    return d;
  }

  // A count that overflowed is chased twice more: a different index overflows it every time, a
  // slow hit taken for a miss does not come back (`overflowsNotRepeated`).
  static void confirm_overflows(Context& ctx, const std::vector<StrideCount>& unfit,
                                const HitClassifier& c, int sm, Difference& d) {
    if (unfit.empty()) return;
    device::ChaseBatch batch;
    for (const auto& s : unfit)
      for (int repeat = 0; repeat < 2; ++repeat)
        batch.requests.push_back(placed(inside(s.lines), s.stride, sm));
    ctx.expect_batches(1);
    const auto result = ctx.chase(batch);
    for (std::size_t i = 0; i < unfit.size(); ++i) {
      const bool again = overflowed(result.results[2 * i], inside(unfit[i].lines), c) ||
                         overflowed(result.results[2 * i + 1], inside(unfit[i].lines), c);
      (again ? d.strides : d.not_repeated).push_back(unfit[i].stride);
    }
  }

  // An edge that did not overflow an eighth past the count is chased again three eighths past
  // it: an index that differs moves the count by a factor of two or more, so an overflow there
  // means the placement of the lines moved the edge and the stride agrees (`edgesSettled`).
  static void settle_edges(Context& ctx, const std::vector<StrideCount>& fragile,
                           const HitClassifier& c, int sm, Difference& d) {
    if (fragile.empty()) return;
    device::ChaseBatch batch;
    for (const auto& s : fragile)
      batch.requests.push_back(placed(s.lines + 3 * edge_slack(s.lines), s.stride, sm));
    ctx.expect_batches(1);
    const auto result = ctx.chase(batch);
    for (std::size_t i = 0; i < fragile.size(); ++i) {
      if (overflowed(result.results[i], fragile[i].lines + 3 * edge_slack(fragile[i].lines), c)) {
        d.settled.push_back(fragile[i].stride);
        continue;
      }
      d.strides.push_back(fragile[i].stride);
      d.without_edge.push_back(fragile[i].stride);
    }
  }

  static device::ChaseRequest placed(std::uint64_t lines, std::uint64_t stride, int sm) {
    auto r = passes_request(device::Space::L2, lines, stride, kGeometryPasses);
    r.sm = sm;
    return r;
  }

  static void fail(Context& ctx, const std::string& why) {
    ctx.put("l2", keys::segmentsHashAlike,
            model::Attribute::unavailable(model::Source::Measured, "", why));
  }
};

}  // namespace

// Whether the L2's segments index alike: the first segment's stride profile checked from an SM of
// each other segment (segment_hash_probe.cpp; NVIDIA, whose layout probes find the segments).
GPUTOPO_REGISTER_PROBE(Family::Geometry, 30, Made::Once,
                       [](const Site& s) -> std::unique_ptr<Probe> {
                         if (model::is_amd(s.info)) return nullptr;
                         return std::make_unique<SegmentHashProbe>();
                       });

}  // namespace gputopo::discovery
