#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "discovery/context.hpp"
#include "discovery/discovery_options.hpp"
#include "discovery/probes/compute/code_body_batch.hpp"
#include "discovery/registry.hpp"

namespace gputopo::discovery {
namespace {

namespace keys = model::keys;

constexpr std::uint32_t kAloneInstructions = device::kMinCodeInstructions;
// Shared where the pair costs more than the two alone by this share of the chase's own cost.
constexpr double kSharedShare = 0.5;
// A chase that costs this many times the constant L1.5's latency a load misses it even alone.
constexpr double kMissingChase = 1.5;

// The test of one instruction-cache level: a body of `code` bytes that fits it (as far as the
// code-size sweep can tell) and a constant chase of `data` bytes that fits it alone, together
// past its largest possible size.
struct LevelTest {
  std::size_t level = 0;
  double lo = 0, hi = 0;  // the level's bytes
  std::uint32_t code = 0, data = 0;
  std::string skipped;  // why the level is not tested, "" when it is
  double extra = 0, alone = 0, per_load = 0, ratio = 0, confidence = 0;
};

std::vector<LevelTest> plan_tests(const model::Json& levels, std::uint64_t constant_bytes) {
  std::vector<LevelTest> tests;
  const double limit =
      static_cast<double>(std::min<std::uint64_t>(device::kMaxCodeChaseBytes, constant_bytes));
  double inner = 0;  // the level before's largest possible size: the body must pass it
  for (std::size_t k = 0; k < levels.size(); ++k) {
    LevelTest t;
    t.level = k + 1;
    t.lo = levels[k].value("atLeastBytes", 0.0);
    t.hi = levels[k].value("atMostBytes", 0.0);
    const double width = t.hi - t.lo;
    const double code = std::floor((t.lo - width) / 128) * 128;
    const double stride = device::kCodeChaseStride;
    const double data = std::floor(std::min(limit, t.lo / 2) / stride) * stride;
    if (code <= inner || code < kAloneInstructions * kSassInstructionBytes)
      t.skipped = "the level is known too coarsely: a body that surely fits it fits the one before";
    else if (data < stride || code + data < t.hi + width)
      t.skipped = "the level is known too coarsely: a constant chase of at most " +
                  std::to_string(static_cast<long>(limit)) + " B cannot surely overflow it";
    t.code = t.skipped.empty() ? static_cast<std::uint32_t>(code) : 0;
    t.data = t.skipped.empty() ? static_cast<std::uint32_t>(data) : 0;
    inner = t.hi;
    tests.push_back(t);
  }
  return tests;
}

// Writes compute.instructionCacheHoldsConstants (--depth full): whether the constant L1.5 is one
// of the instruction-cache levels the code-size sweep found. For each level, one warp loops over
// a constant chase and a code body that each fit the level alone and overflow it together; where
// the level holds both, the pair costs far more than its parts. A constant L1.5 larger than the
// constant space then takes that level's size (constantL15.size).
class ConstantSharingProbe final : public Probe {
 public:
  ConstantSharingProbe() : Probe("constantSharing", {}) {
    declare({{"constantL15", &keys::size},
             {"constantL15", &keys::latency},
             compute(keys::instructionCacheSizes)},
            {{"constantL15", &keys::size}, compute(keys::instructionCacheHoldsConstants)});
  }

  void run(Context& ctx) override {
    auto fail = [&](const std::string& why) {
      ctx.put_compute(keys::instructionCacheHoldsConstants,
                      model::Attribute::unavailable(model::Source::Measured, "", why));
    };
    if (ctx.options().depth != Depth::Full)
      return fail(
          "not measured at --depth quick: it tests the levels of the instruction-cache "
          "sweep (--depth full)");
    const model::Attribute* levels = ctx.get_compute(keys::instructionCacheSizes);
    if (!levels || !levels->available() || levels->value.empty())
      return fail("no instruction-cache level was found to test");
    const model::Attribute* l15 = ctx.get("constantL15", keys::latency);
    if (!l15 || !l15->value.is_number())
      return fail("no constant L1.5 to share: constantL15.latency is not established");
    std::vector<LevelTest> tests =
        plan_tests(levels->evidence.value("levels", model::Json::array()),
                   ctx.info().constant_bytes() ? ctx.info().constant_bytes() : 65536);
    std::string why;
    if (!measure(ctx, tests, l15->value.get<double>(), why)) return fail(why);
    put(ctx, tests, levels->confidence.value_or(0));
  }

 private:
  // Each tested level's body and chase alone and together, in one batch; a level whose chase
  // misses the L1.5 (of `l15_latency`) even alone is skipped.
  static bool measure(Context& ctx, std::vector<LevelTest>& tests, double l15_latency,
                      std::string& why) {
    std::vector<device::ComputeRequest> items = {code_body(kAloneInstructions)};
    for (const LevelTest& t : tests) {
      if (!t.skipped.empty()) continue;
      const std::uint32_t n = t.code / static_cast<std::uint32_t>(kSassInstructionBytes);
      items.push_back(code_body(kAloneInstructions, t.data));
      items.push_back(code_body(n));
      items.push_back(code_body(n, t.data));
    }
    if (items.size() == 1) return true;
    const auto passes = cycles_per_pass(ctx, items, why);
    if (!passes) return false;
    const auto& p = *passes;
    std::size_t at = 1;
    for (LevelTest& t : tests) {
      if (!t.skipped.empty()) continue;
      t.alone = p[at].value - p[0].value;
      t.per_load = t.alone / (t.data / device::kCodeChaseStride);
      t.extra = p[at + 2].value - p[at + 1].value - t.alone;
      t.ratio = t.alone > 0 ? t.extra / t.alone : 0;
      // The four spans' spread against the chase's cost, and the distance from the threshold.
      double spread = 0;
      for (std::size_t i : {std::size_t{0}, at, at + 1, at + 2}) spread += p[i].hi - p[i].lo;
      t.confidence = t.alone > 0
                         ? agreement(spread / t.alone) *
                               std::min(1.0, std::abs(t.ratio - kSharedShare) / kSharedShare)
                         : 0;
      if (t.per_load > kMissingChase * l15_latency)
        t.skipped = "the chase misses the constant L1.5 even alone";
      at += 3;
    }
    return true;
  }

  static void put(Context& ctx, const std::vector<LevelTest>& tests, double sweep_confidence);
  static void put_l15_size(Context& ctx, const LevelTest& shared, double confidence);
};

model::Json test_json(const LevelTest& t) {
  model::Json j = {{"level", t.level}, {"levelBytes", {t.lo, t.hi}}};
  if (!t.skipped.empty()) {
    j["skipped"] = t.skipped;
    return j;
  }
  j["codeBytes"] = t.code;
  j["constantBytes"] = t.data;
  j["chaseCyclesPerLoad"] = t.per_load;
  j["chaseCyclesAlone"] = t.alone;
  j["extraCyclesTogether"] = t.extra;
  j["extraShareOfChase"] = t.ratio;
  return j;
}

void ConstantSharingProbe::put(Context& ctx, const std::vector<LevelTest>& tests,
                               double sweep_confidence) {
  model::Json evidence = model::Json::array();
  const LevelTest* shared = nullptr;
  const LevelTest* decided = nullptr;
  double confidence = 1;
  for (const LevelTest& t : tests) {
    evidence.push_back(test_json(t));
    if (!t.skipped.empty()) continue;
    decided = &t;
    confidence = std::min(confidence, t.confidence);
    if (t.ratio > kSharedShare && !shared) shared = &t;
  }
  if (!decided) {
    auto a = model::Attribute::unavailable(model::Source::Measured, "",
                                           "no instruction-cache level could be tested");
    a.evidence = {{"tests", evidence}};
    ctx.put_compute(keys::instructionCacheHoldsConstants, std::move(a));
    return;
  }
  auto a = model::Attribute::measured(
      shared != nullptr, "",
      "one warp loops over a dependent chase of constant memory (a load every 256 B) and a body "
      "of straight-line FFMAs, each sized to fit an instruction-cache level alone and to "
      "overflow it together; cycles per pass over 4 and 16 passes, the median of 5 repeats: "
      "shared where together costs more than both alone by over half the chase's own cost",
      confidence);
  a.evidence = {{"tests", evidence}};
  if (shared) a.evidence["level"] = shared->level;
  ctx.put_compute(keys::instructionCacheHoldsConstants, std::move(a));
  if (shared) put_l15_size(ctx, *shared, std::min(confidence, sweep_confidence));
}

// A constant L1.5 larger than the constant space has only a lower bound from constant loads; the
// instruction-cache level it is measures it.
void ConstantSharingProbe::put_l15_size(Context& ctx, const LevelTest& shared, double confidence) {
  const model::Attribute* was = ctx.get("constantL15", keys::size);
  if (!was || !was->value.is_number() || !was->interval || std::isfinite(was->interval->hi) ||
      shared.lo < was->interval->lo)
    return;
  auto a = model::Attribute::measured(
      shared.lo, "B",
      "the instruction-cache level the constant L1.5 is (constantSharing): code-size sweep, at "
      "least the lower and less than the upper bound of the interval",
      confidence);
  a.interval = model::Interval{shared.lo, shared.hi};
  a.evidence = {{"instructionCacheLevel", shared.level},
                {"fromConstantLoads", model::to_json(*was)}};
  ctx.put("constantL15", keys::size, std::move(a));
}

}  // namespace

GPUTOPO_REGISTER_PROBE(Family::Compute, 100, Made::Once,
                       [](const Site&) { return std::make_unique<ConstantSharingProbe>(); });

}  // namespace gputopo::discovery
