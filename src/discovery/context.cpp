#include "discovery/context.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <stdexcept>
#include <thread>

#include "analysis/summary.hpp"
#include "device/startup_trace.hpp"
#include "discovery/chase_latencies.hpp"
#include "discovery/probe.hpp"
#include "model/run_noise.hpp"

namespace gputopo::discovery {
namespace {
constexpr int kBatchReruns = 2;  // re-runs of a batch during which the SM clock changed
}  // namespace

void backoff(double base_s, int rerun) {
  if (base_s <= 0) return;
  std::this_thread::sleep_for(std::chrono::duration<double>(base_s * (1 << rerun)));
}

Context::Context(device::Device& device, const Options& options, Progress& progress,
                 const std::atomic<bool>* interrupted)
    : device_(device),
      options_(options),
      progress_(progress),
      interrupted_(interrupted),
      start_(std::chrono::steady_clock::now()) {}

std::optional<std::string> Context::stop_reason() const {
  if (interrupted_ && interrupted_->load(std::memory_order_relaxed)) return "interrupted";
  if (options_.time_budget_s) {
    const std::chrono::duration<double> used = std::chrono::steady_clock::now() - start_;
    if (used.count() > *options_.time_budget_s) return "time budget exhausted";
  }
  if (busy_budget_spent()) return "GPU busy past the busy budget (" + busy_why_ + ")";
  return std::nullopt;
}

bool Context::busy_budget_spent() const {
  return busy_deadline_ && std::chrono::steady_clock::now() > *busy_deadline_;
}

void Context::set_busy_deadline(std::optional<std::chrono::steady_clock::time_point> deadline,
                                std::string why) {
  busy_deadline_ = deadline;
  busy_why_ = std::move(why);
}

void Context::check_stop() const {
  if (auto why = stop_reason()) throw Stopped{*why};
}

void Context::begin_phase(std::string_view name, std::size_t index, std::size_t count) {
  done_batches_ = 0;
  expected_batches_ = 0;
  device_.begin_phase(name);
  progress_.begin(name, index, count);
}

void Context::step() {
  ++done_batches_;
  progress_.advance(done_batches_, std::max(done_batches_, expected_batches_));
}

template <class Run>
auto Context::steady(Run&& run, const char* what) {
  const auto t0 = std::chrono::steady_clock::now();
  auto result = run();
  ++calls_;
  device::trace_call(probe_ != nullptr ? probe_->name().c_str() : "-", what,
                     std::chrono::steady_clock::now() - t0, result.conditions.elapsed_ns);
  // Conditions changed within the span even when a re-run is steady: the span is judged again.
  if (result.conditions.clock_changed && batch_disturbance_.empty())
    batch_disturbance_ = std::string("the SM clock changed during a ") + what;
  for (int rerun = 0; result.conditions.clock_changed; ++rerun) {
    if (rerun == kBatchReruns) {
      batch_disturbance_ = std::string("the SM clock changed during a ") + what + " in " +
                           std::to_string(kBatchReruns + 1) + " runs";
      break;
    }
    backoff(options_.retry_backoff_s, rerun);
    result = run();
    ++calls_;
  }
  return result;
}

device::ChaseBatchResult Context::chase(const device::ChaseBatch& batch) {
  check_stop();
  auto result = steady([&] { return device_.chase(batch); }, "chase batch");
  if (result.conditions.clock_changed) warn("SM clock changed during a chase batch");
  record_sweep(batch, result);
  step();
  return result;
}

void Context::record_sweep(const device::ChaseBatch& batch,
                           const device::ChaseBatchResult& result) {
  if (probe_ == nullptr || !options_.sweeps) return;
  model::Sweep sweep;
  sweep.probe = probe_->name();
  for (const auto& w : probe_->writes()) sweep.writes.emplace_back(w.element, w.key->str());
  for (std::size_t i = 0; i < batch.requests.size() && i < result.results.size(); ++i) {
    const auto& request = batch.requests[i];
    const auto& r = result.results[i];
    const std::vector<double> loads =
        device::chain_timed(request) ? segment_latencies(r) : latencies(r);
    if (loads.empty()) continue;
    if (sweep.space.empty()) sweep.space = std::string(device::to_string(request.space));
    static constexpr std::array<double, 3> kShown = {0.1, 0.5, 0.9};
    const auto q = analysis::quantiles(loads, kShown);
    sweep.points.push_back({static_cast<double>(request.array_bytes),
                            static_cast<double>(request.stride_bytes), r.sm, q[1], q[0], q[2]});
  }
  if (!sweep.points.empty()) sweeps_.push_back(std::move(sweep));
}

device::ChaseBatchResult Context::interfere(const device::InterferenceBatch& batch) {
  check_stop();
  auto result = steady([&] { return device_.interfere(batch); }, "interference batch");
  if (result.conditions.clock_changed) warn("SM clock changed during an interference batch");
  step();
  return result;
}

device::StreamResult Context::stream(const device::StreamRequest& request) {
  check_stop();
  auto result = steady([&] { return device_.stream(request); }, "bandwidth run");
  if (result.conditions.clock_changed) warn("SM clock changed during a bandwidth run");
  step();
  return result;
}

device::ReadRateResult Context::read_rate(const device::ReadRateRequest& request) {
  check_stop();
  auto result = steady([&] { return device_.read_rate(request); }, "read-rate run");
  if (result.conditions.clock_changed) warn("SM clock changed during a read-rate run");
  step();
  return result;
}

device::ReductionResult Context::reductions(const device::ReductionRequest& request) {
  check_stop();
  auto result = steady([&] { return device_.reductions(request); }, "reduction run");
  step();
  return result;
}

device::ComputeBatchResult Context::compute(const device::ComputeBatch& batch) {
  check_stop();
  auto result = steady([&] { return device_.compute(batch); }, "compute batch");
  if (result.conditions.clock_changed) warn("SM clock changed during a compute batch");
  step();
  return result;
}

std::vector<std::vector<int>> Context::co_resident_sms(int cluster_size) {
  check_stop();
  auto groups = device_.co_resident_sms(cluster_size);
  ++calls_;
  step();
  return groups;
}

bool Context::strict_findings() {
#ifdef GPUTOPO_STRICT_FINDINGS
  return true;
#else
  return false;
#endif
}

void Context::check_declared([[maybe_unused]] const std::string& element,
                             [[maybe_unused]] const model::Key& key,
                             [[maybe_unused]] bool write) const {
#ifdef GPUTOPO_STRICT_FINDINGS
  if (!probe_) return;
  const Finding f{element, &key};
  const auto has = [&](const std::vector<Finding>& list) {
    return std::find(list.begin(), list.end(), f) != list.end();
  };
  const Finding any_key{element, nullptr};
  const auto& writes = probe_->writes();
  if (has(writes) || std::find(writes.begin(), writes.end(), any_key) != writes.end() ||
      (!write && has(probe_->reads())))
    return;
  throw std::logic_error("probe " + probe_->name() + (write ? " writes " : " reads ") + element +
                         "." + key.str() + " without declaring it");
#endif
}

model::AttributeList Context::reported(model::AttributeList list, std::string_view element) const {
  if (info().simulated) return list;
  const std::string prefix =
      element == "compute" ? "compute." : "memory." + std::string(element) + ".";
  for (auto& [name, a] : list) model::add_run_to_run_noise(a, prefix + name);
  return list;
}

std::map<std::string, model::AttributeList> Context::reported_findings() const {
  std::map<std::string, model::AttributeList> out;
  for (const auto& [element, list] : findings_) out.emplace(element, reported(list, element));
  return out;
}

model::AttributeList Context::reported_compute() const { return reported(compute_, "compute"); }

void Context::put(const std::string& element, const model::Key& key, model::Attribute attribute) {
  check_declared(element, key, true);
  model::settle_interval(attribute, key.name, strict_findings());
  auto& list = findings_[element];
  for (auto& [k, a] : list) {
    if (k == key.name) {
      a = std::move(attribute);
      return;
    }
  }
  list.emplace_back(key.str(), std::move(attribute));
}

const model::Attribute* Context::get(const std::string& element, const model::Key& key) const {
  check_declared(element, key, false);
  const auto it = findings_.find(element);
  return it == findings_.end() ? nullptr : model::find(it->second, key.str());
}

Input Context::input(const std::string& element, const model::Key& key) const {
  Input in;
  const model::Attribute* a = get(element, key);
  if (!a) {
    in.why = element + " " + key.str() + " was not measured";
    return in;
  }
  if (a->value.is_number()) in.value = a->value.get<double>();
  const double confidence = a->confidence.value_or(a->source == model::Source::Api ? 1.0 : 0.0);
  in.established = in.value.has_value() && confidence >= kEstablished;
  if (!in.established)
    in.why = element + " " + key.str() + " " +
             (a->reason.rfind("not established", 0) == 0
                  ? a->reason
                  : "not established" + (a->reason.empty() ? "" : ": " + a->reason));
  return in;
}

void Context::restore(const Snapshot& s) {
  findings_ = s.findings;
  compute_ = s.compute;
  topology_ = s.topology;
  sweeps_.resize(std::min(sweeps_.size(), s.sweeps));
}

namespace {

void demote(model::AttributeList& list, const model::AttributeList* before,
            const std::string& why) {
  for (auto& [key, a] : list) {
    if (a.source != model::Source::Measured && a.source != model::Source::Derived) continue;
    const model::Attribute* old = before ? model::find(*before, key) : nullptr;
    if (old && model::to_json(*old) == model::to_json(a)) continue;
    if (!a.available()) continue;
    if (model::discrete(a)) {
      a.evidence["valueWhileBusy"] = a.value;
      a.value = nullptr;
      a.interval.reset();
      a.no_interval.clear();
      a.reason = "not established (GPU busy: " + why + ")";
    } else {
      a.reason = "GPU busy: " + why + (a.reason.empty() ? "" : "; " + a.reason);
    }
    a.confidence = std::min(a.confidence.value_or(kBusyConfidence), kBusyConfidence);
  }
}

}  // namespace

void Context::demote_since(const Snapshot& s, const std::string& why) {
  for (auto& [element, list] : findings_) {
    const auto it = s.findings.find(element);
    demote(list, it == s.findings.end() ? nullptr : &it->second, why);
  }
  demote(compute_, &s.compute, why);
}

void Context::put_compute(const model::Key& key, model::Attribute attribute) {
  check_declared("compute", key, true);
  model::settle_interval(attribute, key.name, strict_findings());
  for (auto& [k, a] : compute_) {
    if (k == key.name) {
      a = std::move(attribute);
      return;
    }
  }
  compute_.emplace_back(key.str(), std::move(attribute));
}

const model::Attribute* Context::get_compute(const model::Key& key) const {
  check_declared("compute", key, false);
  return model::find(compute_, key.str());
}

void Context::warn(std::string warning) {
  if (std::find(warnings_.begin(), warnings_.end(), warning) == warnings_.end())
    warnings_.push_back(std::move(warning));
}

std::optional<double> Context::ns_per_cycle(const device::RunConditions& c) const {
  if (c.elapsed_ns > 0 && c.elapsed_cycles > 0) return c.elapsed_ns / c.elapsed_cycles;
  if (c.sm_clock_mhz_before && *c.sm_clock_mhz_before > 0) return 1e3 / *c.sm_clock_mhz_before;
  if (info().sm_clock_max_mhz() > 0) return 1e3 / info().sm_clock_max_mhz();
  return std::nullopt;
}

std::string Context::ns_method(const device::RunConditions& c) {
  if (c.elapsed_ns > 0 && c.elapsed_cycles > 0) return "cycles x batch elapsed_ns/elapsed_cycles";
  if (c.sm_clock_mhz_before && *c.sm_clock_mhz_before > 0) return "cycles / measured SM clock";
  return "cycles / maximum SM clock (API)";
}

}  // namespace gputopo::discovery
