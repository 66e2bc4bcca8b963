#pragma once

// libgputopo: open a GPU, a simulated GPU or a --raw recording, run the discovery, and read the
// report as typed values (docs/library.md). Only standard C++ types cross this interface.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#define GPUTOPO_API __attribute__((visibility("default")))

namespace gputopo {

// Every failure, in one line. The kinds are the command line's exit codes (docs/cli.md).
class GPUTOPO_API Error : public std::runtime_error {
 public:
  enum class Kind {
    Usage,        // a bad argument: an unknown preset, a missing recording, an unknown element
    NoDevice,     // no usable GPU or driver, or an unsupported GPU
    Measurement,  // a measurement failed or the GPU was lost
  };
  Error(Kind kind, const std::string& what);
  Kind kind() const noexcept { return kind_; }

 private:
  Kind kind_;
};

// One attribute of the report, as the JSON report has it (docs/schema.md).
struct Value {
  bool available = false;            // false: not measured or not established; `reason` says why
  std::optional<double> number;      // a numeric value
  std::string text;                  // the value as the text report writes it: "240 KiB", "LRU"
  std::string unit;                  // "B", "cycles", "ns", "GB/s", "MHz", ... or ""
  std::string source;                // "api", "table", "measured" or "derived"
  std::optional<double> confidence;  // measured and derived values: 0 to 1
  std::optional<std::pair<double, double>> interval;  // where the true value lies
  std::string method;                                 // how it was measured or derived
  std::string reason;                                 // why not available, or what weakened it
};

class GPUTOPO_API Report {
 public:
  // `section`: "device" (the general section), "compute", or a memory element ("l1", "l2",
  // "shared", "dram", ...). A key the report does not have gives an unavailable Value that says so.
  Value get(std::string_view section, std::string_view key) const;
  // The number when it is available, else nullopt.
  std::optional<double> number(std::string_view section, std::string_view key) const;
  // The memory elements in report order, and the keys of a section or element.
  std::vector<std::string> elements() const;
  std::vector<std::string> keys(std::string_view section) const;
  bool simulated() const;
  std::vector<std::string> warnings() const;
  std::string json() const;  // the JSON report (docs/schema.md)
  std::string text() const;  // the text summary

  struct Data;
  explicit Report(std::shared_ptr<const Data> data);

 private:
  std::shared_ptr<const Data> data_;
};

// Where the discovery is: phase `index` (0-based) of `count`, e.g. "l1.size".
struct Progress {
  std::string phase;
  std::size_t index = 0;
  std::size_t count = 0;
};

struct DiscoverOptions {
  std::vector<std::string> only;  // elements or probes (gputopo --help); empty: everything
  bool full_depth = false;        // --depth full: cache geometry and translation too
  std::optional<double> time_budget_s;
  std::function<void(const Progress&)> on_progress;  // called as each phase begins
};

class GPUTOPO_API Device {
 public:
  static Device gpu(int index = 0);  // NVIDIA through CUDA, else AMD where built with HIP
  static Device simulated(const std::string& preset_or_file, std::uint64_t seed = 1);
  static Device recording(const std::string& directory);  // answers from a --raw recording

  // A Device moved from holds nothing: its name(), info() and discover() throw Error (Usage).
  Device(Device&&) noexcept;
  Device& operator=(Device&&) noexcept;
  ~Device();

  std::string name() const;
  Report info() const;  // what the driver says, at once
  Report discover(const DiscoverOptions& options = {});

 private:
  struct Impl;
  explicit Device(std::unique_ptr<Impl> impl);
  Impl& impl() const;  // throws Error (Usage) on a Device moved from
  std::unique_ptr<Impl> impl_;
};

GPUTOPO_API std::string version();

}  // namespace gputopo
