#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <type_traits>

#include "device/compute_request.hpp"
#include "device/links.hpp"
#include "device/requests.hpp"
#include "model/attribute.hpp"

// Names and pieces of a raw directory shared by the writer, the reader and replay (docs/raw.md).
namespace gputopo::device::record {

inline constexpr std::string_view kFormatName = "gputopo-raw";
inline constexpr int kFormatVersion = 1;
inline constexpr std::string_view kManifestFile = "manifest.json";

// The Device call a manifest entry records.
enum class Op {
  Chase,
  Interfere,
  Stream,
  Clusters,
  Compute,
  PeerLink,
  Transfer,
  ReadRate,
  Reductions
};
std::string_view name(Op op);
constexpr auto enumerators(std::type_identity<Op>) {
  return std::array{Op::Chase,    Op::Interfere, Op::Stream,   Op::Clusters,  Op::Compute,
                    Op::PeerLink, Op::Transfer,  Op::ReadRate, Op::Reductions};
}

// What identifies a call: the op and every request field and batch setting. These members open
// the call's manifest entry, and replay answers a request whose identity equals a recorded one.
model::Json identity(const ChaseBatch& batch);
model::Json identity(const InterferenceBatch& batch);
model::Json identity(const StreamRequest& request);
model::Json clusters_identity(int cluster_size);
model::Json identity(const ComputeBatch& batch);
model::Json peer_link_identity(int peer);
model::Json identity(const TransferRequest& request);
model::Json identity(const ReadRateRequest& request);
model::Json identity(const ReductionRequest& request);

// "00042-chase.csv", "00042-chase-indices.csv": sorted by call, named by op.
std::string sample_file_name(std::size_t call, Op op, std::string_view suffix = {});
// True for names sample_file_name() makes.
bool is_sample_file_name(std::string_view name);

}  // namespace gputopo::device::record
