#include "device/cuda/plan/tuning_memo.hpp"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <system_error>
#include <utility>

#include "files/atomic_file.hpp"
#include "model/attribute.hpp"

namespace gputopo::device::cuda {
namespace {

constexpr int kFormat = 1;

bool within(std::uint64_t a, std::uint64_t b, double factor) {
  const auto hi = static_cast<double>(std::max(a, b));
  const auto lo = static_cast<double>(std::max<std::uint64_t>(std::min(a, b), 1));
  return hi / lo <= factor;
}

MemoEntry entry_of(const model::Json& j) {
  MemoEntry e;
  e.kernel = j.at("kernel").get<int>();
  e.bytes = j.at("bytes").get<std::uint64_t>();
  e.rate = j.at("rate").get<double>();
  e.uses = j.value("uses", 0U);
  for (const auto& c : j.at("ranked"))
    e.ranked.push_back({c.at(0).get<std::uint32_t>(), c.at(1).get<std::uint32_t>(),
                        c.at(2).get<std::uint32_t>(), c.at(3).get<std::uint32_t>()});
  if (e.ranked.empty() || !(e.rate > 0)) throw std::invalid_argument("an empty entry");
  return e;
}

model::Json json_of(const MemoEntry& e) {
  model::Json ranked = model::Json::array();
  for (const auto& c : e.ranked)
    ranked.push_back({c.access_bytes, c.unroll, c.blocks_per_sm, c.threads});
  return {{"kernel", e.kernel},
          {"bytes", e.bytes},
          {"rate", e.rate},
          {"uses", e.uses},
          {"ranked", ranked}};
}

}  // namespace

TuningMemo::TuningMemo(std::optional<std::filesystem::path> file, std::string key)
    : file_(std::move(file)), key_(std::move(key)) {
  load();
}

void TuningMemo::load() {
  if (!file_) return;
  std::ifstream in(*file_);
  if (!in) return;
  std::ostringstream text;
  text << in.rdbuf();
  try {
    const auto j = model::Json::parse(text.str());
    if (j.at("format").get<int>() != kFormat || j.at("key").get<std::string>() != key_) return;
    std::vector<MemoEntry> entries;
    for (const auto& e : j.at("entries")) entries.push_back(entry_of(e));
    entries_ = std::move(entries);
  } catch (const std::exception&) {
    entries_.clear();
  }
}

const MemoEntry* TuningMemo::find(int kernel, std::uint64_t bytes, double factor) const {
  for (const auto& e : entries_)
    if (e.kernel == kernel && within(e.bytes, bytes, factor)) return &e;
  return nullptr;
}

void TuningMemo::put(MemoEntry entry, double factor) {
  std::erase_if(entries_, [&](const MemoEntry& e) {
    return e.kernel == entry.kernel && within(e.bytes, entry.bytes, factor);
  });
  entries_.push_back(std::move(entry));
  save();
}

void TuningMemo::save() const {
  if (!file_) return;
  model::Json entries = model::Json::array();
  for (const auto& e : entries_) entries.push_back(json_of(e));
  const model::Json j = {{"format", kFormat}, {"key", key_}, {"entries", entries}};
  try {
    std::error_code ec;
    std::filesystem::create_directories(file_->parent_path(), ec);
    files::AtomicWrite how;
    how.sync = false;
    files::write_file_atomically(file_->string(), j.dump() + "\n", how);
  } catch (const std::exception&) {
    // Without a memo the next run tunes again.
  }
}

std::vector<std::size_t> memo_picks(const MemoEntry& e, std::size_t leaders, std::size_t explored,
                                    const std::function<bool(const MemoConfig&)>& usable) {
  std::vector<std::size_t> ok;
  for (std::size_t i = 0; i < e.ranked.size(); ++i)
    if (usable(e.ranked[i])) ok.push_back(i);
  const std::size_t led = std::min(leaders, ok.size());
  const std::size_t rest = ok.size() - led;
  std::vector<std::size_t> picks(ok.begin(), ok.begin() + static_cast<std::ptrdiff_t>(led));
  for (std::size_t k = 0; k < std::min(explored, rest); ++k)
    picks.push_back(ok[led + (e.uses * explored + k) % rest]);
  return picks;
}

MemoEntry memo_after(const MemoEntry& e, const std::vector<MemoConfig>& timed, double rate) {
  MemoEntry out{e.kernel, e.bytes, timed, rate, e.uses + 1};
  for (const auto& c : e.ranked)
    if (std::find(out.ranked.begin(), out.ranked.end(), c) == out.ranked.end())
      out.ranked.push_back(c);
  return out;
}

std::optional<std::filesystem::path> tuning_memo_path(const std::string& uuid) {
  const std::string file = "tuning-" + uuid + ".json";
  if (const char* dir = std::getenv("GPUTOPO_TUNING_MEMO"); dir != nullptr && *dir != '\0') {
    if (std::string(dir) == "off") return std::nullopt;
    return std::filesystem::path(dir) / file;
  }
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && *xdg == '/')
    return std::filesystem::path(xdg) / "gputopo" / file;
  if (const char* home = std::getenv("HOME"); home != nullptr && *home == '/')
    return std::filesystem::path(home) / ".cache" / "gputopo" / file;
  return std::nullopt;
}

}  // namespace gputopo::device::cuda
