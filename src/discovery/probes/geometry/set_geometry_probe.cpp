#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <map>
#include <utility>

#include "analysis/cache_geometry.hpp"
#include "discovery/context.hpp"
#include "discovery/measure.hpp"
#include "discovery/probes/geometry/hit_classifier.hpp"
#include "discovery/probes/geometry/random_draws.hpp"
#include "discovery/probes/geometry/translation_bound.hpp"
#include "discovery/registry.hpp"

namespace gputopo::discovery {
namespace {

// One cache as the geometry probe sees it.
struct GeometryTarget {
  Target target;
  const model::Key* size_key = nullptr;  // the capacity the sets and ways divide
};

using analysis::IndexInference;

constexpr int kBitsAboveLines = 4;       // strides tested beyond capacity / line size
constexpr std::uint32_t kReplicas = 2;   // runs of each victim experiment, on different SMs
constexpr std::uint32_t kPreambles = 3;  // unrelated evictions before an experiment: 0, 1, 3 passes
constexpr std::uint64_t kElementBytes = 4;
// The confidence of sets and index where the line is only a lower bound: below kEstablished.
constexpr double kLineBoundConfidence = 0.45;

// Where the loads of a victim experiment lie in its sequence.
struct VictimLayout {
  std::size_t new_line = 0;     // the load of the line that evicts
  std::size_t probe_start = 0;  // the first of the reads of the set's lines after it
};

// Binary search of the largest line count that fits, one stride bit per request, all bits at once.
struct BitSearch {
  int bit = 0;
  std::uint64_t lo = 0;   // fits (0: nothing known yet)
  std::uint64_t hi = 0;   // overflows, or cap + 1 when never seen to
  std::uint64_t cap = 0;  // the most lines the largest array allows
  bool done() const { return hi - lo <= 1; }
  std::uint64_t mid() const { return lo + (hi - lo) / 2; }
};

class SetGeometryProbe final : public Probe {
 public:
  // A level-2 cache follows its presence probe, which revises its findings when it is not there.
  explicit SetGeometryProbe(GeometryTarget t)
      : Probe(t.target.element + ".geometry", {t.target.element},
              t.target.level > 1 ? std::vector<std::string>{t.target.element + ".presence"}
                                 : std::vector<std::string>{}),
        g_(std::move(t)) {
    const Target& target = g_.target;
    const std::string& e = target.element;
    // The miss gap's latencies (miss_gap) and the capacity, line and gate of the cache.
    std::vector<Finding> reads;
    if (target.space == device::Space::L2) {
      reads = translation_findings();
      for (const Finding& f : {Finding{"l2", &keys::nearLatency}, Finding{"l2", &keys::farLatency},
                               Finding{"l2", &keys::segmentCount}, Finding{"dram", &keys::latency}})
        reads.push_back(f);
    } else if (target.level > 1)
      reads = {{"l2", &keys::nearLatency},
               {target.inner, &keys::associativity},
               {target.inner, &keys::sets},
               {target.inner, &keys::indexFunction},
               {target.inner, &keys::lineSize}};
    else
      reads = {{e, &keys::missPenalty}};
    for (const model::Key* k : {&keys::globalLoadsCached, &keys::latency, g_.size_key,
                                &keys::lineSize, &keys::fetchGranularity})
      reads.push_back({e, k});
    std::vector<Finding> writes;
    for (const model::Key* k : {&keys::associativity, &keys::sets, &keys::indexFunction,
                                &keys::replacementPolicy, &keys::carveout})
      writes.push_back({e, k});
    declare(std::move(reads), std::move(writes));
  }

  void run(Context& ctx) override {
    const Target& t = g_.target;
    const std::string& e = t.element;
    if (auto why = gate(ctx, t)) return fail_all(ctx, *why);
    // An absent level's attributes carry the reason it is absent.
    if (const auto* present = ctx.get(e, keys::latency); present && !present->available())
      return fail_all(ctx, std::string(present->reason));
    if (ctx.options().depth == Depth::Quick)
      return fail_all(ctx, "not established: needs --depth full (docs/discovery.md, geometry)");
    const Input size = ctx.input(e, *g_.size_key);
    if (!size) return fail_all(ctx, "needs the capacity: " + size.why);
    std::vector<std::string> weaker;
    bool line_bound = false;  // the line is only known to be at least the front level's
    const Input line = line_of(ctx, line_bound);
    if (!line || *line.value < kElementBytes)
      return fail_all(ctx, "needs the line size: " + line.why);
    const auto line_bytes = static_cast<std::uint64_t>(*line.value);
    if (!std::has_single_bit(line_bytes)) return fail_all(ctx, "the line size is no power of two");
    const auto capacity = static_cast<std::uint64_t>(*size.value);
    const std::uint64_t capacity_lines = capacity / line_bytes;
    if (capacity_lines < 2) return fail_all(ctx, "the cache holds fewer than two lines");
    const std::uint64_t largest = largest_array(ctx, capacity);
    if (largest < 2 * capacity)
      return fail_all(ctx, "the space cannot hold an array past the cache");

    const int line_bit = std::countr_zero(line_bytes);
    // The lowest stride whose full-capacity chase stays short: every stride for an SM cache, the
    // top of the index for the L2, whose capacity runs to hundreds of thousands of lines.
    const std::uint64_t max_lines = t.space == device::Space::L2 ? 2048 : 1u << 14;
    int first_bit = line_bit;
    while ((capacity_lines >> (first_bit - line_bit)) > max_lines) ++first_bit;
    const int last_bit =
        line_bit + static_cast<int>(std::bit_width(capacity_lines)) + kBitsAboveLines;

    // The hit reference: an eighth of the cache at the line size (at most 1024 lines).
    const std::uint64_t hit_lines =
        std::max<std::uint64_t>(2, std::min<std::uint64_t>(capacity_lines / 8, 1024));
    const auto gap = miss_gap(ctx);
    if (!gap) return fail_all(ctx, "needs the latency of a miss: " + gap.why);
    std::vector<BitSearch> searches =
        strides_to_search(first_bit, last_bit, line_bit, capacity_lines, largest);
    if (searches.size() < 3) return fail_all(ctx, "fewer than three strides fit the space");

    std::optional<HitClassifier> classifier;
    int steps = 0;
    if (auto why = search(ctx, searches, hit_lines, line_bytes, *gap.value, classifier, steps))
      return fail_all(ctx, *why);

    model::Json capacities = model::Json::object();
    bool folds = false;
    const auto profile =
        stride_profile(searches, line_bit, first_bit, capacity_lines, capacities, folds);
    if (t.level > 1 && shadowed(ctx, searches, capacities)) return;
    IndexInference index = analysis::infer_index(profile, line_bit, folds);
    if (index.kind == IndexInference::Kind::Plain && index.ways)
      odd_sets(ctx, index, line_bytes, *classifier, largest);

    model::Json evidence = {{"linesAtStride", capacities},
                            {"lineBytes", line_bytes},
                            {"capacityBytes", capacity},
                            {"searchSteps", steps},
                            {"hitMiss", classifier->evidence()}};
    if (first_bit > line_bit) evidence["firstStrideTested"] = std::uint64_t{1} << first_bit;
    const double confidence = std::min(0.9, size.value ? 0.9 : 0.5);
    const std::string method =
        "largest line count that a cyclic chase at each power-of-two stride keeps without a "
        "repeated miss (binary search, " +
        std::to_string(kGeometryPasses) +
        " passes after the first); a linear set index holds W x 2^rank";
    put_index(ctx, index, evidence, method, confidence);
    const DrawSite draws{&t, line_bytes, capacity_lines, largest, &*classifier};
    put_ways_sets(ctx, index, profile, evidence, method, confidence, draws);
    replacement(ctx, index, line_bytes, *classifier, confidence);
    if (line_bound) weaken_for_line(ctx, line_bytes);
  }

 private:
  // A cache behind another (the constant L1.5 behind the L1): a chase's repeated misses come
  // when neither holds its lines, so each stride's count is the larger of the two levels' there.
  // It is this cache's where it exceeds what the level in front holds at that stride (its plain
  // modulo geometry). Where it does not, every attribute says so and this returns true.
  bool shadowed(Context& ctx, const std::vector<BitSearch>& searches,
                const model::Json& capacities) const {
    const auto why = shadow(ctx, searches);
    if (!why) return false;
    auto a = model::Attribute::unavailable(model::Source::Measured, "", *why);
    a.evidence = {{"linesAtStride", capacities}};
    for (const auto* k :
         {&keys::associativity, &keys::sets, &keys::indexFunction, &keys::replacementPolicy})
      ctx.put(g_.target.element, *k, a);
    return true;
  }

  std::optional<std::string> shadow(const Context& ctx,
                                    const std::vector<BitSearch>& searches) const {
    const std::string& inner = g_.target.inner;
    const Input ways = ctx.input(inner, keys::associativity);
    const Input sets = ctx.input(inner, keys::sets);
    const Input line = ctx.input(inner, keys::lineSize);
    const auto* index = ctx.get(inner, keys::indexFunction);
    const bool modulo = index && index->available() && index->value.is_string() &&
                        index->value.get<std::string>().rfind("modulo", 0) == 0;
    if (!ways || !sets || !line || !modulo)
      return "not established: needs the plain geometry of the level in front (" + inner +
             "), whose lines the chases also hit";
    for (const auto& s : searches) {
      if (s.hi > s.cap) continue;  // bounded by the space: at least s.lo, which says nothing here
      const std::uint64_t stride = std::uint64_t{1} << s.bit;
      const auto line_bytes = static_cast<std::uint64_t>(*line.value);
      const std::uint64_t per_line = std::max<std::uint64_t>(1, line_bytes / stride);
      const std::uint64_t sets_used =
          std::max<std::uint64_t>(1, static_cast<std::uint64_t>(*sets.value) /
                                         std::max<std::uint64_t>(1, stride / line_bytes));
      const std::uint64_t front = static_cast<std::uint64_t>(*ways.value) * sets_used * per_line;
      if (s.lo <= front)
        return "not established: at a stride of " + std::to_string(stride) +
               " B the level in front (" + inner + ") holds " + std::to_string(front) +
               " lines, as many as or more than the " + std::to_string(s.lo) +
               " seen, so the capacity there may be its";
    }
    return std::nullopt;
  }

  // A search per power-of-two stride from `first_bit` to `last_bit`, each bounded by what the
  // stride can hold in the largest array and in the cache.
  std::vector<BitSearch> strides_to_search(int first_bit, int last_bit, int line_bit,
                                           std::uint64_t capacity_lines,
                                           std::uint64_t largest) const {
    std::vector<BitSearch> searches;
    for (int bit = first_bit; bit <= last_bit; ++bit) {
      const std::uint64_t stride = std::uint64_t{1} << bit;
      // No stride holds more than the whole cache: room for that, and a margin for the size. The
      // L2 holds hundreds of thousands of lines: its search stops at twice what a plain index
      // leaves, enough to tell a hash, which holds the whole capacity at every stride.
      const std::uint64_t whole = capacity_lines + capacity_lines / 4 + 2;
      const std::uint64_t plain = 2 * (capacity_lines >> (bit - line_bit)) + 66;
      const std::uint64_t cap = std::min<std::uint64_t>(
          g_.target.space == device::Space::L2 ? std::min(whole, plain) : whole, largest / stride);
      if (cap < 2 || stride > (std::uint64_t{1} << 31)) break;
      searches.push_back({bit, 0, cap + 1, cap});
    }
    return searches;
  }

  // Binary searches, one a stride, all strides in one batch a step, for the most lines a chase
  // keeps without a repeated miss; the first batch also times the hit reference that sets the
  // hit/miss threshold. The reason it failed, or nullopt.
  std::optional<std::string> search(Context& ctx, std::vector<BitSearch>& searches,
                                    std::uint64_t hit_lines, std::uint64_t line_bytes,
                                    double gap_cycles, std::optional<HitClassifier>& classifier,
                                    int& steps) const {
    ctx.expect_batches(static_cast<std::size_t>(std::bit_width(searches.front().cap)) + 2);
    while (std::any_of(searches.begin(), searches.end(),
                       [](const BitSearch& s) { return !s.done(); })) {
      device::ChaseBatch batch;
      batch.carveout_percent = carveout_for(ctx, g_.target);
      const bool references = !classifier;
      if (references) {
        batch.requests.push_back(
            placed(passes_request(g_.target.space, hit_lines, line_bytes, kGeometryPasses)));
      }
      std::vector<std::pair<std::size_t, std::uint64_t>> asked;  // search, lines
      for (std::size_t i = 0; i < searches.size(); ++i) {
        if (searches[i].done()) continue;
        asked.emplace_back(i, searches[i].mid());
        batch.requests.push_back(
            placed(passes_request(g_.target.space, searches[i].mid(),
                                  std::uint64_t{1} << searches[i].bit, kGeometryPasses)));
      }
      const auto result = ctx.chase(batch);
      record_carveout(ctx, g_.target, result.conditions);
      std::size_t k = 0;
      if (references) {
        std::string why;
        classifier = make_classifier(result.results[0], hit_lines, gap_cycles, why);
        if (!classifier) return why;
        k = 1;
        bound_by_translation(ctx, searches, *classifier);
      }
      for (const auto& [i, n] : asked) {
        BitSearch& s = searches[i];
        if (n > s.cap) {
          ++k;  // past the translation bound: says nothing
          continue;
        }
        const auto& r = result.results[k++];
        if (overflowed(r, n, *classifier)) {
          s.hi = n;
        } else {
          s.lo = n;
          classifier->learn(r, n);
        }
      }
      ++steps;
    }
    return std::nullopt;
  }

  // The L2's chases also miss a TLB level that cannot hold their pages; where such a miss costs
  // more than the hit/miss threshold allows, a count past what the level holds at that stride is
  // bounded ("at least") rather than searched.
  void bound_by_translation(const Context& ctx, std::vector<BitSearch>& searches,
                            const HitClassifier& c) const {
    if (g_.target.space != device::Space::L2) return;
    const auto levels = translation_levels(ctx);
    for (auto& s : searches) {
      const std::uint64_t held = std::max(
          s.lo, translated_lines(levels, std::uint64_t{1} << s.bit, c.threshold - c.hit_cycles));
      if (held >= s.cap) continue;
      s.cap = held;
      s.hi = std::min(s.hi, held + 1);
    }
  }

  // The capacity in lines at each stride searched; below the first stride tested a plain index
  // is assumed where the first stride's count implies the measured size (else `folds`).
  static std::vector<analysis::StrideCapacity> stride_profile(
      const std::vector<BitSearch>& searches, int line_bit, int first_bit,
      std::uint64_t capacity_lines, model::Json& capacities, bool& folds) {
    std::vector<analysis::StrideCapacity> profile;
    for (const auto& s : searches) {
      const bool bounded = s.hi > s.cap;
      profile.push_back({s.bit, s.lo, bounded});
      capacities[std::to_string(std::uint64_t{1} << s.bit)] =
          bounded ? model::Json(">=" + std::to_string(s.lo)) : model::Json(s.lo);
    }
    // Below the first stride tested, a plain index halves the capacity at every bit: the first
    // stride then holds capacity_lines / 2^(first - line) lines (within 3 % of the measured size).
    // More than that: upper bits fold into the index (a hash).
    if (first_bit > line_bit) {
      const double implied = static_cast<double>(profile.front().lines) *
                             static_cast<double>(std::uint64_t{1} << (first_bit - line_bit));
      const double rel =
          (implied - static_cast<double>(capacity_lines)) / static_cast<double>(capacity_lines);
      if (std::abs(rel) <= 0.03) {
        std::vector<analysis::StrideCapacity> extended;
        for (int bit = line_bit; bit < first_bit; ++bit)
          extended.push_back({bit, profile.front().lines << (first_bit - bit), false});
        extended.insert(extended.end(), profile.begin(), profile.end());
        profile = std::move(extended);
      } else {
        folds = rel > 0.03;
      }
    }
    return profile;
  }

  // Cycles a miss here takes more than a hit, from chain latencies: the miss penalty of a level-1
  // cache; the L2's near latency over a level-2 cache's; the L2's far latency (or device memory's,
  // with one segment) over its near one.
  Input miss_gap(const Context& ctx) const {
    const Target& t = g_.target;
    auto latency = [&](const std::string& e, const model::Key& k) { return ctx.input(e, k); };
    Input gap;
    if (t.space == device::Space::L2) {
      const Input near = latency("l2", keys::nearLatency);
      // Where the count is not established, the far level the latency probe measured past the
      // largest segment the count allows.
      const Input count = latency("l2", keys::segmentCount);
      const Input next = count && *count.value == 1 ? latency("dram", keys::latency)
                                                    : latency("l2", keys::farLatency);
      if (!near || !next) {
        gap.why = !near ? near.why : next.why;
        return gap;
      }
      gap.value = *next.value - *near.value;
    } else if (t.level > 1) {
      const Input own = latency(t.element, keys::latency);
      const Input next = latency("l2", keys::nearLatency);
      if (!own || !next) {
        gap.why = !own ? own.why : next.why;
        return gap;
      }
      gap.value = *next.value - *own.value;
    } else {
      gap = latency(t.element, keys::missPenalty);
      if (!gap) return gap;
    }
    gap.established = true;
    return gap;
  }

  // The largest array a request may use: the space's limit, else a share of device memory.
  std::uint64_t largest_array(const Context& ctx, std::uint64_t capacity) const {
    if (g_.target.space_limit_bytes) return g_.target.space_limit_bytes;
    const std::uint64_t memory = ctx.info().global_memory_bytes();
    const std::uint64_t wanted =
        std::clamp<std::uint64_t>(512 * capacity, std::uint64_t{64} << 20, std::uint64_t{1} << 30);
    return std::min(wanted, memory / 32);
  }

  // A modulo by f x 2^m sets (f odd) holds f W lines at every power-of-two stride past the set
  // span 2^m lines, like f W ways; at f x 2^m lines, only W. For each odd f dividing the plateau,
  // does plateau / f fit at that stride and one line more not?
  void odd_sets(Context& ctx, IndexInference& index, std::uint64_t line_bytes,
                const HitClassifier& c, std::uint64_t largest) {
    const std::uint64_t plateau = *index.ways;
    const std::uint64_t span = *index.sets * line_bytes;
    device::ChaseBatch batch;
    batch.carveout_percent = carveout_for(ctx, g_.target);
    std::vector<std::uint64_t> factors;
    for (std::uint64_t f = 3; f <= plateau; f += 2) {
      if (plateau % f != 0 || (plateau / f + 1) * f * span > largest) continue;
      factors.push_back(f);
      for (const std::uint64_t n : {plateau / f, plateau / f + 1})
        batch.requests.push_back(
            placed(passes_request(g_.target.space, n, f * span, kGeometryPasses)));
    }
    if (factors.empty()) return;
    ctx.expect_batches(1);
    const auto result = ctx.chase(batch);
    for (std::size_t i = 0; i < factors.size(); ++i) {
      const std::uint64_t w = plateau / factors[i];
      if (!overflowed(result.results[2 * i], w, c) &&
          overflowed(result.results[2 * i + 1], w + 1, c)) {
        index.odd_factor = factors[i];
        index.ways = w;
        index.sets = *index.sets * factors[i];
        return;
      }
    }
  }

  device::ChaseRequest placed(device::ChaseRequest r) const {
    if (g_.target.space == device::Space::L2) r.sm = kLatencySm;
    return r;
  }

  // The line the geometry divides by. A level-2 cache has no line probe: its fetch granularity
  // stands in (the whole line where a miss fills the line), or the front level's line where the
  // fetch is smaller or not measured (`bound`: the line is only known to be at least that). Where a
  // line probe ran and failed, a fetch smaller than the line would multiply the sets: none then.
  Input line_of(const Context& ctx, bool& bound) const {
    const Target& t = g_.target;
    Input line = ctx.input(t.element, keys::lineSize);
    if (line || t.level == 1) return line;
    line = ctx.input(t.element, keys::fetchGranularity);
    const Input front = ctx.input(t.inner, keys::lineSize);
    if (front && (!line || *line.value < *front.value)) {
      bound = true;
      return front;
    }
    return line;
  }

  void weaken_for_line(Context& ctx, std::uint64_t line_bytes) const {
    const std::string why = "the line is only known to be at least the " + g_.target.inner +
                            " line (" + std::to_string(line_bytes) +
                            " B, this level's fetch being smaller or not measured): a larger "
                            "line would leave fewer sets, indexed from a higher bit";
    for (const auto* k : {&keys::sets, &keys::indexFunction})
      weaken(ctx, g_.target.element, *k, why);
  }

  // Caps a finding's confidence under the level dependents use, saying why.
  static void weaken(Context& ctx, const std::string& element, const model::Key& key,
                     const std::string& why) {
    const auto* found = ctx.get(element, key);
    if (!found || !found->available()) return;
    auto a = *found;
    a.confidence = std::min(a.confidence.value_or(0), kLineBoundConfidence);
    a.reason = a.reason.empty() ? why : a.reason + "; " + why;
    ctx.put(element, key, std::move(a));
  }

  void fail_all(Context& ctx, std::string why) const {  // a copy: `why` may lie in ctx
    for (const auto* k :
         {&keys::associativity, &keys::sets, &keys::indexFunction, &keys::replacementPolicy})
      ctx.put(g_.target.element, *k,
              model::Attribute::unavailable(model::Source::Measured, "", why));
  }

  void put_index(Context& ctx, const IndexInference& index, const model::Json& evidence,
                 const std::string& method, double confidence) const {
    const std::string& e = g_.target.element;
    if (index.kind == IndexInference::Kind::Inconsistent) {
      auto a = model::Attribute::unavailable(model::Source::Measured, "", index.why);
      a.evidence = evidence;
      ctx.put(e, keys::indexFunction, std::move(a));
      return;
    }
    std::string value;
    model::Json ev = evidence;
    ev["halvingBits"] = index.halving;
    if (index.top_bit) ev["topBitTested"] = *index.top_bit;
    switch (index.kind) {
      case IndexInference::Kind::Plain: {
        const int top = index.halving.back();
        if (index.odd_factor == 1)
          value =
              "modulo: address bits " + std::to_string(index.low_bit) + "-" + std::to_string(top);
        else
          value = "modulo " + std::to_string(*index.sets) + " of the line address (from bit " +
                  std::to_string(index.low_bit) + ")";
        ev["oddFactor"] = index.odd_factor;
        break;
      }
      case IndexInference::Kind::Hashed: {
        if (index.halving.empty()) {
          value = "hashed: the capacity stays whole at every stride tested";
        } else {
          value = "hashed: bits";
          for (const int b : index.halving) value += " " + std::to_string(b);
          value += " take part (XOR with lower bits)";
        }
        ev["explanation"] = index.why.empty()
                                ? std::string("the capacity stays whole at the lowest strides")
                                : index.why;
        break;
      }
      case IndexInference::Kind::FullyAssociative:
        value = "hashed or one set: the capacity stays whole at every stride tested";
        ev["explanation"] = index.why;
        break;
      case IndexInference::Kind::Inconsistent:
        break;
    }
    auto a = model::Attribute::measured(value, "", method, confidence);
    a.evidence = ev;
    ctx.put(e, keys::indexFunction, a);
  }

  // Where random draws found W ways of S sets but the stride profile named no index: a modulo of
  // S sets keeps W lines at a stride of S lines; the sweep kept far more there (or the whole
  // capacity everywhere), so the index hashes higher bits in.
  void put_hashed_index(Context& ctx, const IndexInference& index,
                        const std::vector<analysis::StrideCapacity>& profile,
                        const DrawnGeometry& drawn, std::uint64_t line_bytes,
                        const model::Json& evidence, const std::string& method,
                        double confidence) const {
    if (drawn.sets <= 1 || (index.kind != IndexInference::Kind::FullyAssociative &&
                            index.kind != IndexInference::Kind::Inconsistent))
      return;
    const auto stride = std::bit_ceil(static_cast<std::uint64_t>(drawn.sets) * line_bytes);
    const auto at = std::find_if(profile.begin(), profile.end(),
                                 [&](const auto& p) { return p.bit == std::countr_zero(stride); });
    // A count the space bounded is only "at least" that many kept.
    if (at == profile.end() || static_cast<double>(at->lines) <= 2.0 * drawn.ways) return;
    auto a = model::Attribute::measured(
        fmt::format("hashed: {}{} lines kept {} B apart, where a modulo of {} sets keeps {}",
                    at->bounded ? ">=" : "", at->lines, stride, drawn.sets, drawn.ways),
        "", method + "; the sets and ways from random lines", confidence);
    a.evidence = evidence;
    ctx.put(g_.target.element, keys::indexFunction, std::move(a));
  }

  // Ways and sets from the stride sweep, or where it cannot separate them from random draws.
  void put_ways_sets(Context& ctx, const IndexInference& index,
                     const std::vector<analysis::StrideCapacity>& profile,
                     const model::Json& evidence, const std::string& method, double confidence,
                     const DrawSite& draws) const {
    const std::string& e = g_.target.element;
    if (!index.ways || !index.sets) {
      const std::string why =
          index.why.empty() ? "the sweep's counts hold no W x 2^rank" : index.why;
      if (const auto drawn = put_drawn_ways_and_sets(ctx, draws, why))
        put_hashed_index(ctx, index, profile, *drawn, draws.line_bytes, evidence, method,
                         confidence);
      return;
    }
    auto w = model::Attribute::measured(*index.ways, "", method, confidence);
    w.evidence = evidence;
    ctx.put(e, keys::associativity, w);
    auto s = model::Attribute::measured(*index.sets, "", "lines at the line-size stride / ways",
                                        confidence);
    ctx.put(e, keys::sets, s);
  }

  // Every experiment after each preamble, kReplicas times, in one batch; `layouts` where each
  // request's lines lie.
  device::ChaseBatchResult run_experiments(
      Context& ctx, const std::vector<std::vector<std::uint64_t>>& experiments, std::uint64_t ways,
      std::uint64_t stride, std::uint64_t line_bytes, std::uint64_t array,
      std::vector<VictimLayout>& layouts) const {
    device::ChaseBatch batch;
    batch.carveout_percent = carveout_for(ctx, g_.target);
    for (const auto& touches : experiments)
      for (std::uint32_t p = 0; p < kPreambles; ++p)
        for (std::uint32_t r = 0; r < kReplicas; ++r) {
          VictimLayout l;
          batch.requests.push_back(placed(sequence_request(ways, stride, line_bytes, touches,
                                                           p == 0 ? 0 : 2 * p - 1, array, l)));
          layouts.push_back(l);
        }
    ctx.expect_batches(1);
    auto result = ctx.chase(batch);
    record_carveout(ctx, g_.target, result.conditions);
    return result;
  }

  // victims[e][p]: the victim of experiment e after preamble p where both replicas agree on it
  // (`disagree` counts the others).
  static std::vector<std::vector<std::optional<std::uint64_t>>> victims_of(
      const device::ChaseBatchResult& result, const std::vector<VictimLayout>& layouts,
      std::size_t n, std::uint64_t ways, const HitClassifier& c, std::size_t& disagree) {
    std::vector<std::vector<std::optional<std::uint64_t>>> victims(n);
    std::size_t k = 0;
    for (std::size_t x = 0; x < n; ++x)
      for (std::uint32_t p = 0; p < kPreambles; ++p) {
        std::optional<std::uint64_t> seen[kReplicas];
        for (std::uint32_t r = 0; r < kReplicas; ++r, ++k)
          seen[r] = victim_of(result.results[k], layouts[k], ways, c);
        if (seen[0] && seen[1] && *seen[0] == *seen[1])
          victims[x].push_back(seen[0]);
        else {
          victims[x].push_back(std::nullopt);
          ++disagree;
        }
      }

    return victims;
  }

  // Each experiment's victim where every preamble agrees on it, its row in `observed`; `varies`
  // when one order evicts different lines after different preambles; `known` counts the agreed.
  static std::vector<std::optional<std::uint64_t>> agreed_victims(
      const std::vector<std::vector<std::optional<std::uint64_t>>>& victims,
      const std::vector<std::vector<std::uint64_t>>& experiments, model::Json& observed,
      bool& varies, std::size_t& known) {
    std::vector<std::optional<std::uint64_t>> agreed(experiments.size());
    for (std::size_t x = 0; x < experiments.size(); ++x) {
      model::Json row = model::Json::object();
      row["touches"] = experiments[x];
      model::Json per = model::Json::array();
      std::optional<std::uint64_t> first;
      bool same = true;
      for (const auto& v : victims[x]) {
        per.push_back(v ? model::Json(*v) : model::Json(nullptr));
        if (!v) {
          same = false;
          continue;
        }
        if (!first)
          first = v;
        else if (*first != *v) {
          varies = true;
          same = false;
        }
      }
      row["victimAfterPreamble"] = per;
      observed.push_back(row);
      if (same && first) {
        agreed[x] = first;
        ++known;
      }
    }
    return agreed;
  }

  // The policies whose predicted victims are every agreed victim.
  static std::vector<analysis::Policy> matching_policies(
      const std::vector<std::vector<std::uint64_t>>& experiments,
      const std::vector<std::optional<std::uint64_t>>& agreed, std::uint64_t ways) {
    std::vector<analysis::Policy> matching;
    for (const auto policy :
         {analysis::Policy::Lru, analysis::Policy::TreePlru, analysis::Policy::Fifo}) {
      bool all = true;
      bool applies = true;
      for (std::size_t x = 0; x < experiments.size(); ++x) {
        if (!agreed[x]) continue;
        const auto predicted = analysis::predicted_victim(policy, ways, experiments[x]);
        if (!predicted) applies = false;
        if (!predicted || *predicted != *agreed[x]) all = false;
      }
      if (applies && all) matching.push_back(policy);
    }
    return matching;
  }

  // Mei & Chu's experiment: fill one set, access its lines in a chosen order, add one line, then
  // read the set's lines again: the first miss is the line that left.
  void replacement(Context& ctx, const IndexInference& index, std::uint64_t line_bytes,
                   const HitClassifier& c, double confidence) {
    const std::string& e = g_.target.element;
    auto fail = [&](const std::string& why) {
      ctx.put(e, keys::replacementPolicy,
              model::Attribute::unavailable(model::Source::Measured, "", why));
    };
    if (g_.target.level > 1)
      return fail(
          "the level in front of this cache takes some of the accesses, so the order "
          "this cache sees is not the order chased");
    if (!index.ways || !index.top_bit)
      return fail("needs an eviction set: the ways are not separated");
    const std::uint64_t ways = *index.ways;
    if (ways < 2) return fail("one way leaves the policy no choice");
    if (ways > 256) return fail("more than 256 ways");
    // One set at this stride: the set span of a plain index, a stride above a hash's bits.
    const std::uint64_t stride = index.kind == IndexInference::Kind::Plain
                                     ? *index.sets * line_bytes
                                     : std::uint64_t{1} << *index.top_bit;
    const auto experiments = analysis::victim_experiments(ways);
    const std::uint64_t array = (ways + 1) * stride + line_bytes * 2;
    if (g_.target.space_limit_bytes && array > g_.target.space_limit_bytes)
      return fail("the eviction set does not fit the space");

    std::vector<VictimLayout> layouts;
    const auto result = run_experiments(ctx, experiments, ways, stride, line_bytes, array, layouts);

    std::size_t disagree = 0;
    const auto victims = victims_of(result, layouts, experiments.size(), ways, c, disagree);
    model::Json observed = model::Json::array();
    bool varies = false;
    std::size_t known = 0;
    const auto agreed = agreed_victims(victims, experiments, observed, varies, known);
    model::Json ev = {{"experiments", observed},
                      {"ways", ways},
                      {"setStrideBytes", stride},
                      {"replicaDisagreements", disagree},
                      {"hitMiss", c.evidence()}};
    const std::string method =
        "fill one set (lines " + std::to_string(stride) +
        " B apart), access them in a chosen order, add one line, read the set again: the first "
        "miss is the victim (Mei & Chu); the victims are compared with LRU, FIFO and tree-PLRU, "
        "and repeated after unrelated evictions";
    const std::size_t total = experiments.size() * kPreambles;
    if (varies || disagree * 2 > total) {
      auto a = model::Attribute::measured("random", "", method, confidence * 0.9);
      a.evidence = ev;
      a.evidence["why"] = varies ? "one access order evicts different lines after unrelated "
                                   "evictions before it"
                                 : "runs of one experiment disagree on the victim";
      ctx.put(e, keys::replacementPolicy, a);
      return;
    }
    if (known < 3) return fail("fewer than three experiments gave a clear victim");
    const auto matching = matching_policies(experiments, agreed, ways);
    if (matching.empty()) {
      auto a = model::Attribute::measured("other", "", method, confidence * 0.8);
      a.evidence = ev;
      a.evidence["why"] = "the victims match none of LRU, FIFO, tree-PLRU, and do not vary";
      ctx.put(e, keys::replacementPolicy, a);
      return;
    }
    // Two ways: tree-PLRU is LRU. Otherwise the experiments tell the three apart.
    auto a = model::Attribute::measured(analysis::to_string(matching.front()), "", method,
                                        matching.size() == 1 ? confidence : confidence * 0.8);
    a.evidence = ev;
    if (matching.size() > 1) {
      std::string also;
      for (std::size_t i = 1; i < matching.size(); ++i)
        also += " " + analysis::to_string(matching[i]);
      a.evidence["sameVictimsAs"] = also;
    }
    ctx.put(e, keys::replacementPolicy, a);
  }

  // The sequence of one experiment over 4-byte elements: line k of the set at k x stride (plus one
  // line when a preamble first thrashes the set at 0 x stride ...), visit v of a line at 4 v bytes.
  device::ChaseRequest sequence_request(std::uint64_t ways, std::uint64_t stride,
                                        std::uint64_t line_bytes,
                                        const std::vector<std::uint64_t>& touches,
                                        std::uint32_t preamble_passes, std::uint64_t array,
                                        VictimLayout& layout) const {
    std::vector<std::uint64_t> seq;
    std::map<std::uint64_t, std::uint64_t> visits;
    auto load = [&](std::uint64_t byte) { seq.push_back(byte / kElementBytes + visits[byte]++); };
    const std::uint64_t base = preamble_passes ? line_bytes : 0;
    for (std::uint32_t p = 0; p < preamble_passes; ++p)
      for (std::uint64_t k = 0; k <= ways; ++k) load(k * stride);
    for (std::uint64_t k = 0; k < ways; ++k) load(base + k * stride);
    for (const auto k : touches) load(base + k * stride);
    layout.new_line = seq.size();
    load(base + ways * stride);
    layout.probe_start = seq.size();
    for (std::uint64_t k = 0; k < ways; ++k) load(base + k * stride);
    device::ChaseRequest r;
    r.space = g_.target.space;
    r.array_bytes = array;
    r.stride_bytes = static_cast<std::uint32_t>(kElementBytes);
    r.warmup_passes = 0;
    r.pattern = device::Pattern::Sequence;
    r.recorded_loads = static_cast<std::uint32_t>(seq.size());
    r.sequence = std::move(seq);
    return r;
  }

  static std::optional<std::uint64_t> victim_of(const device::ChaseResult& r,
                                                const VictimLayout& layout, std::uint64_t ways,
                                                const HitClassifier& c) {
    const auto lat = latencies(r);
    if (lat.size() < layout.probe_start + ways) return std::nullopt;
    if (!c.miss(lat[layout.new_line])) return std::nullopt;
    for (std::uint64_t k = 0; k < ways; ++k)
      if (c.miss(lat[layout.probe_start + k])) return k;
    return std::nullopt;
  }

  GeometryTarget g_;
};

}  // namespace

GPUTOPO_REGISTER_PROBE(Family::Geometry, 10, Made::PerTarget, [](const Site& s) {
  const model::Key* size_key =
      s.target->space == device::Space::L2 ? &keys::segmentSize : &keys::size;
  return std::make_unique<SetGeometryProbe>(GeometryTarget{*s.target, size_key});
});

}  // namespace gputopo::discovery
