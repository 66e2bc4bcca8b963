#include "discovery/context.hpp"

#include <algorithm>

namespace gputopo::discovery {

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
  return std::nullopt;
}

void Context::check_stop() const {
  if (auto why = stop_reason()) throw Stopped{*why};
}

void Context::begin_phase(std::string_view name, std::size_t index, std::size_t count) {
  done_batches_ = 0;
  expected_batches_ = 0;
  progress_.begin(name, index, count);
}

void Context::step() {
  ++done_batches_;
  progress_.advance(done_batches_, std::max(done_batches_, expected_batches_));
}

device::ChaseBatchResult Context::chase(const device::ChaseBatch& batch) {
  check_stop();
  auto result = device_.chase(batch);
  if (result.conditions.clock_changed) warn("SM clock changed during a chase batch");
  step();
  return result;
}

device::ChaseBatchResult Context::interfere(const device::InterferenceBatch& batch) {
  check_stop();
  auto result = device_.interfere(batch);
  if (result.conditions.clock_changed) warn("SM clock changed during an interference batch");
  step();
  return result;
}

device::StreamResult Context::stream(const device::StreamRequest& request) {
  check_stop();
  auto result = device_.stream(request);
  if (result.conditions.clock_changed) warn("SM clock changed during a bandwidth run");
  step();
  return result;
}

std::vector<std::vector<int>> Context::co_resident_sms(int cluster_size) {
  check_stop();
  auto groups = device_.co_resident_sms(cluster_size);
  step();
  return groups;
}

void Context::put(const std::string& element, const std::string& key, model::Attribute attribute) {
  auto& list = findings_[element];
  for (auto& [k, a] : list) {
    if (k == key) {
      a = std::move(attribute);
      return;
    }
  }
  list.emplace_back(key, std::move(attribute));
}

const model::Attribute* Context::get(const std::string& element, const std::string& key) const {
  const auto it = findings_.find(element);
  return it == findings_.end() ? nullptr : model::find(it->second, key);
}

Input Context::input(const std::string& element, const std::string& key) const {
  Input in;
  const model::Attribute* a = get(element, key);
  if (!a) {
    in.why = element + " " + key + " was not measured";
    return in;
  }
  if (a->value.is_number()) in.value = a->value.get<double>();
  const double confidence = a->confidence.value_or(a->source == model::Source::Api ? 1.0 : 0.0);
  in.established = in.value.has_value() && confidence >= kEstablished;
  if (!in.established)
    in.why = element + " " + key + " not established" + (a->reason.empty() ? "" : ": " + a->reason);
  return in;
}

void Context::put_compute(const std::string& key, model::Attribute attribute) {
  for (auto& [k, a] : compute_) {
    if (k == key) {
      a = std::move(attribute);
      return;
    }
  }
  compute_.emplace_back(key, std::move(attribute));
}

void Context::warn(std::string warning) {
  if (std::find(warnings_.begin(), warnings_.end(), warning) == warnings_.end())
    warnings_.push_back(std::move(warning));
}

std::optional<double> Context::ns_per_cycle(const device::RunConditions& c) const {
  if (c.elapsed_ns > 0 && c.elapsed_cycles > 0) return c.elapsed_ns / c.elapsed_cycles;
  if (c.sm_clock_mhz_before && *c.sm_clock_mhz_before > 0) return 1e3 / *c.sm_clock_mhz_before;
  if (info().sm_clock_max_mhz > 0) return 1e3 / info().sm_clock_max_mhz;
  return std::nullopt;
}

std::string Context::ns_method(const device::RunConditions& c) {
  if (c.elapsed_ns > 0 && c.elapsed_cycles > 0) return "cycles x batch elapsed_ns/elapsed_cycles";
  if (c.sm_clock_mhz_before && *c.sm_clock_mhz_before > 0) return "cycles / measured SM clock";
  return "cycles / maximum SM clock (API)";
}

}  // namespace gputopo::discovery
