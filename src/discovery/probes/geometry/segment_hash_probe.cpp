#include <string>

#include "discovery/context.hpp"
#include "discovery/measure.hpp"
#include "discovery/probes/geometry/geometry_probes.hpp"
#include "discovery/probes/geometry/hit_classifier.hpp"

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

// Whether the L2's segments index addresses alike: the capacity at each power-of-two stride that
// the set-geometry search found through SM 0's segment (l2.indexFunction's linesAtStride), chased
// again from an SM of each other segment (compute.nearL2Segments): the count must fit there too
// and, where the search found its edge, one line more must overflow.
class SegmentHashProbe final : public Probe {
 public:
  SegmentHashProbe() : Probe("l2.segmentHash", {"l2"}, {"l2.geometry", "l2Segments"}) {
    declare({{"l2", &keys::indexFunction}}, {{"l2", &keys::segmentsHashAlike}});
  }

  void run(Context& ctx) override {
    if (ctx.options().depth == Depth::Quick)
      return fail(ctx, "not established: needs --depth full (docs/discovery.md, geometry)");
    const auto* near = model::find(ctx.compute(), keys::nearL2Segments.name);
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
    model::Json checked = model::Json::array();
    bool alike = true;
    for (std::size_t g = 1; g < groups.size(); ++g) {
      const int sm = groups[g][0].get<int>();
      device::ChaseBatch batch;
      for (const auto& s : profile) {
        batch.requests.push_back(placed(s.lines, s.stride, sm));
        if (!s.bounded) batch.requests.push_back(placed(s.lines + 1, s.stride, sm));
      }
      ctx.expect_batches(1);
      const auto result = ctx.chase(batch);
      std::size_t k = 0;
      model::Json differ = model::Json::array();
      for (const auto& s : profile) {
        const bool fits = !overflowed(result.results[k++], s.lines, c);
        const bool edge = s.bounded || overflowed(result.results[k++], s.lines + 1, c);
        if (!fits || !edge) differ.push_back(s.stride);
      }
      alike = alike && differ.empty();
      checked.push_back({{"segment", g}, {"sm", sm}, {"stridesThatDiffer", differ}});
    }
    auto a = model::Attribute::measured(
        alike, "",
        "the line count SM 0's segment kept at each stride (l2.indexFunction's linesAtStride) "
        "chased from an SM of each other segment: it fits there and, where the search found its "
        "edge, one line more overflows",
        alike ? 0.9 : 0.8);
    a.evidence = {{"checked", checked}, {"strides", profile.size()}};
    ctx.put("l2", keys::segmentsHashAlike, a);
  }

 private:
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

std::unique_ptr<Probe> make_segment_hash_probe() { return std::make_unique<SegmentHashProbe>(); }

}  // namespace gputopo::discovery
