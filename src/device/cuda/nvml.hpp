#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace gputopo::device::cuda {

// A value NVML gave, or the reason it could not.
template <class T>
struct NvmlValue {
  std::optional<T> value;
  std::string reason;

  static NvmlValue ok(T v) { return {std::move(v), {}}; }
  static NvmlValue fail(std::string why) { return {std::nullopt, std::move(why)}; }
};

enum class NvmlClock { Sm, Memory };

// The NVLink links of one GPU that reach another: directly, or through an NVSwitch (which reaches
// every GPU of the fabric).
struct NvlinkPath {
  int links = 0;       // active links to the peer or to a switch
  int generation = 0;  // NVLink generation of those links (NVML's version code mapped), 0 unknown
  bool through_switch = false;
};

// NVML, loaded at run time (dlopen libnvidia-ml.so.1) so that gputopo starts where the driver's
// management library is missing; every query then answers with the reason. One instance per
// process, created on first use; devices are addressed by PCI bus id ("0000:19:00.0"), which CUDA
// and NVML agree on whatever CUDA_VISIBLE_DEVICES says.
class Nvml {
 public:
  static const Nvml& instance();

  bool available() const { return api_ != nullptr; }
  const std::string& why_unavailable() const { return why_; }

  NvmlValue<std::string> driver_version() const;
  NvmlValue<double> clock_mhz(const std::string& pci_bus_id, NvmlClock clock) const;
  NvmlValue<double> max_clock_mhz(const std::string& pci_bus_id, NvmlClock clock) const;
  NvmlValue<double> power_limit_w(const std::string& pci_bus_id) const;  // enforced limit
  NvmlValue<bool> persistence_mode(const std::string& pci_bus_id) const;
  NvmlValue<bool> ecc_enabled(const std::string& pci_bus_id) const;
  NvmlValue<bool> mig_enabled(const std::string& pci_bus_id) const;
  // Compute and graphics processes on the device other than this one (by PID).
  NvmlValue<int> other_processes(const std::string& pci_bus_id) const;
  // The highest SM utilisation (percent) of any other process in the samples NVML took after
  // `since_us` (NVML's microsecond timestamps; 0: all it holds). Advances `since_us` to the newest
  // sample. 0 when no other process used the SMs.
  NvmlValue<double> others_sm_percent(const std::string& pci_bus_id,
                                      unsigned long long& since_us) const;
  // The active clock-event reasons that slow the SMs against the run's will (hardware slowdown,
  // thermal, power brake), by name.
  NvmlValue<std::vector<std::string>> slowdowns(const std::string& pci_bus_id) const;
  // The active NVLink links of `pci_bus_id` that reach `peer_pci_bus_id`.
  NvmlValue<NvlinkPath> nvlinks_to(const std::string& pci_bus_id,
                                   const std::string& peer_pci_bus_id) const;
  // Uncorrected ECC errors since the driver loaded (volatile counter).
  NvmlValue<unsigned long long> ecc_uncorrected(const std::string& pci_bus_id) const;

  Nvml(const Nvml&) = delete;
  Nvml& operator=(const Nvml&) = delete;
  ~Nvml();

  struct Api;

 private:
  Nvml();
  std::unique_ptr<Api> api_;
  std::string why_;
};

}  // namespace gputopo::device::cuda
