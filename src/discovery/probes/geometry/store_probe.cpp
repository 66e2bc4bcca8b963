#include <algorithm>
#include <cmath>
#include <optional>

#include "analysis/summary.hpp"
#include "discovery/context.hpp"
#include "discovery/measure.hpp"
#include "discovery/registry.hpp"

namespace gputopo::discovery {
namespace {

// A share of the timed loads at or past which (or at or below 1 minus which) a store behaviour is
// taken as established.
constexpr double kClearShare = 0.9;
// Loads of untouched lines must be this much slower than loads of loaded lines for per-load
// samples to tell them apart.
constexpr double kSeparation = 1.2;
// What the L2-space test stores over: far more than any L1 keeps.
constexpr std::uint64_t kL2TestBytes = std::uint64_t{256} << 10;

// Whole 32-byte sectors a line apart (128 B where the line is not known).
std::uint32_t store_stride(const Input& line) {
  return line ? std::max<std::uint32_t>(32, static_cast<std::uint32_t>(*line.value) / 32 * 32)
              : 128;
}

// A one-pass chase of `bytes` that warms up as `w`: per-load timing, every element timed once.
device::ChaseRequest store_request(device::Space space, std::uint64_t bytes, std::uint32_t stride,
                                   device::Warmup w, std::uint32_t warmup_passes) {
  auto r = one_pass_request(space, bytes, stride);
  r.warmup_passes = warmup_passes;
  if (w != device::Warmup::Load) r.warmup = w;
  return r;
}

// The share of a chase's loads that hit: nearer the loaded reference's median than the untouched
// one's, and under twice the loaded one (lines never touched may come from further out than the
// next level, which a miss after a store reaches: the L1's untouched lines may be in DRAM).
double hit_share(const device::ChaseResult& r, double hit, double cold) {
  const auto sample = latencies(r);
  if (sample.empty()) return 0;
  const double threshold = std::min((hit + cold) / 2, 2 * hit);
  const auto hits =
      std::count_if(sample.begin(), sample.end(), [&](double x) { return x < threshold; });
  return static_cast<double>(hits) / static_cast<double>(sample.size());
}

// One store test in one space: which share of the lines a pass of stores wrote hit afterwards,
// against a loaded and an untouched reference; nullopt with `why` where they cannot be told
// apart.
struct StoreTest {
  model::Json evidence;
  double stored = 0;  // the share of stored lines that hit
};

std::optional<StoreTest> store_test(Context& ctx, device::Space space, std::uint64_t bytes,
                                    std::uint32_t stride, bool load_store, std::string& why) {
  using W = device::Warmup;
  bytes = std::max<std::uint64_t>(round_up(bytes, stride), 4 * std::uint64_t{stride});
  device::ChaseBatch batch;
  batch.requests = {store_request(space, bytes, stride, W::Load, 1),
                    store_request(space, bytes, stride, W::Load, 0),
                    store_request(space, bytes, stride, W::Store, 1)};
  if (load_store) batch.requests.push_back(store_request(space, bytes, stride, W::LoadStore, 1));
  if (space == device::Space::L1) batch.carveout_percent = ctx.options().carveout_percent;
  device::ChaseBatchResult result;
  try {
    ctx.expect_batches(1);
    result = ctx.chase(batch);
  } catch (const device::Error& e) {
    if (e.kind() != device::Error::Kind::BadRequest) throw;
    why = std::string("not established: ") + e.what();
    return std::nullopt;
  }
  const double hit = analysis::median(latencies(result.results[0]));
  const double cold = analysis::median(latencies(result.results[1]));
  StoreTest t;
  t.evidence = {{"arrayBytes", bytes},
                {"strideBytes", stride},
                {"loadedMedianCycles", hit},
                {"untouchedMedianCycles", cold}};
  if (!(cold > kSeparation * hit)) {
    why = "not established: loads of lines never touched (" + std::to_string(std::lround(cold)) +
          " cycles) are not clearly slower than loads of loaded lines (" +
          std::to_string(std::lround(hit)) + ")";
    return std::nullopt;
  }
  t.stored = hit_share(result.results[2], hit, cold);
  t.evidence["storedHitShare"] = t.stored;
  if (load_store) t.evidence["loadedThenStoredHitShare"] = hit_share(result.results[3], hit, cold);
  return t;
}

const std::string kAllocateMethod =
    "one pass of global stores over lines never loaded, then each line loaded once: the share of "
    "loads nearer a loaded reference than an untouched one";

model::Attribute mixed(double stored) {
  return model::Attribute::unavailable(
      model::Source::Measured, "",
      "not established: " + std::to_string(std::lround(100 * stored)) +
          " % of the stored lines hit, neither all nor none");
}

// Whether the L1 probe measured that the L1 does not allocate on a store: then no store over
// lines never loaded stayed in the L1, and every one went on to the L2. The share of the L1's
// test that missed after the stores.
std::optional<double> l1_passes_stores(const Context& ctx) {
  const auto* a = ctx.get("l1", keys::writeAllocate);
  if (!a || !a->available() || !a->value.is_boolean() || a->value.get<bool>()) return std::nullopt;
  return a->confidence.value_or(0);
}

// Stores, then loads (device::Warmup::Store): one pass of plain global stores over lines the cache
// has never loaded, then every line loaded once and timed. Loads that hit show that the stores
// brought the lines in (write-allocate). Where the lines are missing, stores passed the L1 first,
// which may have kept them: the L2 does not allocate only where the L1 was measured not to
// allocate on a store.
class L2StoreProbe final : public Probe {
 public:
  L2StoreProbe() : Probe("l2.stores", {"l2"}) {
    declare({{"l2", &keys::lineSize}, {"l1", &keys::writeAllocate}},
            {{"l2", &keys::writeAllocate}});
  }

  void run(Context& ctx) override {
    const Input line = ctx.input("l2", keys::lineSize);
    const auto stride = store_stride(line);
    std::string why;
    const auto t = store_test(ctx, device::Space::L2, kL2TestBytes, stride, false, why);
    model::Attribute a;
    if (!t)
      a = model::Attribute::unavailable(model::Source::Measured, "", why);
    else if (t->stored >= kClearShare)
      a = model::Attribute::measured(true, "", kAllocateMethod, t->stored);
    else if (t->stored > 1 - kClearShare)
      a = mixed(t->stored);
    else if (const auto passed = l1_passes_stores(ctx))
      a = model::Attribute::measured(
          false, "",
          kAllocateMethod +
              "; the L1 was measured not to allocate on a store, so every store reached the L2",
          std::min(1 - t->stored, *passed));
    else
      a = model::Attribute::unavailable(
          model::Source::Measured, "",
          "not established: stored lines were not in the L2 after the stores: no allocation on "
          "a store, or a write-back L1 in front held them (the L1's write-allocate is not "
          "measured as false)");
    if (t) a.evidence = t->evidence;
    ctx.put("l2", keys::writeAllocate, a);
  }
};

// The L1's store test as the L2's, with a pass of loads then stores as well (whether a store that
// hits keeps the line), and the L2-space test again: stores pass the L1 whatever the load's
// space, so stored lines found in the L2 right after the stores show a write-through L1.
class L1StoreProbe final : public Probe {
 public:
  L1StoreProbe() : Probe("l1.stores", {"l1"}) {
    declare({{"l1", &keys::lineSize}, {"l1", &keys::size}, {"l1", &keys::globalLoadsCached}},
            {{"l1", &keys::writeAllocate}, {"l1", &keys::writePolicy}});
  }

  void run(Context& ctx) override {
    Target target;
    target.element = "l1";
    target.space = device::Space::L1;
    if (const auto why = gate(ctx, target)) return fail(ctx, "not established: " + *why);
    const Input line = ctx.input("l1", keys::lineSize);
    const auto stride = store_stride(line);
    std::uint64_t bytes = std::uint64_t{32} << 10;
    if (const Input size = ctx.input("l1", keys::size))
      bytes = std::min<std::uint64_t>(bytes, static_cast<std::uint64_t>(*size.value / 4));
    std::string why;
    const auto t = store_test(ctx, device::Space::L1, bytes, stride, true, why);
    if (!t) return fail(ctx, why);
    model::Attribute a;
    if (t->stored >= kClearShare)
      a = model::Attribute::measured(true, "", kAllocateMethod, t->stored);
    else if (t->stored > 1 - kClearShare)
      a = mixed(t->stored);
    else
      a = model::Attribute::measured(false, "", kAllocateMethod, 1 - t->stored);
    a.evidence = t->evidence;
    ctx.put("l1", keys::writeAllocate, a);
    put_write_policy(ctx, stride);
  }

 private:
  static void fail(Context& ctx, const std::string& why) {
    const auto a = model::Attribute::unavailable(model::Source::Measured, "", why);
    ctx.put("l1", keys::writeAllocate, a);
    ctx.put("l1", keys::writePolicy, a);
  }

  static void put_write_policy(Context& ctx, std::uint32_t stride) {
    std::string why;
    const auto t = store_test(ctx, device::Space::L2, kL2TestBytes, stride, false, why);
    model::Attribute a;
    if (!t) {
      a = model::Attribute::unavailable(model::Source::Measured, "", why);
    } else if (t->stored >= kClearShare) {
      a = model::Attribute::measured(
          "write-through", "",
          "global stores, then L2-only loads of the stored lines: they were in the L2 right "
          "after the stores, so the L1 passed every store on",
          t->stored);
    } else {
      a = model::Attribute::unavailable(
          model::Source::Measured, "",
          "not established: only " + std::to_string(std::lround(100 * t->stored)) +
              " % of the stored lines were in the L2 right after the stores: a write-back L1, "
              "or an L2 that does not allocate on a store");
    }
    if (t) a.evidence = t->evidence;
    ctx.put("l1", keys::writePolicy, a);
  }
};

}  // namespace

// Whether a store that misses brings its line in, from stores then loads; for the L1 its write
// policy too, from whether the stores reached the L2 at once.
GPUTOPO_REGISTER_PROBE(Family::Geometry, 50, Made::Once,
                       [](const Site&) { return std::make_unique<L2StoreProbe>(); });
GPUTOPO_REGISTER_PROBE(Family::Geometry, 60, Made::Once,
                       [](const Site&) { return std::make_unique<L1StoreProbe>(); });

}  // namespace gputopo::discovery
