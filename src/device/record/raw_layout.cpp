#include "device/record/raw_layout.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "device/record/raw_json.hpp"

namespace gputopo::device::record {

std::string_view name(Op op) {
  switch (op) {
    case Op::Chase:
      return "chase";
    case Op::Interfere:
      return "interfere";
    case Op::Stream:
      return "stream";
    case Op::Clusters:
      return "clusters";
    case Op::Compute:
      return "compute";
    case Op::PeerLink:
      return "peerLink";
    case Op::Transfer:
      return "transfer";
    case Op::ReadRate:
      return "readRate";
    case Op::Reductions:
      return "reductions";
  }
  return "unknown";
}

namespace {

template <class Batch>
model::Json batch_identity(Op op, const Batch& batch) {
  model::Json requests = model::Json::array();
  for (const auto& r : batch.requests) requests.push_back(encode(r));
  model::Json j = {{"op", name(op)}, {"carveoutPercent", encode(batch.carveout_percent)}};
  if constexpr (requires { batch.l2_fetch_limit_bytes; })
    if (batch.l2_fetch_limit_bytes) j["l2FetchLimitBytes"] = *batch.l2_fetch_limit_bytes;
  j["requests"] = std::move(requests);
  return j;
}

}  // namespace

model::Json identity(const ChaseBatch& batch) { return batch_identity(Op::Chase, batch); }

model::Json identity(const InterferenceBatch& batch) {
  return batch_identity(Op::Interfere, batch);
}

model::Json identity(const StreamRequest& request) {
  return {{"op", name(Op::Stream)}, {"request", encode(request)}};
}

model::Json clusters_identity(int cluster_size) {
  return {{"op", name(Op::Clusters)}, {"clusterSize", cluster_size}};
}

model::Json identity(const ComputeBatch& batch) {
  model::Json requests = model::Json::array();
  for (const auto& r : batch.requests) requests.push_back(encode(r));
  return {{"op", name(Op::Compute)}, {"requests", std::move(requests)}};
}

std::string sample_file_name(std::size_t call, Op op, std::string_view suffix) {
  return fmt::format("{:05}-{}{}.csv", call, name(op), suffix);
}

bool is_sample_file_name(std::string_view file) {
  std::size_t dash = file.find('-');
  if (dash == std::string_view::npos || dash < 5 || !file.ends_with(".csv")) return false;
  if (!std::all_of(file.begin(), file.begin() + static_cast<std::ptrdiff_t>(dash),
                   [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }))
    return false;
  std::string_view rest = file.substr(dash + 1, file.size() - dash - 5);
  for (Op op : enumerators(std::type_identity<Op>{}))
    if (rest == name(op) || rest == std::string(name(op)) + "-indices") return true;
  return false;
}

model::Json peer_link_identity(int peer) { return {{"op", name(Op::PeerLink)}, {"peer", peer}}; }

model::Json identity(const TransferRequest& request) {
  return {{"op", name(Op::Transfer)}, {"request", encode(request)}};
}

model::Json identity(const ReadRateRequest& request) {
  return {{"op", name(Op::ReadRate)}, {"request", encode(request)}};
}

model::Json identity(const ReductionRequest& request) {
  return {{"op", name(Op::Reductions)}, {"request", encode(request)}};
}

}  // namespace gputopo::device::record
