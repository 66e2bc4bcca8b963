#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

// What earlier runs on this GPU found fastest for each stream kernel and buffer regime: the
// configurations of their final round, fastest first, and the rate of the first. A later run
// times those again instead of tuning, while their leader still reaches that rate
// (stream_runner.cpp; docs/cuda-backend.md, "Tuning memo"). A memo belongs to one GPU, driver and
// build, its key: a file with another key, or one that does not parse, is ignored and replaced.
namespace gputopo::device::cuda {

struct MemoConfig {
  std::uint32_t access_bytes = 0;
  std::uint32_t unroll = 0;
  std::uint32_t blocks_per_sm = 0;
  std::uint32_t threads = 0;
  bool operator==(const MemoConfig&) const = default;
};

struct MemoEntry {
  int kernel = 0;
  std::uint64_t bytes = 0;
  std::vector<MemoConfig> ranked;
  double rate = 0;         // bytes a second of the first
  std::uint32_t uses = 0;  // later runs that took it
};

// What a later run times from `e`: the first `leaders` configurations that are `usable`, then
// `explored` more of the usable rest in turn (by e.uses), so that over runs every stored one is
// timed again and a better one than the leaders, which a first run's noisy ranking can leave
// behind, rises. Indices into e.ranked.
std::vector<std::size_t> memo_picks(const MemoEntry& e, std::size_t leaders, std::size_t explored,
                                    const std::function<bool(const MemoConfig&)>& usable);
// The entry after a run timed `timed` from it (fastest first): those first, then the others in
// their order; `rate` is the first's, and one more use.
MemoEntry memo_after(const MemoEntry& e, const std::vector<MemoConfig>& timed, double rate);

class TuningMemo {
 public:
  // Reads `file` where it exists and holds `key`; nullopt: a memo of this run only.
  TuningMemo(std::optional<std::filesystem::path> file, std::string key);
  // The entry of `kernel` for a buffer within `factor` of `bytes`, if any.
  const MemoEntry* find(int kernel, std::uint64_t bytes, double factor) const;
  // Replaces the entry of the same kernel within `factor`, then writes the file atomically. A
  // failure to write is ignored: the memo only saves time.
  void put(MemoEntry entry, double factor);

 private:
  void load();
  void save() const;
  std::optional<std::filesystem::path> file_;
  std::string key_;
  std::vector<MemoEntry> entries_;
};

// The memo file of GPU `uuid`: tuning-<uuid>.json in $GPUTOPO_TUNING_MEMO (a directory; "off":
// none), else in $XDG_CACHE_HOME/gputopo, else in $HOME/.cache/gputopo; nullopt without any.
std::optional<std::filesystem::path> tuning_memo_path(const std::string& uuid);

}  // namespace gputopo::device::cuda
