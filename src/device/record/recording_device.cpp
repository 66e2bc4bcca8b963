#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <initializer_list>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <utility>

#include "device/input_file.hpp"
#include "device/record/compute_samples.hpp"
#include "device/record/fitted_json.hpp"
#include "device/record/raw_error.hpp"
#include "device/record/raw_json.hpp"
#include "device/record/raw_layout.hpp"
#include "device/record/recording.hpp"
#include "device/record/sample_csv.hpp"
#include "files/atomic_file.hpp"
#include "model/json_input.hpp"

namespace gputopo::device::record {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// Rewriting the manifest costs time in proportion to its size. While a rewrite takes less than
// this, the manifest is rewritten after every call; past it, only once ten times the last
// rewrite's duration has passed since, so that rewrites take at most about a tenth of the run.
// An interruption then loses the calls made since the last rewrite (their samples stay).
constexpr auto kQuickRewrite = std::chrono::milliseconds(5);

[[noreturn]] void fail(const std::string& what) {
  throw RawDirError(Error::Kind::Measurement, what);
}

// A file a recording writes: the manifest, a sample file, or the temporary file of either
// (.NAME.tmp.PID.XXXXXX; NAME.tmp from earlier versions of gputopo).
bool recording_file(std::string name) {
  if (name.ends_with(".tmp")) {
    name.resize(name.size() - 4);
  } else if (const auto tmp = name.find(".tmp."); name.starts_with('.') && tmp != name.npos) {
    name = name.substr(1, tmp - 1);
  }
  return name == kManifestFile || is_sample_file_name(name);
}

// Writes a recording's file through a temporary file and a rename. A raw directory has one writer
// (it is locked) and its manifest is rewritten often: no target check, no stale temporaries to
// look for, no fsync.
void write_atomically(const fs::path& file, std::initializer_list<std::string_view> pieces) {
  try {
    files::write_file_atomically(file.string(), pieces,
                                 {.check_target = false, .remove_stale = false, .sync = false});
  } catch (const std::runtime_error& e) {
    fail(e.what());
  }
}

// The lock on a raw directory: flock on the directory itself, held while the descriptor is open.
class DirectoryLock {
 public:
  explicit DirectoryLock(const fs::path& dir)
      : fd_(open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)) {
    if (fd_ < 0)
      fail("cannot open the raw directory " + dir.string() + ": " + std::strerror(errno));
    if (flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      close(fd_);
      fail(dir.string() + " is being recorded into by another gputopo; choose another directory");
    }
  }
  DirectoryLock(const DirectoryLock&) = delete;
  DirectoryLock& operator=(const DirectoryLock&) = delete;
  ~DirectoryLock() { close(fd_); }

 private:
  int fd_;
};

// Creates `dir` and locks it.
std::unique_ptr<DirectoryLock> lock_directory(const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir, ec))
    fail("cannot create the raw directory " + dir.string() + ": " +
         (ec ? ec.message() : "not a directory"));
  return std::make_unique<DirectoryLock>(dir);
}

// Empties the locked `dir` of an earlier recording; refuses to overwrite a foreign manifest, or,
// where there is no manifest (no earlier recording), a file named as a sample file is.
void prepare_directory(const fs::path& dir) {
  std::error_code ec;
  const fs::path manifest = dir / kManifestFile;
  if (!fs::exists(manifest, ec) && !fs::is_symlink(manifest, ec)) {
    for (const auto& entry : fs::directory_iterator(dir, ec))
      if (is_sample_file_name(entry.path().filename().string()))
        fail(entry.path().string() +
             " is named as a recording's sample file, but the directory holds no recording (no " +
             std::string(kManifestFile) + "); choose another directory");
    return;
  }
  Json old;
  try {
    old = model::parse_json_input(read_input_file(manifest, std::uint64_t{1} << 28));
  } catch (const std::runtime_error&) {
  }
  const auto format = old.is_object() ? old.find("format") : old.end();
  if (format == old.end() || *format != std::string(kFormatName))
    fail(manifest.string() + " exists and is not a gputopo recording; choose another directory");
  for (const auto& entry : fs::directory_iterator(dir, ec))
    if (recording_file(entry.path().filename().string())) fs::remove(entry.path(), ec);
}

class RecordingDevice final : public Recorder {
 public:
  RecordingDevice(std::unique_ptr<Device> inner, fs::path dir, std::string tool_version)
      : inner_(std::move(inner)), dir_(std::move(dir)), lock_(lock_directory(dir_)) {
    prepare_directory(dir_);
    Json tool = {{"name", "gputopo"}, {"version", nullptr}};
    if (!tool_version.empty()) tool["version"] = tool_version;
    head_ = "{\n  \"format\": " + dump_flat(kFormatName) +
            ",\n  \"version\": " + std::to_string(kFormatVersion) +
            ",\n  \"tool\": " + dump_flat(tool) + ",\n";
    device_ = "  \"device\": " + dump_fitted(encode(inner_->info()), 2) + ",\n";
    write_manifest(false);
  }

  RecordingDevice(const RecordingDevice&) = delete;
  RecordingDevice& operator=(const RecordingDevice&) = delete;

  ~RecordingDevice() override {
    try {
      write_manifest(complete_);
    } catch (const std::exception&) {
      // The manifest of the last call stays, marked incomplete: still a readable recording.
    }
  }

  void finish() override { complete_ = true; }

  const DeviceInfo& info() const override { return inner_->info(); }

  ChaseBatchResult chase(const ChaseBatch& batch) override {
    return record(
        identity(batch), [&] { return inner_->chase(batch); },
        [&](const ChaseBatchResult& r, Json& entry) { describe(r, Op::Chase, entry); });
  }

  ChaseBatchResult interfere(const InterferenceBatch& batch) override {
    return record(
        identity(batch), [&] { return inner_->interfere(batch); },
        [&](const ChaseBatchResult& r, Json& entry) { describe(r, Op::Interfere, entry); });
  }

  StreamResult stream(const StreamRequest& request) override {
    return record(
        identity(request), [&] { return inner_->stream(request); },
        [&](const StreamResult& r, Json& entry) {
          entry["results"] = r.gbps.size();
          entry["launch"] = encode(r);
          entry["conditions"] = encode(r.conditions);
          entry["samples"] = write_samples(Op::Stream, "", column_csv(kStreamColumn, r.gbps));
        });
  }

  ComputeBatchResult compute(const ComputeBatch& batch) override {
    return record(
        identity(batch), [&] { return inner_->compute(batch); },
        [&](const ComputeBatchResult& r, Json& entry) {
          entry["results"] = r.results.size();
          entry["conditions"] = encode(r.conditions);
          entry["samples"] = write_samples(Op::Compute, "", compute_samples_csv(r.results));
        });
  }

  DeviceState state() override { return inner_->state(); }

  std::vector<std::vector<int>> co_resident_sms(int cluster_size) override {
    return record(
        clusters_identity(cluster_size), [&] { return inner_->co_resident_sms(cluster_size); },
        [&](const std::vector<std::vector<int>>& groups, Json& entry) {
          entry["groups"] = encode(groups);
        });
  }

  PeerLink peer_link(int peer) override {
    return record(
        peer_link_identity(peer), [&] { return inner_->peer_link(peer); },
        [&](const PeerLink& link, Json& entry) { entry["link"] = encode(link); });
  }

  TransferResult transfer(const TransferRequest& request) override {
    return record(
        identity(request), [&] { return inner_->transfer(request); },
        [&](const TransferResult& r, Json& entry) { entry["result"] = encode(r); });
  }

  ReadRateResult read_rate(const ReadRateRequest& request) override {
    return record(
        identity(request), [&] { return inner_->read_rate(request); },
        [&](const ReadRateResult& r, Json& entry) { entry["result"] = encode(r); });
  }

  ReductionResult reductions(const ReductionRequest& request) override {
    return record(
        identity(request), [&] { return inner_->reductions(request); },
        [&](const ReductionResult& r, Json& entry) {
          entry["result"] = encode(r);
          entry["results"] = r.cycles.size();
          if (!r.cycles.empty())
            entry["samples"] =
                write_samples(Op::Reductions, "", column_csv(kVisitColumn, r.cycles));
        });
  }

  void begin_phase(std::string_view name) override { inner_->begin_phase(name); }

 private:
  // Runs the inner call and appends its manifest entry: the identity, then what `describe` adds
  // from the results, or the error the inner device raised (which is then rethrown).
  template <class Run, class Describe>
  std::invoke_result_t<Run&> record(const Json& identity, Run&& run, Describe&& describe) {
    Json entry = {{"call", calls_}};
    for (const auto& [key, value] : identity.items()) entry[key] = value;
    std::invoke_result_t<Run&> result;
    try {
      result = run();
    } catch (const Error& e) {
      entry["error"] = {{"kind", name(e.kind())}, {"message", e.what()}};
      try {
        append(entry, true);
      } catch (const Error&) {
        // The measurement error is the one to report.
      }
      throw;
    }
    describe(result, entry);
    append(entry, false);
    return result;
  }

  void describe(const ChaseBatchResult& r, Op op, Json& entry) {
    entry["results"] = r.results.size();
    entry["conditions"] = encode(r.conditions);
    entry["samples"] = write_samples(op, "", chase_samples_csv(r.results));
    std::string indices = indices_csv(r.results);
    if (!indices.empty()) entry["indices"] = write_samples(op, "-indices", indices);
  }

  std::string write_samples(Op op, std::string_view suffix, const std::string& csv) {
    std::string file = sample_file_name(calls_, op, suffix);
    write_atomically(dir_ / file, {csv});
    return file;
  }

  void append(const Json& entry, bool now) {
    calls_text_ += (calls_ == 0 ? "    " : ",\n    ") + dump_fitted(entry, 4);
    ++calls_;
    if (now || last_rewrite_ < kQuickRewrite || Clock::now() - rewritten_at_ >= 10 * last_rewrite_)
      write_manifest(false);
  }

  void write_manifest(bool complete) {
    const auto start = Clock::now();
    write_atomically(dir_ / kManifestFile,
                     {head_, complete ? "  \"complete\": true,\n" : "  \"complete\": false,\n",
                      device_, calls_ == 0 ? "  \"calls\": [" : "  \"calls\": [\n", calls_text_,
                      calls_ == 0 ? "]\n}\n" : "\n  ]\n}\n"});
    rewritten_at_ = Clock::now();
    last_rewrite_ = rewritten_at_ - start;
  }

  std::unique_ptr<Device> inner_;
  fs::path dir_;
  std::unique_ptr<DirectoryLock> lock_;
  bool complete_ = false;
  std::string head_;
  std::string device_;
  std::string calls_text_;
  std::size_t calls_ = 0;
  Clock::time_point rewritten_at_;
  Clock::duration last_rewrite_{};
};

}  // namespace

std::unique_ptr<Recorder> record_to(std::unique_ptr<Device> inner, const fs::path& dir,
                                    std::string tool_version) {
  if (!inner) throw Error(Error::Kind::NoDevice, "record_to: no device to record");
  return std::make_unique<RecordingDevice>(std::move(inner), dir, std::move(tool_version));
}

}  // namespace gputopo::device::record
