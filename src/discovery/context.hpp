#pragma once

#include <atomic>
#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "device/device.hpp"
#include "discovery/options.hpp"
#include "discovery/progress.hpp"
#include "model/attribute.hpp"

namespace gputopo::discovery {

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

// Everything a probe touches: the device (through batch calls that honour interrupts, the budget
// and progress), the options, and the findings of the run so far.
class Context {
 public:
  Context(device::Device& device, const Options& options, Progress& progress,
          const std::atomic<bool>* interrupted);

  const device::DeviceInfo& info() const { return device_.info(); }
  const Options& options() const { return options_; }

  // Device batches. Each first checks for an interrupt or an exhausted budget (throwing Stopped)
  // and counts as one progress step of the current phase.
  device::ChaseBatchResult chase(const device::ChaseBatch& batch);
  device::ChaseBatchResult interfere(const device::InterferenceBatch& batch);
  device::StreamResult stream(const device::StreamRequest& request);
  std::vector<std::vector<int>> co_resident_sms(int cluster_size);

  // Throws Stopped when the run must end now.
  void check_stop() const;
  std::optional<std::string> stop_reason() const;

  // Progress inside the current phase; `expected` batches announced up front (may grow).
  void begin_phase(std::string_view name, std::size_t index, std::size_t count);
  void expect_batches(std::size_t n) { expected_batches_ += n; }

  // Findings, by element and attribute key. put() replaces an existing attribute.
  void put(const std::string& element, const std::string& key, model::Attribute attribute);
  const model::Attribute* get(const std::string& element, const std::string& key) const;
  // A numeric finding as an input for a later probe.
  Input input(const std::string& element, const std::string& key) const;
  const std::map<std::string, model::AttributeList>& findings() const { return findings_; }
  void put_compute(const std::string& key, model::Attribute attribute);
  const model::AttributeList& compute() const { return compute_; }

  void warn(std::string warning);
  const std::vector<std::string>& warnings() const { return warnings_; }

  // Nanoseconds per SM cycle for results that ran under `conditions`: from the batch's own
  // device-timer and cycle spans where both are known, else the measured SM clock, else the
  // maximum clock the driver reports. nullopt when nothing is known.
  std::optional<double> ns_per_cycle(const device::RunConditions& conditions) const;
  // How ns_per_cycle() obtained its figure, for the method field.
  static std::string ns_method(const device::RunConditions& conditions);

 private:
  void step();

  device::Device& device_;
  const Options& options_;
  Progress& progress_;
  const std::atomic<bool>* interrupted_;
  std::chrono::steady_clock::time_point start_;
  std::size_t done_batches_ = 0;
  std::size_t expected_batches_ = 0;
  std::map<std::string, model::AttributeList> findings_;
  model::AttributeList compute_;
  std::vector<std::string> warnings_;
};

}  // namespace gputopo::discovery
