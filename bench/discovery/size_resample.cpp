// Replays a raw recording (docs/raw.md) of a real GPU, answering the one-SM size sweeps that the
// recording does not hold exactly from the ones it does: a placed, strided request of a space,
// stride and region gets the recorded loads of the nearest recorded size of that space, stride and
// region, cut to the loads it asks for (the timed chase records its first loads in order, so fewer
// loads are the first ones of more). Every other call replays exactly. So a change to how many
// sizes, regions or loads a size search takes can be read on recorded curves: prints each
// element's size and interval, and the one-SM requests and loads it took.
//   size_resample RAW_DIR [--only l1,texture,readOnly]

#include <CLI/CLI.hpp>
#include <cstdio>
#include <iterator>
#include <map>
#include <memory>
#include <tuple>

#include "device/record/recording_loader.hpp"
#include "device/record/replay.hpp"
#include "discovery/discover.hpp"
#include "model/attribute.hpp"

namespace {

using namespace gputopo;

using Key = std::tuple<int, std::uint32_t, std::uint32_t>;  // space, stride, region

struct Recorded {
  device::ChaseResult result;
  device::RunConditions conditions;
};

bool resampled(const device::ChaseRequest& r) {
  return r.sm >= 0 && r.pattern == device::Pattern::Strided && r.warmup_passes == 1 &&
         !r.record_indices && !r.timing && !r.warmup;
}

Key key_of(const device::ChaseRequest& r) {
  return {static_cast<int>(r.space), r.stride_bytes, r.region.value_or(0)};
}

class ResampleDevice final : public device::Device {
 public:
  explicit ResampleDevice(const std::filesystem::path& dir)
      : replay_(device::record::open_replay(dir)) {
    const auto rec = device::record::load_recording(dir);
    for (const auto& call : rec.calls) {
      if (call.op != device::record::Op::Chase || call.error) continue;
      const auto id = model::Json::parse(call.identity);
      const auto& requests = id.at("requests");
      for (std::size_t i = 0; i < requests.size() && i < call.batch.results.size(); ++i) {
        device::ChaseRequest r;
        const auto& j = requests[i];
        const auto space = j.at("space").get<std::string>();
        r.space = space == "l1"        ? device::Space::L1
                  : space == "texture" ? device::Space::Texture
                  : space == "readOnly"
                      ? device::Space::ReadOnly
                      : (space == "l2" ? device::Space::L2 : device::Space::Constant);
        if (space != "l1" && space != "texture" && space != "readOnly") continue;
        r.array_bytes = j.at("arrayBytes").get<std::uint64_t>();
        r.stride_bytes = j.at("strideBytes").get<std::uint32_t>();
        r.warmup_passes = j.at("warmupPasses").get<std::uint32_t>();
        r.sm = j.value("sm", -1);
        r.record_indices = j.value("recordIndices", false);
        if (j.contains("region")) r.region = j.at("region").get<std::uint32_t>();
        if (j.value("pattern", "strided") != "strided" || j.contains("timing") ||
            j.contains("warmup") || !resampled(r))
          continue;
        pool_[key_of(r)][r.array_bytes] = {call.batch.results[i], call.batch.conditions};
      }
    }
  }

  const device::DeviceInfo& info() const override { return replay_->info(); }

  device::ChaseBatchResult chase(const device::ChaseBatch& b) override {
    if (!b.requests.empty() && b.requests.front().sm >= 0 && resampled(b.requests.front())) {
      ++batches_;
      requests_ += b.requests.size();
      for (const auto& r : b.requests) loads_ += r.recorded_loads;
    }
    try {
      return replay_->chase(b);
    } catch (const device::Error& e) {
      if (e.kind() != device::Error::Kind::BadRequest) throw;
    }
    device::ChaseBatchResult out;
    for (const auto& r : b.requests) {
      const auto it = resampled(r) ? pool_.find(key_of(r)) : pool_.end();
      if (it == pool_.end() || it->second.empty())
        throw device::Error(device::Error::Kind::BadRequest, "size_resample: nothing recorded");
      const auto& sizes = it->second;
      auto above = sizes.lower_bound(r.array_bytes);
      if (above == sizes.end() ||
          (above != sizes.begin() &&
           r.array_bytes - std::prev(above)->first < above->first - r.array_bytes))
        above = std::prev(above);
      auto result = above->second.result;
      if (result.cycles.size() > r.recorded_loads) result.cycles.resize(r.recorded_loads);
      ++resampled_;
      out.results.push_back(std::move(result));
      out.conditions = above->second.conditions;
    }
    return out;
  }
  device::ChaseBatchResult interfere(const device::InterferenceBatch& b) override {
    return replay_->interfere(b);
  }
  device::StreamResult stream(const device::StreamRequest& r) override {
    return replay_->stream(r);
  }
  std::vector<std::vector<int>> co_resident_sms(int size) override {
    return replay_->co_resident_sms(size);
  }
  device::ComputeBatchResult compute(const device::ComputeBatch& b) override {
    return replay_->compute(b);
  }

  std::size_t batches_ = 0, requests_ = 0, loads_ = 0, resampled_ = 0;

 private:
  std::unique_ptr<device::Device> replay_;
  std::map<Key, std::map<std::uint64_t, Recorded>> pool_;
};

struct Quiet final : discovery::Progress {
  void begin(std::string_view, std::size_t, std::size_t) override {}
  void advance(std::size_t, std::size_t) override {}
  void end(std::string_view, double, std::string_view, const discovery::Result*) override {}
};

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"size_resample: size searches on a recording, other sizes from the nearest ones"};
  std::string dir;
  std::string only = "l1";
  app.add_option("raw", dir, "raw recording directory")->required();
  app.add_option("--only", only, "comma-separated elements or probes (default l1)");
  CLI11_PARSE(app, argc, argv);
  try {
    ResampleDevice dev(dir);
    discovery::Options options;
    options.retry_backoff_s = 0;
    for (std::size_t b = 0, e; b < only.size(); b = e + 1) {
      e = only.find(',', b);
      if (e == std::string::npos) e = only.size();
      options.only.insert(only.substr(b, e - b));
    }
    Quiet progress;
    const auto result = discovery::discover(dev, options, progress);
    for (const auto& el : result.memory) {
      const auto* a = model::find(el.attributes, "size");
      if (a == nullptr) continue;
      std::printf("%-10s size %s", el.key.c_str(), a->value.dump().c_str());
      if (a->interval) std::printf(" [%.0f, %.0f]", a->interval->lo, a->interval->hi);
      std::printf(" confidence %.3f %s\n", a->confidence.value_or(0), a->method.c_str());
      if (a->evidence.is_object() && a->evidence.contains("oneCacheWith"))
        std::printf("  oneCacheWith %s\n",
                    a->evidence.at("oneCacheWith").dump().substr(0, 600).c_str());
      if (!a->evidence.is_object() || !a->evidence.contains("rounds")) continue;
      for (const auto& r : a->evidence.at("rounds"))
        if (r.contains("onset"))
          std::printf("  round %s..%s step %s: onset %s (round %s, weight %.2f)\n",
                      r.at("from").dump().c_str(), r.at("to").dump().c_str(),
                      r.at("stepBytes").dump().c_str(), r.at("onset").dump().c_str(),
                      r.at("roundOnset").dump().c_str(), r.value("weight", 0.0));
    }
    for (const auto& t : result.timings)
      if (t.status != "ok") std::printf("%s: %s\n", t.probe.c_str(), t.status.c_str());
    std::printf("one-SM sweeps: %zu batches, %zu requests, %zu loads; %zu requests resampled\n",
                dev.batches_, dev.requests_, dev.loads_, dev.resampled_);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "size_resample: %s\n", e.what());
    return 1;
  }
  return 0;
}
