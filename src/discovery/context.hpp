#pragma once

#include <atomic>
#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "device/device.hpp"
#include "discovery/discovery_options.hpp"
#include "discovery/progress.hpp"
#include "model/attribute.hpp"
#include "model/keys.hpp"
#include "model/sweep_record.hpp"
#include "model/topology.hpp"

namespace gputopo::discovery {

class Probe;

namespace keys = model::keys;

// Thrown inside a probe when the run must stop (interrupt or time budget); the plan catches it.
struct Stopped {
  std::string why;
};

// A finding a later probe needs, with how far it can be trusted.
struct Input {
  std::optional<double> value;  // the value when there is one, established or not
  bool established = false;     // confidence reached kEstablished
  std::string why;              // when not established: why, for the dependent's reason

  explicit operator bool() const { return established; }
};

// Confidence at or above which a finding is used as-is by dependent probes.
inline constexpr double kEstablished = 0.5;
// The highest confidence of a finding made while the GPU was busy.
inline constexpr double kBusyConfidence = 0.25;

// Waits base_s x 2^rerun before re-run `rerun` (0-based) of something the GPU's other work
// disturbed; nothing when base_s is 0.
void backoff(double base_s, int rerun);

// Everything a probe touches: the device (through batch calls that honour interrupts, the budget
// and progress), the options, and the findings of the run so far.
class Context {
 public:
  Context(device::Device& device, const Options& options, Progress& progress,
          const std::atomic<bool>* interrupted);

  const device::DeviceInfo& info() const { return device_.info(); }
  // The device itself, for the run's control measurements (guard.hpp): calls on it are not
  // progress steps.
  device::Device& device() { return device_; }
  const Options& options() const { return options_; }

  // Device batches. Each first checks for an interrupt or an exhausted budget (throwing Stopped)
  // and counts as one progress step of the current phase.
  device::ChaseBatchResult chase(const device::ChaseBatch& batch);
  device::ChaseBatchResult interfere(const device::InterferenceBatch& batch);
  device::StreamResult stream(const device::StreamRequest& request);
  device::ReadRateResult read_rate(const device::ReadRateRequest& request);
  device::ReductionResult reductions(const device::ReductionRequest& request);
  std::vector<std::vector<int>> co_resident_sms(int cluster_size);
  device::ComputeBatchResult compute(const device::ComputeBatch& batch);

  // Device calls so far, and why a batch stayed disturbed after its re-runs since the last
  // take_batch_disturbance() ("" when none did).
  std::size_t calls() const { return calls_; }
  std::string take_batch_disturbance() { return std::exchange(batch_disturbance_, {}); }

  // The findings as they stand, to go back to before a disturbed span of phases is re-run.
  struct Snapshot {
    std::map<std::string, model::AttributeList> findings;
    model::AttributeList compute;
    std::size_t sweeps = 0;
    model::Topology topology;
  };
  Snapshot snapshot() const { return {findings_, compute_, sweeps_.size(), topology_}; }
  void restore(const Snapshot& s);
  // Every measured or derived attribute added or changed since `s` loses its confidence: a
  // discrete one (a count, size, flag or name) its value too, "not established (GPU busy: why)";
  // a continuous one (latency, bandwidth) keeps its value at a confidence below kEstablished.
  void demote_since(const Snapshot& s, const std::string& why);

  // After the GPU was found busy: the run stops at `deadline` (stop_reason() says `why`); nullopt
  // lifts it, when a later checkpoint finds the GPU free.
  void set_busy_deadline(std::optional<std::chrono::steady_clock::time_point> deadline,
                         std::string why = {});
  bool busy_deadline_set() const { return busy_deadline_.has_value(); }
  // Whether the busy deadline has passed: the reason stop_reason() gives.
  bool busy_budget_spent() const;

  // Throws Stopped when the run must end now.
  void check_stop() const;
  std::optional<std::string> stop_reason() const;

  // Progress inside the current phase; `expected` batches announced up front (may grow).
  void begin_phase(std::string_view name, std::size_t index, std::size_t count);
  // Whether this build checks that probes declare the findings they touch
  // (GPUTOPO_STRICT_FINDINGS).
  static bool strict_findings();
  // The probe whose run() reads and writes findings from now on (nullptr: the framework).
  void set_probe(const Probe* probe) { probe_ = probe; }
  void expect_batches(std::size_t n) { expected_batches_ += n; }

  // Findings, by element and catalogue key (model/keys.hpp). put() replaces an existing attribute.
  void put(const std::string& element, const model::Key& key, model::Attribute attribute);
  const model::Attribute* get(const std::string& element, const model::Key& key) const;
  // A numeric finding as an input for a later probe.
  Input input(const std::string& element, const model::Key& key) const;
  const std::map<std::string, model::AttributeList>& findings() const { return findings_; }
  void put_compute(const model::Key& key, model::Attribute attribute);
  const model::Attribute* get_compute(const model::Key& key) const;
  const model::AttributeList& compute() const { return compute_; }
  // The findings as reported: on a real GPU every number's interval grown by its run-to-run term
  // (model::add_run_to_run_noise). Probes read them without it, so that a later probe plans its
  // requests on what this run measured, alike on a real GPU and on the simulator.
  std::map<std::string, model::AttributeList> reported_findings() const;
  model::AttributeList reported_compute() const;
  // The layout as objects (model/topology.hpp): the layout probes write their groups here, beside
  // the attribute that states each level (model::set_gpcs and compute.gpcCount, ...).
  model::Topology& topology() { return topology_; }
  const model::Topology& topology() const { return topology_; }

  void warn(std::string warning);
  const std::vector<std::string>& warnings() const { return warnings_; }
  // Every chase batch of a probe so far, one point per request (model/sweep_record.hpp), where
  // Options::sweeps asks for them.
  const std::vector<model::Sweep>& sweeps() const { return sweeps_; }

  // Nanoseconds per SM cycle for results that ran under `conditions`: from the batch's own
  // device-timer and cycle spans where both are known, else the measured SM clock, else the
  // maximum clock the driver reports. nullopt when nothing is known.
  std::optional<double> ns_per_cycle(const device::RunConditions& conditions) const;
  // How ns_per_cycle() obtained its figure, for the method field.
  static std::string ns_method(const device::RunConditions& conditions);

 private:
  // `list` of `element` ("compute" for compute's) with the run-to-run term, on a real GPU.
  model::AttributeList reported(model::AttributeList list, std::string_view element) const;
  // With GPUTOPO_STRICT_FINDINGS: throws std::logic_error when the running probe reads (or
  // writes) a finding it did not declare.
  void check_declared(const std::string& element, const model::Key& key, bool write) const;
  void step();
  void record_sweep(const device::ChaseBatch& batch, const device::ChaseBatchResult& result);
  // Runs a batch again, with back-off, while the SM clock changed during it.
  template <class Run>
  auto steady(Run&& run, const char* what);

  device::Device& device_;
  const Options& options_;
  Progress& progress_;
  const std::atomic<bool>* interrupted_;
  std::chrono::steady_clock::time_point start_;
  std::size_t done_batches_ = 0;
  std::size_t expected_batches_ = 0;
  std::map<std::string, model::AttributeList> findings_;
  const Probe* probe_ = nullptr;
  model::AttributeList compute_;
  model::Topology topology_;
  std::vector<std::string> warnings_;
  std::vector<model::Sweep> sweeps_;
  std::size_t calls_ = 0;
  std::string batch_disturbance_;
  std::optional<std::chrono::steady_clock::time_point> busy_deadline_;
  std::string busy_why_;
};

}  // namespace gputopo::discovery
