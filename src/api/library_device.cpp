#include <atomic>

#include "api/report_data.hpp"
#include "assembly/assemble.hpp"
#include "device/gpu_open.hpp"
#include "device/record/replay.hpp"
#include "device/sim/sim_device.hpp"
#include "discovery/discover.hpp"
#include "report/run_info.hpp"

namespace gputopo {
namespace {

Error::Kind kind_of(device::Error::Kind kind) {
  switch (kind) {
    case device::Error::Kind::NoDriver:
    case device::Error::Kind::NoDevice:
    case device::Error::Kind::Unsupported:
      return Error::Kind::NoDevice;
    case device::Error::Kind::BadRequest:
    case device::Error::Kind::Measurement:
    case device::Error::Kind::OutOfMemory:
    case device::Error::Kind::Lost:
      break;
  }
  return Error::Kind::Measurement;
}

// Runs `f`, turning the layers' exceptions into the library's one.
template <class F>
auto translated(F&& f) {
  try {
    return f();
  } catch (const Error&) {
    throw;
  } catch (const device::record::RawDirError& e) {
    throw Error(Error::Kind::Usage, e.what());
  } catch (const device::Error& e) {
    if (e.kind() == device::Error::Kind::BadRequest) throw Error(Error::Kind::Usage, e.what());
    throw Error(kind_of(e.kind()), e.what());
  } catch (const std::invalid_argument& e) {
    throw Error(Error::Kind::Usage, e.what());
  }
}

class CallbackProgress final : public discovery::Progress {
 public:
  explicit CallbackProgress(const std::function<void(const gputopo::Progress&)>& f) : f_(f) {}
  void begin(std::string_view phase, std::size_t index, std::size_t count) override {
    if (f_) f_({std::string(phase), index, count});
  }
  void advance(std::size_t, std::size_t) override {}
  void end(std::string_view, double, std::string_view, const discovery::Result*) override {}

 private:
  const std::function<void(const gputopo::Progress&)>& f_;
};

// The report of what `device` knows, with a discovery's `findings` when there are some.
Report make_report(const device::Device& device, bool simulated, bool replayed,
                   const discovery::Result* findings) {
  model::Run run;
  run.command = "library";
  run.timestamp = report::utc_timestamp(std::chrono::system_clock::now());
  run.replayed = replayed;
  const assembly::Assembly assembly(device.info(), simulated);
  return Report(std::make_shared<const Report::Data>(Report::Data{assembly.report(findings, run)}));
}

}  // namespace

struct Device::Impl {
  std::unique_ptr<device::Device> device;
  bool simulated = false;
  bool replayed = false;
};

Device::Device(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Device::Device(Device&&) noexcept = default;
Device& Device::operator=(Device&&) noexcept = default;
Device::~Device() = default;

Device Device::gpu(int index) {
  return translated([&] {
    auto impl = std::make_unique<Impl>();
    impl->device = device::open_gpu(index);
    return Device(std::move(impl));
  });
}

Device Device::simulated(const std::string& preset_or_file, std::uint64_t seed) {
  return translated([&] {
    auto impl = std::make_unique<Impl>();
    impl->device = device::sim::open(preset_or_file, seed);
    impl->simulated = true;
    return Device(std::move(impl));
  });
}

Device Device::recording(const std::string& directory) {
  return translated([&] {
    auto impl = std::make_unique<Impl>();
    impl->device = device::record::open_replay(directory);
    impl->replayed = true;
    return Device(std::move(impl));
  });
}

Device::Impl& Device::impl() const {
  if (!impl_)
    throw Error(Error::Kind::Usage,
                "gputopo::Device: this Device was moved from; use the one it was moved to");
  return *impl_;
}

std::string Device::name() const { return impl().device->info().name.value.value_or(""); }

Report Device::info() const {
  const Impl& me = impl();
  return make_report(*me.device, me.simulated, me.replayed, nullptr);
}

Report Device::discover(const DiscoverOptions& options) {
  Impl& me = impl();
  return translated([&] {
    discovery::Options o;
    o.only.insert(options.only.begin(), options.only.end());
    o.time_budget_s = options.time_budget_s;
    if (options.full_depth) o.depth = discovery::Depth::Full;
    if (me.simulated || me.replayed) o.retry_backoff_s = 0;
    CallbackProgress progress(options.on_progress);
    const auto result = discovery::discover(*me.device, o, progress, nullptr);
    return make_report(*me.device, me.simulated, me.replayed, &result);
  });
}

std::string version() { return report::tool_version(); }

}  // namespace gputopo
