#include "discovery/probes/compute/bank_probe.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "device/compute_request.hpp"
#include "discovery/context.hpp"
#include "discovery/probes/compute/compute_batch.hpp"
#include "discovery/probes/compute/pipeline_probe.hpp"
#include "discovery/probes/compute/slope.hpp"
#include "discovery/registry.hpp"

namespace gputopo::discovery {
namespace {

using device::ComputeOp;

// A decision needs the chosen layout to fit every pattern within a quarter of one conflict's cost
// and every other layout to miss some pattern by at least half of one.
constexpr double kFits = 0.25;
constexpr double kMisses = 0.5;

ComputeOp op_for(std::uint32_t access) {
  return access == 8 ? ComputeOp::LdShared64 : ComputeOp::LdShared32;
}

struct Line {
  double latency[2] = {0, 0};   // 4-byte loads, 8-byte loads (their step also holds a VIMNMX)
  double conflict[2] = {0, 0};  // cycles per extra pass, per access size
  double worst = 0;             // the largest misfit of one pattern, in its size's conflicts
};

int group_of(const BankPattern& p) { return p.access_bytes == 8 ? 1 : 0; }

// An 8-byte broadcast is served in one pass but skips the split into wavefronts that every other
// 8-byte pattern pays once (an H100: broadcast 29.5 cycles, 2 passes 32.5, then 2 per pass), so
// it does not sit on the 8-byte line.
bool on_line(const BankPattern& p) { return !(p.access_bytes == 8 && p.stride_bytes == 0); }

// Least squares of cycles = latency[size] + conflict[size] x (passes - 1), a line per access
// size; a size whose patterns all take the same passes borrows the other size's slope.
Line fit_line(const std::vector<double>& cycles, const std::vector<std::uint32_t>& passes) {
  const auto& patterns = bank_patterns();
  double mx[2] = {0, 0}, my[2] = {0, 0}, n[2] = {0, 0}, sxx[2] = {0, 0}, sxy[2] = {0, 0};
  for (std::size_t i = 0; i < cycles.size(); ++i) {
    if (!on_line(patterns[i])) continue;
    const int g = group_of(patterns[i]);
    mx[g] += passes[i] - 1.0;
    my[g] += cycles[i];
    n[g] += 1;
  }
  for (int g = 0; g < 2; ++g)
    if (n[g] > 0) {
      mx[g] /= n[g];
      my[g] /= n[g];
    }
  for (std::size_t i = 0; i < cycles.size(); ++i) {
    if (!on_line(patterns[i])) continue;
    const int g = group_of(patterns[i]);
    const double x = passes[i] - 1.0 - mx[g];
    sxx[g] += x * x;
    sxy[g] += x * (cycles[i] - my[g]);
  }
  Line l;
  for (int g = 0; g < 2; ++g) l.conflict[g] = sxx[g] > 0 ? sxy[g] / sxx[g] : 0;
  for (int g = 0; g < 2; ++g)
    if (!(sxx[g] > 0)) l.conflict[g] = l.conflict[1 - g];
  for (int g = 0; g < 2; ++g) l.latency[g] = my[g] - l.conflict[g] * mx[g];
  if (!(l.conflict[0] > 0) || !(l.conflict[1] > 0)) return l;
  for (std::size_t i = 0; i < cycles.size(); ++i) {
    if (!on_line(patterns[i])) continue;
    const int g = group_of(patterns[i]);
    const double predicted = l.latency[g] + l.conflict[g] * (passes[i] - 1.0);
    l.worst = std::max(l.worst, std::abs(cycles[i] - predicted) / l.conflict[g]);
  }
  return l;
}

}  // namespace

const std::vector<BankPattern>& bank_patterns() {
  static const std::vector<BankPattern> p = {
      {4, 0},   {4, 4},   {4, 8},   {4, 12},  {4, 16},  {4, 20},  {4, 24},  {4, 32},  {4, 36},
      {4, 48},  {4, 64},  {4, 68},  {4, 96},  {4, 128}, {4, 132}, {4, 256}, {4, 260}, {4, 384},
      {4, 512}, {4, 516}, {8, 0},   {8, 8},   {8, 16},  {8, 24},  {8, 32},  {8, 40},  {8, 64},
      {8, 72},  {8, 128}, {8, 136}, {8, 256}, {8, 264}, {8, 512}, {8, 520},
  };
  return p;
}

std::vector<BankLayout> bank_hypotheses() {
  std::vector<BankLayout> h;
  for (std::uint32_t count = 8; count <= 128; count *= 2)
    for (std::uint32_t width = 4; width <= 16; width *= 2) h.push_back({count, width});
  return h;
}

std::optional<BankFit> fit_banks(const std::vector<double>& cycles) {
  const auto& patterns = bank_patterns();
  if (cycles.size() != patterns.size()) return std::nullopt;
  std::optional<BankFit> best;
  std::vector<BankFit> all;
  for (const BankLayout& h : bank_hypotheses()) {
    BankFit f;
    f.layout = h;
    for (const auto& p : patterns)
      f.passes.push_back(
          device::bank_wavefronts(p.access_bytes, p.stride_bytes, h.count, h.width_bytes));
    const Line l = fit_line(cycles, f.passes);
    if (!(l.conflict[0] > 0) || !(l.conflict[1] > 0)) continue;
    f.latency = l.latency[0];
    f.latency64 = l.latency[1];
    f.conflict = l.conflict[0];
    f.residual = l.worst;
    all.push_back(f);
  }
  if (all.empty()) return std::nullopt;
  std::sort(all.begin(), all.end(),
            [](const BankFit& a, const BankFit& b) { return a.residual < b.residual; });
  BankFit chosen = all.front();
  chosen.runner_up = 1e9;
  for (std::size_t i = 1; i < all.size(); ++i)
    if (all[i].passes != chosen.passes) {
      chosen.runner_up = all[i].residual;
      break;
    }
  return chosen;
}

namespace {

// Writes compute.sharedBankCount, sharedBankWidth, sharedConflictCycles and sharedLoadLatency.
class BankProbe final : public Probe {
 public:
  BankProbe() : Probe("sharedBanks", {}) {
    declare({}, {compute(keys::sharedBankCount), compute(keys::sharedBankWidth),
                 compute(keys::sharedConflictCycles), compute(keys::sharedLoadLatency)});
  }

  void run(Context& ctx) override {
    const auto& patterns = bank_patterns();
    std::vector<device::ComputeRequest> items;
    for (const auto& p : patterns)
      items.push_back({op_for(p.access_bytes), kLatencyShortSteps, 1, 1, 1, p.stride_bytes});
    std::string why;
    const auto result = run_compute_batch(
        ctx, two_length_batch(items, kPipelineRepeats, kLatencyShortSteps, kLatencyLongSteps), why);
    if (!result) return put_all_unavailable(ctx, why);
    const device::ComputeBatchResult& r = *result;

    Measured m = costs(r, patterns);
    auto& [cycles, rows, confidence, range] = m;
    const std::size_t n = patterns.size();
    const auto fit = fit_banks(cycles);
    const std::string method =
        "one warp's dependent shared loads (ld.shared, chained through the loaded address) at " +
        std::to_string(n) +
        " lane strides, cycles per load over two chain lengths; every bank layout of 8 to 128 "
        "banks of 4 to 16 B predicts each stride's passes, and the one whose passes fit "
        "latency + conflict x (passes - 1), a line per access size, is taken (Mei & Chu's stride "
        "method)";
    if (!fit) {
      put_all_unavailable(
          ctx, "no stride changed the cost of a shared load: no bank conflict shows", rows);
      return;
    }
    for (std::size_t k = 0; k < n; ++k) rows[k]["ways"] = fit->passes[k];
    if (fit->residual > kFits || fit->runner_up < kMisses) {
      put_all_unavailable(ctx,
                          fit->residual > kFits
                              ? "no bank layout fits the costs of the strides (best misfit " +
                                    std::to_string(fit->residual) + " conflicts)"
                              : "two bank layouts fit the costs of the strides alike",
                          rows);
      return;
    }
    put_fit(ctx, *fit, m, method);
  }

 private:
  struct Measured {
    std::vector<double> cycles;  // per pattern, cycles per load
    model::Json rows;
    double confidence = 1;
    double range = 0;  // the widest range of one pattern's repeats, cycles
  };

  // Cycles per load of each pattern, from the slope over the two chain lengths of every repeat.
  static Measured costs(const device::ComputeBatchResult& r,
                        const std::vector<BankPattern>& patterns) {
    Measured m{{}, model::Json::array(), 1, 0};
    const std::size_t n = patterns.size();
    for (std::size_t k = 0; k < n; ++k) {
      const Slope slope =
          item_slope(r, k, n, kPipelineRepeats, kLatencyShortSteps, kLatencyLongSteps);
      m.cycles.push_back(slope.value);
      m.confidence = std::min(m.confidence, slope.confidence);
      m.range = std::max(m.range, slope.hi - slope.lo);
      m.rows.push_back({{"accessBytes", patterns[k].access_bytes},
                        {"strideBytes", patterns[k].stride_bytes},
                        {"cyclesPerLoad", slope.value},
                        {"perRepeat", slope.per_repeat}});
    }
    return m;
  }

  // The bank layout found, its conflict cost and the conflict-free latency.
  static void put_fit(Context& ctx, const BankFit& fit, const Measured& m,
                      const std::string& method) {
    const auto& [cycles, rows, confidence, range] = m;
    const std::size_t n = cycles.size();
    // How clearly the layout won, next to how well the repeats agreed.
    const double decided = std::clamp((fit.runner_up - fit.residual) / (kMisses + kFits), 0.0, 1.0);
    const double c = std::min(confidence, decided);
    model::Json evidence = {{"patterns", rows},
                            {"worstMisfitConflicts", fit.residual},
                            {"runnerUpWorstMisfitConflicts", fit.runner_up}};

    auto count = model::Attribute::measured(fit.layout.count, "banks", method, c);
    count.interval = model::Interval{static_cast<double>(fit.layout.count),
                                     static_cast<double>(fit.layout.count)};
    count.evidence = evidence;
    auto width = model::Attribute::measured(fit.layout.width_bytes, "B", method, c);
    width.interval = model::Interval{static_cast<double>(fit.layout.width_bytes),
                                     static_cast<double>(fit.layout.width_bytes)};
    width.evidence = {{"see", "sharedBankCount"}};
    auto conflict = model::Attribute::measured(
        fit.conflict, "cycles",
        "slope of cycles per shared load against its passes (the n-way conflict) under the bank "
        "layout found, least squares over the stride sweep",
        confidence);
    model::Json per_way = model::Json::array();
    for (std::size_t k = 0; k < n; ++k)
      per_way.push_back({{"ways", fit.passes[k]}, {"cyclesPerLoad", cycles[k]}});
    conflict.evidence = {{"cyclesByWays", per_way}};
    // Each pattern's cost is known to its repeats' range; the fit's slope and intercept no better.
    conflict.interval = model::Interval{fit.conflict - range, fit.conflict + range};
    auto latency = model::Attribute::measured(
        fit.latency, "cycles",
        "intercept of the same fit for 4-byte loads: a conflict-free (or broadcast) shared load's "
        "latency",
        confidence);
    latency.interval = model::Interval{fit.latency - range, fit.latency + range};
    latency.evidence = {{"eightByteStepCycles", fit.latency64},
                        {"eightByteStep", std::string("LDS.64 + VIMNMX (both words used)")}};
    ctx.put_compute(model::keys::sharedBankCount, std::move(count));
    ctx.put_compute(model::keys::sharedBankWidth, std::move(width));
    ctx.put_compute(model::keys::sharedConflictCycles, std::move(conflict));
    ctx.put_compute(model::keys::sharedLoadLatency, std::move(latency));
  }

  static void put_all_unavailable(Context& ctx, const std::string& why,
                                  model::Json rows = nullptr) {
    using namespace model::keys;
    for (const model::Key* key :
         {&sharedBankCount, &sharedBankWidth, &sharedConflictCycles, &sharedLoadLatency}) {
      auto a = model::Attribute::unavailable(model::Source::Measured, std::string(key->unit), why);
      if (!rows.is_null()) a.evidence = {{"patterns", rows}};
      ctx.put_compute(*key, std::move(a));
    }
  }
};

}  // namespace

GPUTOPO_REGISTER_PROBE(Family::Compute, 20, Made::Once,
                       [](const Site&) { return std::make_unique<BankProbe>(); });

}  // namespace gputopo::discovery
