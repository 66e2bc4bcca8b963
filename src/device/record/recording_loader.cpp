#include "device/record/recording_loader.hpp"

#include <system_error>

#include "device/input_file.hpp"
#include "device/record/compute_samples.hpp"
#include "device/record/fitted_json.hpp"
#include "device/record/raw_error.hpp"
#include "device/record/raw_json.hpp"
#include "device/record/sample_csv.hpp"
#include "model/json_input.hpp"

namespace gputopo::device::record {
namespace {

namespace fs = std::filesystem;

// More results than this in one call means a corrupt count, not a real batch.
constexpr unsigned long long kMaxResults = 1ull << 32;
// A manifest of 500 calls is about 10 MB.
constexpr std::uint64_t kMaxManifestBytes = std::uint64_t{1} << 28;

[[noreturn]] void loader_fail(const std::string& what) {
  throw RawDirError(Error::Kind::NoDevice, what);
}

Json read_manifest(const fs::path& file) {
  std::error_code ec;
  if (!fs::exists(file, ec))
    loader_fail(file.string() + ": missing (not a gputopo raw directory?)");
  std::string text;
  try {
    text = read_input_file(file, kMaxManifestBytes);
  } catch (const std::runtime_error& e) {
    loader_fail(file.string() + ": " + e.what());
  }
  try {
    return model::parse_json_input(text);
  } catch (const std::runtime_error& e) {
    loader_fail(file.string() + ": not valid JSON: " + e.what());
  }
}

// The sample file a call names, which must lie in the recording's directory.
fs::path sample_path(const fs::path& dir, const JsonField& f) {
  const std::string& file = f.string();
  if (file.empty() || file == "." || file == ".." || fs::path(file).filename() != file)
    f.fail("\"" + file + "\" is not a file name in the recording's directory");
  return dir / file;
}

template <class Batch>
void load_batch(const fs::path& dir, const JsonField& c, Batch& batch, RecordedCall& call) {
  if (c.has("carveoutPercent")) batch.carveout_percent = decode_as<int>(c["carveoutPercent"]);
  if constexpr (requires { batch.l2_fetch_limit_bytes; })
    if (c.has("l2FetchLimitBytes"))
      batch.l2_fetch_limit_bytes = decode_as<std::uint32_t>(c["l2FetchLimitBytes"]);
  decode(c["requests"], batch.requests);
  call.identity = dump_flat(identity(batch));
  if (c.has("error")) return;
  decode(c["conditions"], call.batch.conditions);
  call.batch.results = read_chase_samples(sample_path(dir, c["samples"]),
                                          c["results"].unsigned_integer(kMaxResults));
  if (c.has("indices")) read_indices(sample_path(dir, c["indices"]), call.batch.results);
}

RecordedCall load_call(const fs::path& dir, const JsonField& c, std::size_t index) {
  if (c["call"].unsigned_integer(~0ull) != index)
    c["call"].fail("is " + c["call"].json().dump() + " but the entry is number " +
                   std::to_string(index) + " (calls must be in order)");
  RecordedCall call;
  call.op = parse_name<Op>(c["op"]);
  switch (call.op) {
    case Op::Chase: {
      ChaseBatch batch;
      load_batch(dir, c, batch, call);
      break;
    }
    case Op::Interfere: {
      InterferenceBatch batch;
      load_batch(dir, c, batch, call);
      break;
    }
    case Op::Stream: {
      auto request = decode_as<StreamRequest>(c["request"]);
      call.identity = dump_flat(identity(request));
      if (c.has("error")) break;
      decode(c["launch"], call.stream);
      decode(c["conditions"], call.stream.conditions);
      call.stream.gbps = read_column(sample_path(dir, c["samples"]), kStreamColumn,
                                     c["results"].unsigned_integer(kMaxResults));
      break;
    }
    case Op::Compute: {
      ComputeBatch batch;
      decode(c["requests"], batch.requests);
      call.identity = dump_flat(identity(batch));
      if (c.has("error")) break;
      decode(c["conditions"], call.compute.conditions);
      if (c["results"].unsigned_integer(kMaxResults) != batch.requests.size())
        c["results"].fail("is " + c["results"].json().dump() + " but the call has " +
                          std::to_string(batch.requests.size()) + " requests (one result each)");
      call.compute.results = read_compute_samples(sample_path(dir, c["samples"]), batch.requests);
      break;
    }
    case Op::PeerLink: {
      call.identity = dump_flat(peer_link_identity(decode_as<int>(c["peer"])));
      if (c.has("error")) break;
      decode(c["link"], call.peer_link);
      break;
    }
    case Op::Transfer: {
      call.identity = dump_flat(identity(decode_as<TransferRequest>(c["request"])));
      if (c.has("error")) break;
      decode(c["result"], call.transfer);
      break;
    }
    case Op::ReadRate: {
      call.identity = dump_flat(identity(decode_as<ReadRateRequest>(c["request"])));
      if (c.has("error")) break;
      decode(c["result"], call.read_rate);
      break;
    }
    case Op::Reductions: {
      call.identity = dump_flat(identity(decode_as<ReductionRequest>(c["request"])));
      if (c.has("error")) break;
      decode(c["result"], call.reductions);
      if (const auto visits = c["results"].unsigned_integer(kMaxResults); visits > 0)
        call.reductions.cycles = read_column(sample_path(dir, c["samples"]), kVisitColumn, visits);
      break;
    }
    case Op::Clusters: {
      call.identity = dump_flat(clusters_identity(decode_as<int>(c["clusterSize"])));
      if (c.has("error")) break;
      decode(c["groups"], call.groups);
      break;
    }
  }
  if (c.has("error")) {
    call.error = parse_name<Error::Kind>(c["error"]["kind"]);
    call.error_message = c["error"]["message"].string();
  }
  return call;
}

}  // namespace

Recording load_recording(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    loader_fail(dir.string() + ": " +
                (fs::exists(dir, ec) ? "not a directory" : "no such directory"));
  const fs::path file = dir / kManifestFile;
  const Json manifest = read_manifest(file);
  const JsonField m(manifest, file.string());
  if (!manifest.is_object() || !manifest.contains("format") ||
      manifest["format"] != std::string(kFormatName))
    loader_fail(file.string() + ": not a gputopo recording (\"format\" is not \"" +
                std::string(kFormatName) + "\")");
  if (m["version"].integer(0, 1 << 30) != kFormatVersion)
    m["version"].fail("format version " + m["version"].json().dump() +
                      " is not supported (this build reads version " +
                      std::to_string(kFormatVersion) + ")");

  Recording rec;
  rec.dir = dir;
  if (m.has("tool") && m["tool"].has("version")) rec.tool_version = m["tool"]["version"].string();
  rec.complete = m["complete"].boolean();
  decode(m["device"], rec.info);
  // What discovery sizes its work by must be a device that can exist.
  const JsonField compute = m["device"]["compute"];
  compute["smCount"]["value"].integer(1, kMaxSmCount);
  compute["warpSize"]["value"].integer(1, 64);
  compute["maxThreadsPerBlock"]["value"].integer(1, 4096);
  JsonField calls = m["calls"];
  rec.calls.reserve(calls.size());
  for (std::size_t i = 0; i < calls.size(); ++i)
    rec.calls.push_back(load_call(dir, calls.at(i), i));
  return rec;
}

}  // namespace gputopo::device::record
