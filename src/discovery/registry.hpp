#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "device/info.hpp"
#include "discovery/probe.hpp"
#include "discovery/target.hpp"

// Probes register where they are defined (GPUTOPO_REGISTER_PROBE in the probe's .cpp); discovery
// asks the registry for the probes of one device.
namespace gputopo::discovery {

// The probe families, in report order: the L1 family's and the L2's elements before the
// memory-side cache's and device memory's (whose probes the L2 latency needs). The layout and the
// compute ops (PTX) are NVIDIA's, the memory-side cache AMD's.
enum class Family { L1Family, L2, Mall, Dram, Tlb, Layout, Compute, Geometry };

// What a probe is made for: the device and, for a probe made once per target of its family
// (the L1 family's caches; for the geometry, those and the L2), that target.
struct Site {
  const device::DeviceInfo& info;
  const Target* target = nullptr;
};

// Makes the probe for a site, or nullptr where the probe does not apply (a level-1 kind on the
// constant L1.5, a vendor's probe on another's GPU).
using ProbeFactory = std::function<std::unique_ptr<Probe>(const Site&)>;

enum class Made { Once, PerTarget };

// Registers a probe kind at `place` in its family's order. A family's probes come target by
// target first (each target's kinds in place order), then its probes made once, in place order.
// Places are unique within a family; they go in tens so that a new probe fits between two.
struct ProbeRegistrar {
  ProbeRegistrar(Family family, int place, Made made, ProbeFactory factory);
};

// Every probe discovery knows for `info`, in registration order (the report order of their
// elements). Throws std::logic_error where two kinds of a family claim one place.
std::vector<std::unique_ptr<Probe>> registered_probes(const device::DeviceInfo& info);

// The registered probe named `name` for `info` (a test runs it alone), or nullptr.
std::unique_ptr<Probe> registered_probe(const device::DeviceInfo& info, const std::string& name);

}  // namespace gputopo::discovery

#define GPUTOPO_REGISTRAR_CONCAT2(a, b) a##b
#define GPUTOPO_REGISTRAR_CONCAT(a, b) GPUTOPO_REGISTRAR_CONCAT2(a, b)
// One line beside a probe class: GPUTOPO_REGISTER_PROBE(Family::Compute, 30, Made::Once,
// [](const Site&) { return std::make_unique<SchedulerProbe>(); }). The library is linked whole
// (src/discovery/CMakeLists.txt), so that no registrar is dropped.
#define GPUTOPO_REGISTER_PROBE(family, place, made, ...)                          \
  static const ::gputopo::discovery::ProbeRegistrar GPUTOPO_REGISTRAR_CONCAT(     \
      gputopo_probe_registrar_, __COUNTER__)(::gputopo::discovery::family, place, \
                                             ::gputopo::discovery::made, __VA_ARGS__)
