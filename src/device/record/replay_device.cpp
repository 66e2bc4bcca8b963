#include <algorithm>
#include <array>
#include <map>
#include <utility>

#include "device/record/fitted_json.hpp"
#include "device/record/raw_layout.hpp"
#include "device/record/recording_loader.hpp"
#include "device/record/replay.hpp"
#include "device/requests.hpp"

namespace gputopo::device::record {
namespace {

// A request shown in an error: long batches are cut, the message stays one line.
constexpr std::size_t kShownChars = 300;

class ReplayDevice final : public Replay {
 public:
  explicit ReplayDevice(Recording recording)
      : rec_(std::move(recording)), used_(rec_.calls.size(), false) {
    for (std::size_t i = 0; i < rec_.calls.size(); ++i)
      by_identity_[rec_.calls[i].identity].push_back(i);
  }

  const DeviceInfo& info() const override { return rec_.info; }
  bool cut_short() const override { return !rec_.complete; }

  // Older recordings hold some batches as older builds asked for them, and answer the batch as
  // asked now from those:
  // - chains before requests named their segment length were timed in segments of
  //   kChainSegmentLoads; each result says how many loads its segments hold;
  // - capacity sweeps before they spread their sizes over the SMs ran every request on SM 0;
  //   SM-private caches are alike on every SM, so SM 0's chase answers the same chase on another.
  ChaseBatchResult chase(const ChaseBatch& batch) override {
    for (const ChaseBatch& asked : {batch, on_sm_zero(batch)}) {
      ChaseBatch older = asked;
      for (auto& r : older.requests) r.segment_loads.reset();
      for (const ChaseBatch* b : std::array<const ChaseBatch*, 2>{&asked, &older})
        if (by_identity_.contains(dump_flat(identity(*b))))
          return with_segments(answer(Op::Chase, identity(*b)).batch, *b);
    }
    ChaseBatch older = batch;
    for (auto& r : older.requests) r.segment_loads.reset();
    return answer(Op::Chase, identity(older)).batch;  // raises: not recorded
  }

  ChaseBatchResult interfere(const InterferenceBatch& batch) override {
    return answer(Op::Interfere, identity(batch)).batch;
  }

  StreamResult stream(const StreamRequest& request) override {
    return answer(Op::Stream, identity(request)).stream;
  }

  ComputeBatchResult compute(const ComputeBatch& batch) override {
    return answer(Op::Compute, identity(batch)).compute;
  }

  std::vector<std::vector<int>> co_resident_sms(int cluster_size) override {
    return answer(Op::Clusters, clusters_identity(cluster_size)).groups;
  }

  PeerLink peer_link(int peer) override {
    return answer(Op::PeerLink, peer_link_identity(peer)).peer_link;
  }

  TransferResult transfer(const TransferRequest& request) override {
    return answer(Op::Transfer, identity(request)).transfer;
  }

  ReadRateResult read_rate(const ReadRateRequest& request) override {
    return answer(Op::ReadRate, identity(request)).read_rate;
  }

  ReductionResult reductions(const ReductionRequest& request) override {
    return answer(Op::Reductions, identity(request)).reductions;
  }

 private:
  // The next recorded call if it matches, else the first unused call with the same identity,
  // else the first used one. A recorded error is raised again.
  const RecordedCall& answer(Op op, const model::Json& identity) {
    const std::string key = dump_flat(identity);
    std::size_t index = cursor_;
    if (index >= rec_.calls.size() || rec_.calls[index].identity != key) {
      auto it = by_identity_.find(key);
      if (it == by_identity_.end()) throw not_recorded(op, key);
      const auto& same = it->second;
      auto unused =
          std::find_if(same.begin(), same.end(), [&](std::size_t i) { return !used_[i]; });
      index = unused != same.end() ? *unused : same.front();
    }
    used_[index] = true;
    cursor_ = index + 1;
    const RecordedCall& call = rec_.calls[index];
    if (call.error) throw Error(*call.error, call.error_message);
    return call;
  }

  static ChaseBatch on_sm_zero(ChaseBatch batch) {
    for (auto& r : batch.requests)
      if (r.sm > 0 && sm_private(r.space)) r.sm = 0;
    return batch;
  }

  static ChaseBatchResult with_segments(ChaseBatchResult result, const ChaseBatch& batch) {
    for (std::size_t i = 0; i < result.results.size() && i < batch.requests.size(); ++i)
      if (chain_timed(batch.requests[i]))
        result.results[i].segment_loads = segment_loads(batch.requests[i]);
    return result;
  }

  Error not_recorded(Op op, std::string shown) const {
    if (shown.size() > kShownChars) shown = shown.substr(0, kShownChars) + "...";
    auto same_op = std::count_if(rec_.calls.begin(), rec_.calls.end(),
                                 [&](const RecordedCall& c) { return c.op == op; });
    std::string message = (rec_.complete ? "" : "recording cut short: ") +
                          std::string("replay of ") + rec_.dir.string() + ": no recorded " +
                          std::string(name(op)) + " call matches the request " + shown +
                          " (the recording holds " + std::to_string(same_op) + " " +
                          std::string(name(op)) + " calls of " + std::to_string(rec_.calls.size());
    if (!rec_.complete) message += "; it was cut short, so later requests are missing";
    return Error(Error::Kind::BadRequest, message + ")");
  }

  Recording rec_;
  std::vector<bool> used_;
  std::map<std::string, std::vector<std::size_t>> by_identity_;
  std::size_t cursor_ = 0;
};

}  // namespace

std::unique_ptr<Replay> open_replay(const std::filesystem::path& dir) {
  return std::make_unique<ReplayDevice>(load_recording(dir));
}

}  // namespace gputopo::device::record
