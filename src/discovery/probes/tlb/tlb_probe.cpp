#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <utility>

#include "analysis/clean_level.hpp"
#include "analysis/summary.hpp"
#include "discovery/context.hpp"
#include "discovery/measure.hpp"
#include "discovery/probes/l2/l2_sweep.hpp"
#include "discovery/probes/tlb/tlb_coverage.hpp"
#include "discovery/probes/tlb/tlb_recurring.hpp"
#include "discovery/probes/tlb/tlb_steps.hpp"
#include "discovery/registry.hpp"

namespace gputopo::discovery {
namespace {

using device::Space;

// Every stride is a power of two plus one L2 line, which moves each element to another cache set
// (a power-of-two stride alone would put every element of a large-stride chase in one set).
constexpr std::uint64_t kMinStride = 2048;  // pages of 1 KiB and up
constexpr std::uint64_t kMaxStride = std::uint64_t{1} << 31;
constexpr std::uint64_t kQuickCount = 2048;
constexpr std::uint64_t kQuickBytes = std::uint64_t{8} << 30;
constexpr std::uint64_t kTextureBytes = std::uint64_t{512}
                                        << 20;  // 2^27 texels of a linear texture
constexpr int kMaxLevels = 3;
// The stride sweep's two footprints: a half and an eighth of the element limit.
constexpr std::array<std::uint64_t, 2> kDivisors{2, 8};
constexpr std::uint64_t kMaxTimedLoads = std::uint64_t{1} << 17;
// Timed loads of a stride-sweep chain (two segments, whatever its elements): below the page a
// level misses once a page all along the chain, and the sweep is the quick run's largest cost.
constexpr std::uint64_t kStrideSweepLoads = 512;
// A stride pair counts for the page with at least this many elements (lines) in its wide chain.
constexpr std::uint64_t kPairElements = 32;
// The least difference of two recurring means taken for a step, in cycles per load.
constexpr double kLeastStep = 0.1;

std::string bytes_text(std::uint64_t b) {
  if (b >= (std::uint64_t{1} << 30) && b % (std::uint64_t{1} << 30) == 0)
    return std::to_string(b >> 30) + " GiB";
  if (b >= (std::uint64_t{1} << 20) && b % (std::uint64_t{1} << 20) == 0)
    return std::to_string(b >> 20) + " MiB";
  if (b >= 1024 && b % 1024 == 0 && b < (std::uint64_t{1} << 20))
    return std::to_string(b >> 10) + " KiB";
  char text[32];
  if (b >= (std::uint64_t{1} << 30))
    std::snprintf(text, sizeof text, "%.1f GiB", static_cast<double>(b) / (1 << 30));
  else if (b >= (std::uint64_t{1} << 20))
    std::snprintf(text, sizeof text, "%.1f MiB", static_cast<double>(b) / (1 << 20));
  else
    return std::to_string(b) + " B";
  return text;
}

struct Level {
  double below = 0;                        // cycles per load while the level holds every page
  std::optional<double> above;             // once every load misses it (nullopt: sweep ended)
  double above_error = 0;                  // that plateau's standard error (run_error)
  std::uint64_t first_rise = 0;            // elements (one a page) at which misses start
  double first_noise = 0;                  // the least rise the search took for a miss there
  std::optional<std::uint64_t> full_rise;  // where every load misses
  Coverage coverage;                       // first-level pages an entry covers
  model::Json evidence = model::Json::object();
};

// Loads of the global space through the L2 (ld.global.cg: the SM's caches do not answer them, so
// every load is translated), timed as dependent chains on one SM; the array's lines stay in the
// L2, so the latency above an L2 hit is translation. Two sweeps (docs/methods.md, "Translation
// (TLB)"): stride pairs over one footprint give the page; element counts at one page an element
// give the levels, each a step whose first miss counts the entries and whose last the sets.
class TlbProbe final : public Probe {
 public:
  TlbProbe() : Probe("tlb", {"tlb", "tlb1", "tlb2", "tlb3"}) {
    std::vector<Finding> writes{{"tlb", &keys::pageSize}, {"tlb", &keys::tlbLevels}};
    for (int k = 1; k <= kMaxLevels; ++k)
      for (const model::Key* key : {&keys::pageSize, &keys::entries, &keys::reach,
                                    &keys::associativity, &keys::missPenalty})
        writes.push_back({element(k), key});
    writes.push_back({"tlb1", &keys::sharedWith});
    declare({{"l2", &keys::lineSize}, {"l2", &keys::fetchGranularity}}, std::move(writes));
  }

  void run(Context& ctx) override {
    try {
      measure(ctx);
    } catch (const device::Error& e) {
      // A backend that cannot run these chases (a replayed recording without them): say so, and
      // keep the page where the stride sweep ran.
      if (e.kind() != device::Error::Kind::BadRequest) throw;
      const model::Attribute* page = ctx.get("tlb", keys::pageSize);
      not_established(ctx, std::string("the device refused the chases: ") + e.what(),
                      model::Json::object(), page != nullptr && page->available());
    }
  }

 private:
  void measure(Context& ctx) {
    const bool full = ctx.options().depth == Depth::Full;
    const auto& info = ctx.info();
    std::vector<std::string> weaker;
    offset_ = chain_stride(Space::L2, l2_line_or_fetch(ctx, weaker));
    const std::uint64_t l2 = info.l2_bytes() > 0 ? info.l2_bytes() : (std::uint64_t{4} << 20);
    // Elements whose lines sit comfortably in one L2 partition, and arrays in 60 % of memory.
    std::uint64_t max_count = std::max<std::uint64_t>(64, l2 / (8 * offset_));
    std::uint64_t memory = info.global_memory_bytes() / 10 * 6;
    if (!full) {
      memory = std::min(memory, kQuickBytes);
      max_count = std::min(max_count, kQuickCount);
    }
    std::string limit_note = full ? "" : "; larger reaches need --depth full";

    // Stride sweep in pairs over one footprint: n elements at stride s and 2n at s / 2. Below the
    // page both touch the same pages, the narrow one each page twice as often: a level whose reach
    // the footprint exceeds misses on half as many of its loads, and the excess over an L2 hit
    // halves. From twice the page on the narrow chain touches twice the pages: its excess is at
    // least the wide one's. The page is the largest stride of the first run of halving pairs. Two
    // footprints (n = a half and an eighth of the element limit), so that a level whose capacity
    // one of them straddles does not hide the run; each chain the faster of two offsets (one and
    // nine L2 lines), so that a stride whose lines the L2 index crowds into few sets does not
    // pass for translation. The reference: two elements on one page (every load a TLB hit).
    // Where the driver has less memory free than the arrays need, a quarter of it, up to twice.
    StrideSweep sw = stride_sweep(ctx, memory, max_count);
    const auto& [strides, pair_count, result, memory_note] = sw;
    if (strides.empty()) {
      not_established(ctx,
                      "device memory too small for the stride sweep: arrays up to " +
                          bytes_text(memory) + " hold no 4 elements at a stride of " +
                          bytes_text(kMinStride) + " or more",
                      model::Json::object());
      return;
    }
    std::array<std::vector<double>, 2> wide;
    std::array<std::vector<double>, 2> narrow;
    model::Json stride_points = model::Json::array();
    const auto [base, two_line] = excess(sw, wide, narrow, stride_points);
    if (!memory_note.empty()) limit_note += "; " + memory_note;
    model::Json evidence = {
        {"hitCycles", base},
        {"twoLineHitCycles", two_line},
        {"weakerInputs", weaker},
        {"arrayBytesLimit", memory},
        {"strideSweep",
         {{"columns", {"stride", "elements", "cycles", "cyclesAtHalfStrideTwiceElements"}},
          {"offset", offset_},
          {"points", stride_points}}}};
    const std::string stride_text = "chain pairs over one footprint (up to " +
                                    std::to_string(max_count) + " elements) at strides " +
                                    bytes_text(kMinStride / 2) + ".." + bytes_text(strides.back()) +
                                    " (arrays up to " + bytes_text(memory) + ")";
    bool rising = false;
    const auto page_at = page_index(wide, narrow, pair_count, rising);
    if (!page_at) {
      const std::string why =
          rising ? "the latency rose in " + stride_text +
                       " but no stride halved the excess over one footprint below a stride that "
                       "kept it (no page size)" +
                       limit_note
                 : "no translation step in " + stride_text + ": every TLB level reaches beyond " +
                       bytes_text(memory) + " or holds more than " + std::to_string(max_count) +
                       " pages" + limit_note;
      not_established(ctx, why, evidence);
      return;
    }
    const std::uint64_t page = strides[*page_at];
    auto page_attr = model::Attribute::measured(
        page, "B",
        "dependent chains of global loads through the L2 (ld.global.cg) on SM " +
            std::to_string(kLatencySm) + ", " + stride_text +
            ": over one footprint, halving a stride up to the page halves the excess over an L2 "
            "hit; the page is the largest stride of the first run of halving pairs",
        0.9);
    page_attr.evidence = evidence;
    ctx.put("tlb", keys::pageSize, page_attr);

    count_levels(ctx, page, max_count, memory, full, limit_note, evidence);
  }

  struct StrideSweep {
    std::vector<std::uint64_t> strides;
    std::vector<std::array<std::uint64_t, 2>> pair_count;  // elements of each footprint's pair
    device::ChaseBatchResult result;  // the reference, then per stride and footprint 4 chains
    std::string memory_note;
  };

  // The stride sweep's chains (see measure); where the driver has less memory free than the
  // arrays need, `memory` drops to a quarter, up to twice.
  StrideSweep stride_sweep(Context& ctx, std::uint64_t& memory, std::uint64_t max_count) const {
    StrideSweep out;
    auto& [strides, pair_count, result, memory_note] = out;
    device::ChaseBatch batch;
    for (int attempt = 0;; ++attempt) {
      strides.clear();
      batch.requests.clear();
      pair_count.clear();
      for (std::uint64_t p = kMinStride; p <= kMaxStride && memory / (p + 9 * offset_) >= 4; p *= 2)
        strides.push_back(p);
      batch.requests.push_back(request(2, kMinStride / 4 + offset_));
      for (const auto p : strides) {
        std::array<std::uint64_t, 2> ns{};
        for (std::size_t f = 0; f < kDivisors.size(); ++f) {
          ns[f] = std::max<std::uint64_t>(
              2, std::min(max_count / kDivisors[f], memory / kDivisors[f] * 2 / (p + 9 * offset_)));
          for (const auto o : {offset_, 9 * offset_}) {
            batch.requests.push_back(request(ns[f], p + o, kStrideSweepLoads, false));
            batch.requests.push_back(request(2 * ns[f], p / 2 + o, kStrideSweepLoads, false));
          }
        }
        pair_count.push_back(ns);
      }
      if (strides.empty()) return out;
      ctx.expect_batches(1);
      try {
        result = chase_largest_first(ctx, batch);
        return out;
      } catch (const device::Error& e) {
        const bool short_of_memory =
            e.kind() == device::Error::Kind::OutOfMemory ||
            std::string_view(e.what()).find("are free") != std::string_view::npos;
        if (attempt == 2 || !short_of_memory) throw;
        memory /= 4;
        memory_note =
            std::string("memory short (") + e.what() + "): arrays up to " + bytes_text(memory);
        ctx.warn("tlb: " + memory_note);
      }
    }
    return out;
  }

  // The stride sweep's excess over an L2 hit, [footprint][stride], at stride s (`wide`) and at
  // s / 2 with twice the elements (`narrow`), each the faster offset; sets the noise figures and
  // l2_hit_, and returns the L2 hit's cycles and the two-line reference's. The hit is read off the
  // sweep's own long chains: below the page the narrow chain's excess is half the wide one's, so 2
  // x narrow - wide is the hit whatever misses both take, and the two smallest strides lie below
  // any page of 4 KiB or more (the median of their four pairs). The two-line reference cannot stand
  // in: the L2 answers some lines up to 30 cycles sooner than others, and two lines may sit at
  // either end (an H200 read it 10 cycles above its long chains, another 15 below).
  std::pair<double, double> excess(const StrideSweep& sw, std::array<std::vector<double>, 2>& wide,
                                   std::array<std::vector<double>, 2>& narrow,
                                   model::Json& stride_points) {
    {
      // The reference holds no translation miss: its segments that a slow load threw high tell
      // how many of any chain's segments to leave out for that reason.
      const auto s = segment_latencies(sw.result.results[0]);
      const auto clean = analysis::clean_level(s);
      reference_outliers_ = clean.outlier_share;
      load_sd_ = clean.sd * std::sqrt(static_cast<double>(segment_loads_of(sw.result.results[0])));
    }
    const double two_line = cycles_of(sw.result.results[0]);
    const auto& r = sw.result.results;
    const auto chain = [&](std::size_t i, std::size_t f, std::size_t narrow_one) {
      const std::size_t at = 1 + 8 * i + 4 * f + narrow_one;
      return std::min(cycles_of(r[at]), cycles_of(r[at + 2]));
    };
    std::vector<double> hits;
    for (std::size_t i = 0; i < std::min<std::size_t>(2, sw.strides.size()); ++i)
      for (std::size_t f = 0; f < kDivisors.size(); ++f)
        hits.push_back(2 * chain(i, f, 1) - chain(i, f, 0));
    const double base = analysis::median(hits);
    l2_hit_ = base;
    // The standard error of a median of n: about 1.25 sd / sqrt(n).
    l2_hit_error_ =
        1.25 * analysis::summarize(hits).stdev / std::sqrt(static_cast<double>(hits.size()));
    tolerance_ = std::max(2.0, 0.02 * base);
    for (std::size_t i = 0; i < sw.strides.size(); ++i)
      for (std::size_t f = 0; f < kDivisors.size(); ++f) {
        wide[f].push_back(chain(i, f, 0) - base);
        narrow[f].push_back(chain(i, f, 1) - base);
        stride_points.push_back(
            {sw.strides[i], sw.pair_count[i][f], wide[f].back() + base, narrow[f].back() + base});
      }
    return {base, two_line};
  }

  // The index of the page among the strides: the largest stride of the first run of pairs whose
  // narrow chain's excess is about half the wide one's (a quarter to three quarters: Hopper's 16
  // MiB pairs read 0.29-0.53), followed by a pair where it is not; `rising` tells whether any
  // excess showed. A pair of fewer than kPairElements elements does not count: the L2 hit of a
  // chain over a few lines moves by up to 10 cycles with where they fall.
  std::optional<std::size_t> page_index(const std::array<std::vector<double>, 2>& wide,
                                        const std::array<std::vector<double>, 2>& narrow,
                                        const std::vector<std::array<std::uint64_t, 2>>& elements,
                                        bool& rising) const {
    std::optional<std::size_t> page_at;
    rising = false;
    const std::size_t n = elements.size();
    for (std::size_t f = 0; f < kDivisors.size() && !page_at; ++f) {
      const auto halves = [&](std::size_t i) {
        return elements[i][f] >= kPairElements && wide[f][i] > tolerance_ &&
               narrow[f][i] >= 0.25 * wide[f][i] && narrow[f][i] <= 0.75 * wide[f][i];
      };
      for (std::size_t i = 0; i < n; ++i) {
        if (wide[f][i] > tolerance_) rising = true;
        if (!halves(i)) continue;
        std::size_t end = i;
        while (end + 1 < n && halves(end + 1)) ++end;
        // Past the page the narrow chain touches twice the pages: at least the wide one's excess.
        // A pair in between (a level whose capacity the footprint straddles) leaves it open.
        if (end + 1 < n && narrow[f][end + 1] >= 0.85 * wide[f][end + 1]) page_at = end;
        break;
      }
    }
    return page_at;
  }

  // The count sweep: a chain at each count and each of two offsets (one and nine L2 lines), in
  // one batch; a point is the faster offset, `apart` their difference (line_spread).
  std::vector<SweepPoint> count_sweep(Context& ctx, std::uint64_t page,
                                      const std::vector<std::uint64_t>& counts) {
    device::ChaseBatch batch;
    for (const auto n : counts)
      for (const auto o : {offset_, 9 * offset_}) batch.requests.push_back(request(n, page + o));
    ctx.expect_batches(1);
    const auto result = chase_largest_first(ctx, batch);
    std::vector<SweepPoint> sweep;
    for (std::size_t i = 0; i < counts.size(); ++i) {
      const double one = cycles_of(result.results[2 * i]);
      const double nine = cycles_of(result.results[2 * i + 1]);
      sweep.push_back({counts[i], std::min(one, nine), one - nine});
    }
    return sweep;
  }

  // Count sweep at one page per element: each latency step a level, with its entries, ways and
  // miss penalty; then whether the other paths share the first level.
  void count_levels(Context& ctx, std::uint64_t page, std::uint64_t max_count, std::uint64_t memory,
                    bool full, const std::string& limit_note, model::Json& evidence) {
    const std::uint64_t stride = page + offset_;
    const std::uint64_t top = std::max<std::uint64_t>(4, std::min(max_count, memory / stride));
    std::vector<std::uint64_t> counts;
    for (double c = 2; c <= static_cast<double>(top) * 1.0001; c *= std::sqrt(2.0)) {
      const auto n = static_cast<std::uint64_t>(std::llround(c));
      if (counts.empty() || n > counts.back()) counts.push_back(n);
    }
    if (counts.back() != top) counts.push_back(top);
    const auto sweep = count_sweep(ctx, page, counts);
    model::Json raw = model::Json::array();
    for (const auto& p : sweep) raw.push_back({p.count, p.cycles});
    // The spread of line latencies is read below the first step that the tolerance alone finds.
    const auto first_cut = sweep_plateaus(sweep, tolerance_, 0);
    if (!first_cut.empty()) line_sd_ = line_spread(sweep, first_cut.front());
    const auto plateaus = sweep_plateaus(sweep, tolerance_, line_sd_,
                                         l2_hit_ > 0 ? std::optional(l2_hit_) : std::nullopt);
    evidence["lineSdCycles"] = line_sd_;
    const std::string count_text = "chains over 2.." + std::to_string(top) + " elements " +
                                   std::to_string(stride) + " B apart (one page each, up to " +
                                   bytes_text(top * page) + ")";
    evidence["countSweep"] = {{"stride", stride}, {"tolerance", tolerance_}, {"points", raw}};

    std::vector<Level> levels;
    for (std::size_t k = 0; k < plateaus.size() && static_cast<int>(levels.size()) < kMaxLevels;
         ++k) {
      const auto& low = plateaus[k];
      if (low.last + 1 >= sweep.size()) break;
      const bool has_high = k + 1 < plateaus.size();
      if (!has_high && sweep.back().cycles <= low.cycles + 2 * tolerance_) break;
      Level level;
      if (has_high) {
        level.above = plateaus[k + 1].cycles;
        level.above_error = run_error(sweep, plateaus[k + 1].first, plateaus[k + 1].last, line_sd_);
      }
      const std::size_t hi_at = has_high ? plateaus[k + 1].first : sweep.size() - 1;
      search_step(ctx, sweep, low, hi_at, stride, level);
      if (!levels.empty()) level.coverage = measure_coverage(ctx, level, page, memory);
      levels.push_back(std::move(level));
    }

    const std::string method =
        "dependent chains of global loads through the L2 (ld.global.cg) on SM " +
        std::to_string(kLatencySm) +
        ", timed in short segments less those a slow load threw high, "
        "every line an L2 hit: " +
        count_text + "; a level is a step of the latency over the element count";
    if (levels.empty()) {
      not_established(ctx,
                      "no latency step in " + count_text + ": every TLB level holds more than " +
                          std::to_string(top) + " pages of " + bytes_text(page) + limit_note,
                      evidence, true);
      return;
    }
    put_count(ctx, levels, method, full ? "" : std::to_string(top), evidence);
    for (std::size_t k = 0; k < levels.size(); ++k)
      put_level(ctx, static_cast<int>(k + 1), levels[k], page, method);
    for (int k = static_cast<int>(levels.size()) + 1; k <= kMaxLevels; ++k)
      ctx.put(element(k), keys::entries,
              model::Attribute::unavailable(model::Source::Measured, "",
                                            "no level " + std::to_string(k) + ": " +
                                                std::to_string(levels.size()) + " steps in " +
                                                count_text + limit_note));
    sharing(ctx, levels.front().first_rise - 1, page);
  }

  // A level's first miss and where every load misses, searched between the sweep's points `low`
  // (a plateau) and `hi_at`. The searches compare like with like: chains at either end of the
  // step, each chased alone as the search's are, so that every chain holds the shorter ones' lines
  // (chase_alone). The search starts from a chain that holds every page: a plateau whose first
  // point a few slow lines set high can take in the step's first points (an H200 took 16 and 23
  // pages into one starting at 3, 6 cycles above its neighbours), so the lower end steps back
  // while its chain lies above half the step.
  void search_step(Context& ctx, const std::vector<SweepPoint>& sweep, const Plateau& low,
                   std::size_t hi_at, std::uint64_t stride, Level& level) {
    const double half = (low.cycles + level.above.value_or(sweep[hi_at].cycles)) / 2;
    std::size_t lo_at = low.last;
    auto below = chase_alone(ctx, sweep[lo_at].count, stride);
    while (below.cycles > half && lo_at > low.first)
      below = chase_alone(ctx, sweep[--lo_at].count, stride);
    std::vector<double> held;
    for (std::size_t i = low.first; i <= lo_at; ++i) held.push_back(sweep[i].cycles);
    level.below = analysis::median(held);
    const std::uint64_t lo = sweep[lo_at].count;
    level.first_rise = boundary(ctx, lo, sweep[hi_at].count, stride, {below, lo, true},
                                [&](double y, double noise) { return y > below.cycles + noise; });
    level.first_noise =
        rise_noise({below, lo, true}, search_loads(level.first_rise), level.first_rise);
    if (!level.above) return;
    const std::uint64_t hi = sweep[hi_at].count;
    const auto above = chase_alone(ctx, hi, stride);
    level.full_rise = boundary(ctx, level.first_rise - 1, hi, stride, {above, hi, true},
                               [&](double y, double noise) { return y >= above.cycles - noise; });
  }

  // tlb.tlbLevels. The steps stand on the segments that survived the slow loads: past a quarter
  // left out in some chain, less so (analysis::outlier_confidence). `quick_top`: the quick run's
  // page limit ("" at full depth).
  void put_count(Context& ctx, const std::vector<Level>& levels, const std::string& method,
                 const std::string& quick_top, model::Json& evidence) const {
    const bool ended_in_rise = !levels.back().above;
    evidence["worstOutlierShare"] = worst_outliers_;
    auto count = model::Attribute::measured(
        static_cast<std::uint64_t>(levels.size()), "", method,
        (ended_in_rise ? 0.4 : 0.9) * analysis::outlier_confidence(worst_outliers_));
    count.evidence = evidence;
    if (!quick_top.empty())
      count.evidence["note"] = "levels holding more than " + quick_top + " pages need --depth full";
    ctx.put("tlb", keys::tlbLevels, count);
  }

  // Runs the batch with its largest arrays first, so that the backend allocates its array memory
  // once per batch rather than at every larger array; results come back in the batch's order.
  static device::ChaseBatchResult chase_largest_first(Context& ctx,
                                                      const device::ChaseBatch& batch) {
    std::vector<std::size_t> order(batch.requests.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      return batch.requests[a].array_bytes > batch.requests[b].array_bytes;
    });
    device::ChaseBatch sorted = batch;
    for (std::size_t i = 0; i < order.size(); ++i) sorted.requests[i] = batch.requests[order[i]];
    auto result = ctx.chase(sorted);
    auto results = result.results;
    for (std::size_t i = 0; i < order.size(); ++i) result.results[order[i]] = results[i];
    return result;
  }

  static std::string element(int k) { return "tlb" + std::to_string(k); }

  // A chain over `count` elements, warmed once, timing at least `loads` loads and, with
  // `whole_pass`, at least one pass (so that a level that misses in a few of its sets shows in
  // full).
  static device::ChaseRequest request(std::uint64_t count, std::uint64_t stride,
                                      std::uint64_t loads = 2048, bool whole_pass = true) {
    const auto timed =
        std::min<std::uint64_t>(whole_pass ? std::max(loads, count) : loads, kMaxTimedLoads);
    auto r = chain_request(Space::L2, count * stride, static_cast<std::uint32_t>(stride), 1,
                           static_cast<std::uint32_t>(timed));
    r.sm = kLatencySm;
    return r;
  }
  // Cycles per load. The chain's short segments less those a rare slow load threw high (at most
  // as many as the reference's share of them allows: analysis::high_trimmed) are averaged in
  // windows of kChainSegmentLoads loads, and the lower quartile of the windows is the latency: a
  // level missing in a few of its sets lengthens every window alike, a few lines that the L2
  // loses lengthen a few windows, which the quartile leaves out. The share of segments left out is
  // kept as the evidence's worst.
  double cycles_of(const device::ChaseResult& r) {
    const auto s = segment_latencies(r);
    if (s.empty()) return 0;
    const auto level = analysis::high_trimmed(
        s, 4.0, 0.01, analysis::outlier_allowance(s.size(), reference_outliers_));
    worst_outliers_ = std::max(worst_outliers_, level.outlier_share);
    auto sorted = s;
    std::sort(sorted.begin(), sorted.end());
    const double highest_kept = sorted[std::max<std::size_t>(level.clean, 1) - 1];
    const std::size_t per_window =
        std::max<std::size_t>(1, device::kChainSegmentLoads / segment_loads_of(r));
    std::vector<double> windows;
    for (std::size_t w = 0; w < s.size(); w += per_window) {
      double sum = 0;
      int kept = 0;
      for (std::size_t k = w; k < std::min(s.size(), w + per_window); ++k)
        if (s[k] <= highest_kept) sum += s[k], ++kept;
      if (kept > 0) windows.push_back(sum / kept);
    }
    return analysis::quantile(windows, 0.25);
  }
  // A chain's recurring mean (recurring_mean) and the loads it timed. The share it leaves out
  // stays out of the evidence's worst: in a search chain the segments that a partial onset
  // throws high without recurring are no sign of slow loads.
  struct Reference {
    double cycles = 0;
    double loads = 0;
  };
  static Reference reference(const device::ChaseResult& r, std::uint64_t elements) {
    const auto m = recurring_mean(segment_latencies(r), segment_loads_of(r), elements);
    return {m.cycles, static_cast<double>(m.segments * segment_loads_of(r))};
  }
  // Four standard errors (from the spread of the L2-hit reference), at least kLeastStep, of the
  // difference of two recurring means that timed `loads` and `other_loads` loads.
  double step_noise(double loads, double other_loads) const {
    return std::max(kLeastStep, 4 * load_sd_ * std::sqrt(1 / loads + 1 / other_loads));
  }
  // What a search compares its chains with: a chain's mean, its elements, and whether it started
  // at the search chains' address (a longer chain then holds its lines).
  struct Against {
    Reference chain;
    std::uint64_t elements = 0;
    bool same_start = false;
  };
  // step_noise, with the spread of the L2's line latencies over the lines the two chains do not
  // share: a mean over n lines varies by line_sd_ / sqrt(n) with the lines it holds.
  double rise_noise(const Against& ref, double loads, std::uint64_t elements) const {
    const double m = static_cast<double>(std::max<std::uint64_t>(ref.elements, 1));
    const double n = static_cast<double>(std::max<std::uint64_t>(elements, 1));
    const double lines = ref.same_start ? std::abs(1 / m - 1 / n) : 1 / m + 1 / n;
    const double timing = load_sd_ * std::sqrt(1 / loads + 1 / ref.chain.loads);
    return std::max(kLeastStep, 4 * std::sqrt(timing * timing + line_sd_ * line_sd_ * lines));
  }
  static double search_loads(std::uint64_t count) {
    return static_cast<double>(std::max<std::uint64_t>(4096, 3 * count));
  }
  // The smallest count in (lo, hi] whose recurring mean meets `rises(cycles, noise)`; `hi` is
  // taken to meet it. Each chain times three passes (at least 4096 loads), so that a segment's
  // loads are timed again in two other passes; `noise` is rise_noise against `ref`.
  template <class Pred>
  std::uint64_t boundary(Context& ctx, std::uint64_t lo, std::uint64_t hi, std::uint64_t stride,
                         const Against& ref, Pred rises) {
    while (hi - lo > 1) {
      const std::uint64_t mid = lo + (hi - lo) / 2;
      const auto chain = chase_alone(ctx, mid, stride);
      if (rises(chain.cycles, rise_noise(ref, chain.loads, mid)))
        hi = mid;
      else
        lo = mid;
    }
    return hi;
  }
  // A chain of `count` elements in a batch of its own, timing three passes (at least 4096 loads).
  // Alone in its batch, every such chain starts at the same address: a longer one holds a shorter
  // one's lines, so two differ by their translation and by the lines the longer adds alone. Chains
  // of other lines differ by more: the L2 answers some lines up to 30 cycles sooner than others
  // (Hopper), which over ten lines moves a mean by the few cycles of a set's first misses.
  Reference chase_alone(Context& ctx, std::uint64_t count, std::uint64_t stride) {
    device::ChaseBatch b;
    b.requests.push_back(request(count, stride, static_cast<std::uint64_t>(search_loads(count))));
    ctx.expect_batches(1);
    return reference(ctx.chase(b).results.front(), count);
  }
  // The standard deviation of one line's L2-hit latency about the mean, from the sweep's chains of
  // the same pages at two offsets (other lines) below the first step: their difference over n
  // lines varies by line_sd * sqrt(2 / n).
  static double line_spread(const std::vector<SweepPoint>& sweep, const Plateau& low) {
    double sum = 0;
    std::size_t n = 0;
    for (std::size_t i = low.first; i <= low.last; ++i, ++n)
      sum += sweep[i].apart * sweep[i].apart * static_cast<double>(sweep[i].count) / 2;
    return n > 0 ? std::sqrt(sum / static_cast<double>(n)) : 0;
  }

  void not_established(Context& ctx, const std::string& why, const model::Json& evidence,
                       bool page_known = false) {
    auto a = model::Attribute::unavailable(model::Source::Measured, "", why);
    a.evidence = evidence;
    ctx.put("tlb", keys::tlbLevels, a);
    if (!page_known)
      ctx.put("tlb", keys::pageSize,
              model::Attribute::unavailable(model::Source::Measured, "B", why));
    for (int k = 1; k <= kMaxLevels; ++k)
      ctx.put(element(k), keys::entries,
              model::Attribute::unavailable(model::Source::Measured, "", why));
  }

  // Whether a later level's entries cover several of the first level's pages, on which it was
  // counted: where its step falls at a stride of 3 pages, or of 1.5 where arrays past the steps
  // expected at 3 do not fit in `memory` (tlb_coverage.hpp).
  Coverage measure_coverage(Context& ctx, Level& l, std::uint64_t page, std::uint64_t memory) {
    const std::uint64_t n = l.first_rise - 1;
    model::Json tests = model::Json::array();
    // Each stride with the two offsets of the sweeps (one and nine L2 lines), the one whose longest
    // chain is faster searched: an offset can crowd the L2's index at these strides, and its lines'
    // misses would pass for translation.
    auto test = [&](std::uint64_t pages_x2, double from, double to, double needed) {
      StrideTest t;
      const std::uint64_t base = page * pages_x2 / 2;
      const auto lo = static_cast<std::uint64_t>(from * static_cast<double>(n));
      const auto hi = std::min(static_cast<std::uint64_t>(to * static_cast<double>(n)) + 1,
                               memory / (base + 9 * offset_));
      t.tested = base + 9 * offset_ <= UINT32_MAX && lo >= 2 &&
                 static_cast<double>(hi) >= needed * static_cast<double>(n);
      model::Json json = {
          {"stridePages", static_cast<double>(pages_x2) / 2}, {"from", lo}, {"to", hi}};
      if (t.tested) {
        device::ChaseBatch b;
        for (const auto o : {offset_, 9 * offset_})
          for (const auto count : {lo, hi})
            b.requests.push_back(
                request(count, base + o, std::max<std::uint64_t>(4096, 3 * count)));
        ctx.expect_batches(1);
        const auto r = chase_largest_first(ctx, b);
        const std::array<Reference, 2> longest = {reference(r.results[1], hi),
                                                  reference(r.results[3], hi)};
        const std::size_t nine = longest[1].cycles < longest[0].cycles ? 1 : 0;
        const std::uint64_t stride = base + (nine ? 9 * offset_ : offset_);
        const auto below = reference(r.results[2 * nine], lo);
        const auto& above = longest[nine];
        json["stride"] = stride;
        json["cycles"] = {below.cycles, above.cycles};
        if (above.cycles > below.cycles + step_noise(below.loads, above.loads))
          t.first_miss = boundary(ctx, lo, hi, stride, {below, lo, false},
                                  [&](double y, double e) { return y > below.cycles + e; });
      }
      json["firstMiss"] = t.first_miss ? model::Json(*t.first_miss) : model::Json();
      tests.push_back(json);
      return t;
    };
    const StrideTest three = test(6, 0.2, 1.125, 0.6);
    const StrideTest one_and_a_half = three.tested ? StrideTest{} : test(3, 0.5, 1.125, 0.77);
    const Coverage c = read_coverage(n, one_and_a_half, three);
    l.evidence["coverageTests"] = tests;
    l.evidence["entryCoversPages"] = c.pages;
    l.evidence["atLeast"] = c.at_least;
    return c;
  }

  // The level's entries and reach. Consecutive pages fill S sets of W ways in turn: the first
  // miss comes at S x W + 1 pages and every load misses from S x (W + 1). Where the pages between
  // the two divide the entries into whole sets (a fully associative level: one), that model
  // explains the ramp and the first miss counts the entries. Two sets do not: either search's
  // boundary may sit one element off, which makes a fully associative level read as two sets.
  // Otherwise the count depends on where the pages fall (a hashed index, pseudo-LRU): the level
  // held every one of first - 1 pages and could not hold all - 1, each count in between about as
  // likely, so the first miss's count is a lower bound with confidence 1 / (the counts it could
  // be). Hopper's first level reads one set (15 entries) or two (14 and 7 ways) from run to run.
  template <class Put>
  void put_entries(const Put& put, std::uint64_t entries, std::uint64_t page, const Level& l,
                   bool whole_sets, const std::string& method) const {
    const double established = 0.9 * analysis::outlier_confidence(worst_outliers_);
    auto count = model::Attribute::measured(entries, "", method, established);
    auto reach = model::Attribute::measured(entries * page, "B", "entries x pageSize", established);
    if (!whole_sets && l.full_rise && *l.full_rise > l.first_rise) {
      const std::uint64_t most = (*l.full_rise - 1) / l.coverage.pages;
      const double share = 1.0 / static_cast<double>(most - entries + 1);
      count.confidence = established * share;
      reach.confidence = established * share;
      count.interval = model::Interval{static_cast<double>(entries), static_cast<double>(most)};
      reach.interval =
          model::Interval{static_cast<double>(entries * page), static_cast<double>(most * page)};
      count.reason = reach.reason =
          "the first miss (" + std::to_string(l.first_rise) + " pages) and every load missing (" +
          std::to_string(*l.full_rise) +
          ") leave the sets open: the count depends on where the pages fall, or a boundary sits "
          "one element off, between " +
          std::to_string(entries) + " and " + std::to_string(most);
    }
    if (l.coverage.at_least) {
      // Larger entries hold fewer: the count is at most this; the reach stands.
      count.confidence = *count.confidence * 0.5;
      if (!count.interval) count.interval = model::Interval{1, static_cast<double>(entries)};
      count.reason = "at most: entries of " + std::to_string(2 * l.coverage.pages) +
                     " first-level pages or more could not be ruled out (arrays past the memory)";
    }
    put(keys::entries, std::move(count));
    put(keys::reach, std::move(reach));
  }

  // A level's page: the first level's, times the pages its entries cover where a later level's
  // step moved with the stride (measure_coverage); a lower bound where larger could not be tested.
  template <class Put>
  static void put_page(const Put& put, std::uint64_t page, const Coverage& c) {
    const std::uint64_t bytes = page * c.pages;
    auto a = model::Attribute::measured(
        bytes, "B",
        c.pages == 1 ? "the page of the stride sweep (tlb.pageSize): the level's step was "
                       "counted at one element a page"
                     : "the stride sweep's page times the pages an entry covers: the level's "
                       "step falls at 2/3 of its count at strides of 1.5 pages (and half at 3)",
        c.at_least ? 0.4 : 0.8);
    if (c.at_least) {
      a.interval =
          model::Interval{static_cast<double>(bytes), std::numeric_limits<double>::infinity()};
      a.reason = "at least: a stride of 3 pages needs arrays past the memory";
    }
    put(keys::pageSize, std::move(a));
  }

  void put_level(Context& ctx, int k, const Level& l, std::uint64_t page,
                 const std::string& method) {
    const std::string e = element(k);
    auto evidence = l.evidence;
    evidence["firstMissElements"] = l.first_rise;
    evidence["firstMissNoiseCycles"] = l.first_noise;
    if (l.full_rise) evidence["allMissElements"] = *l.full_rise;
    evidence["hitCycles"] = l.below;
    if (k == 1 && l2_hit_ > 0) evidence["l2HitCycles"] = l2_hit_;
    if (l.above) evidence["missCycles"] = *l.above;
    const auto put = [&](const model::Key& key, model::Attribute a) {
      a.evidence = evidence;
      ctx.put(e, key, std::move(a));
    };
    const std::uint64_t pages = l.coverage.pages;
    put_page(put, page, l.coverage);
    // Sets and ways as counted at one first-level page an element: an entry of several pages
    // takes that many consecutive elements, which scales the sets and the count alike.
    const std::uint64_t counted = l.first_rise - 1;
    const std::uint64_t sets = l.full_rise ? *l.full_rise - l.first_rise + 1 : 0;
    const bool divides = sets > 0 && sets != 2 && counted % sets == 0;
    // Sets fill in turn, so at the first miss only the first set's ways + 1 pages miss: a rise the
    // search could not have told from its noise there was not that set, and the reading fails.
    const double first_set_rise = divides && l.above
                                      ? static_cast<double>(counted / sets + 1) /
                                            static_cast<double>(l.first_rise) * (*l.above - l.below)
                                      : 0;
    const bool whole_sets = divides && first_set_rise >= l.first_noise;
    put_entries(put, counted / pages, page * pages, l, whole_sets, method);
    if (whole_sets)
      put(keys::associativity,
          model::Attribute::measured(counted / sets, "",
                                     "entries / sets; sets: elements between the first miss and "
                                     "every load missing (consecutive pages fill the sets in turn)",
                                     0.8));
    else {
      std::string why = "the onset of misses does not divide the entries into whole sets";
      if (!l.above)
        why = "the sweep ended before every load missed";
      else if (sets == 2)
        why =
            "one element from the first miss to every load missing: two sets, or one set with a "
            "boundary one element off";
      else if (divides)
        why = fmt::format(
            "the onset divides the entries into whole sets, but the first set's misses would add "
            "{:.1f} cycles at the first miss, under the {:.1f} the search needed to see a rise "
            "there",
            first_set_rise, l.first_noise);
      put(keys::associativity, model::Attribute::unavailable(model::Source::Measured, "", why));
    }
    put(keys::missPenalty, miss_penalty(k, l, pages));
  }

  // tlbN.missPenalty: the plateau after the step minus the one before, an entry of several pages
  // missing once for that many elements. The first level's hits are the L2's over the stride
  // sweep's long chains: the count sweep's plateau below the step averages 2-11 lines, whose L2
  // hits move with where a run's arrays fall (an H200 read it 270 cycles in three runs and 276-279
  // in two, against 281.4-281.8 over the long chains), while the plateau above averages 16 lines or
  // more. The interval is where a repeat run would put it (docs/methods.md, "Intervals"): the first
  // level's from the standard errors of the plateau after and of the long chains' hit; a deeper
  // level's, whose plateau before averages few lines too, twice the plateau tolerance.
  model::Attribute miss_penalty(int k, const Level& l, std::uint64_t pages) const {
    if (!l.above)
      return model::Attribute::unavailable(model::Source::Measured, "cycles",
                                           "the sweep ended before every load missed");
    const bool long_chains = k == 1 && l2_hit_ > 0;
    const double step = (*l.above - (long_chains ? l2_hit_ : l.below)) * static_cast<double>(pages);
    auto penalty = model::Attribute::measured(
        step, "cycles",
        long_chains ? "latency once every load misses the level (chains) minus an L2 hit over the "
                      "stride sweep's long chains, times the first-level pages an entry covers"
                    : "latency once every load misses the level minus while it holds every page "
                      "(chains), times the first-level pages an entry covers",
        l.coverage.at_least ? 0.45 : 0.9);
    const double spread =
        (long_chains ? 1.96 * std::sqrt(2.0) * std::hypot(l.above_error, l2_hit_error_)
                     : 2 * tolerance_) *
        static_cast<double>(pages);
    penalty.interval = model::Interval{step - spread, step + spread};
    return penalty;
  }

  // The sharing test's batch, or nullopt with tlb1.sharedWith saying that the device refused it:
  // the levels stand (a level of thousands of large pages needs arrays past what the backend's
  // interference chase indexes).
  static std::optional<device::ChaseBatchResult> interfere_or_say(
      Context& ctx, const device::InterferenceBatch& batch) {
    ctx.expect_batches(1);
    try {
      return ctx.interfere(batch);
    } catch (const device::Error& e) {
      if (e.kind() != device::Error::Kind::BadRequest) throw;
      ctx.put(
          "tlb1", keys::sharedWith,
          model::Attribute::unavailable(model::Source::Measured, "",
                                        std::string("the device refused the test: ") + e.what()));
      return std::nullopt;
    }
  }

  // Whether the L1-family and constant paths use the first level: A (global loads through the
  // L2) holds half the level's entries; B chases twice the entries' pages in another space; A
  // timed again misses where B evicted its translations. References: B in A's own space (shared)
  // and B over one page.
  void sharing(Context& ctx, std::uint64_t entries, std::uint64_t page) {
    const std::uint64_t s = page + offset_;
    const std::uint64_t a_count = std::max<std::uint64_t>(1, entries / 2);
    const std::uint64_t b_count = 2 * entries + 2;
    const auto make = [&](Space space, std::uint64_t n) {
      device::InterferenceRequest r;
      r.a = one_pass_request(Space::L2, a_count * s, static_cast<std::uint32_t>(s));
      r.b = one_pass_request(space, n * s, static_cast<std::uint32_t>(s));
      r.sm = kLatencySm;
      return r;
    };
    std::vector<Space> spaces;
    model::Json skipped = model::Json::object();
    for (const Space space : {Space::L1, Space::ReadOnly, Space::Texture}) {
      if (space == Space::Texture && b_count * s > kTextureBytes) {
        skipped["texture"] =
            "B's array would exceed a linear texture (" + bytes_text(kTextureBytes) + ")";
        continue;
      }
      spaces.push_back(space);
    }
    const std::uint64_t constant_pages = ctx.info().constant_bytes() / page;
    if (constant_pages >= b_count)
      spaces.push_back(Space::Constant);
    else
      skipped["constant"] = "the constant bank (" + bytes_text(ctx.info().constant_bytes()) +
                            ") spans " + std::to_string(constant_pages) + " pages of " +
                            bytes_text(page) + ", fewer than the " + std::to_string(b_count) +
                            " needed to evict the level";
    device::InterferenceBatch batch;
    batch.requests.push_back(make(Space::L2, 1));
    batch.requests.push_back(make(Space::L2, b_count));
    for (const Space space : spaces) {
      auto r = make(space, b_count);
      if (space == Space::Constant) {  // the bank holds whole pages: chase one element a page
        r.b.stride_bytes = static_cast<std::uint32_t>(page);
        r.b.array_bytes = b_count * page;
        r.b.recorded_loads = static_cast<std::uint32_t>(std::min<std::uint64_t>(b_count, 4096));
      }
      batch.requests.push_back(r);
    }
    const auto interfered = interfere_or_say(ctx, batch);
    if (!interfered) return;
    const auto& result = *interfered;
    const auto median = [&](std::size_t i) {
      auto v = latencies(result.results[i]);
      return v.empty() ? 0.0 : analysis::quantile(v, 0.5);
    };
    const double kept = median(0);
    const double evicted = median(1);
    model::Json evidence = {{"keptCycles", kept}, {"evictedCycles", evicted}};
    if (evicted - kept < tolerance_) {
      auto a = model::Attribute::unavailable(
          model::Source::Measured, "",
          "global loads over twice the entries did not evict the level's translations");
      a.evidence = evidence;
      ctx.put("tlb1", keys::sharedWith, a);
      return;
    }
    model::Json with = model::Json::array();
    model::Json by_space = model::Json::object();
    for (std::size_t i = 0; i < spaces.size(); ++i) {
      const double y = median(i + 2);
      by_space[std::string(device::to_string(spaces[i]))] = y;
      if (y > (kept + evicted) / 2) with.push_back(std::string(device::to_string(spaces[i])));
    }
    evidence["cyclesBySpace"] = by_space;
    if (!skipped.empty()) evidence["notEstablished"] = skipped;
    auto a = model::Attribute::measured(
        with, "",
        "interference: global loads over half the entries, then B's loads over twice the entries "
        "in another space, then the global loads timed again; a space shares the level when B "
        "evicts A's translations",
        0.8);
    a.evidence = evidence;
    ctx.put("tlb1", keys::sharedWith, a);
  }

  std::uint64_t offset_ = 128;
  double tolerance_ = 2;
  double load_sd_ = 0;       // standard deviation of one L2-hit load, from the reference chain
  double line_sd_ = 0;       // of one line's L2-hit latency about the mean (line_spread)
  double l2_hit_ = 0;        // the stride sweep's L2 hit over its long chains (excess)
  double l2_hit_error_ = 0;  // its standard error
  double reference_outliers_ = 0;  // share of the reference's segments a slow load threw high
  double worst_outliers_ = 0;      // the largest share any chain left out
};

}  // namespace

GPUTOPO_REGISTER_PROBE(Family::Tlb, 10, Made::Once,
                       [](const Site&) { return std::make_unique<TlbProbe>(); });

}  // namespace gputopo::discovery
