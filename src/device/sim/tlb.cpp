#include "device/sim/tlb.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>

#include "device/sim/json_reader.hpp"
#include "device/sim/rng.hpp"

namespace gputopo::device::sim {
namespace {

constexpr std::uint64_t kMaxEntries = 65536;
constexpr std::uint64_t kMaxWays = 1024;
constexpr std::uint64_t kMinPage = 4096;
constexpr std::uint64_t kMaxPage = std::uint64_t{1} << 31;

TlbLevelSpec parse_level(const JsonReader& r, std::string name) {
  r.only({"entries", "ways", "page_bytes", "replacement", "miss_cycles"});
  TlbLevelSpec l;
  l.name = std::move(name);
  l.entries = static_cast<std::uint32_t>(r.at("entries").integer(1, kMaxEntries));
  l.ways =
      static_cast<std::uint32_t>(r.integer("ways", 1, std::min<std::uint64_t>(l.entries, kMaxWays),
                                           std::min<std::uint64_t>(l.entries, kMaxWays)));
  if (l.entries % l.ways != 0) r.at("ways").fail("must divide entries");
  l.page_bytes = r.at("page_bytes").integer(kMinPage, kMaxPage);
  if (!std::has_single_bit(l.page_bytes)) r.at("page_bytes").fail("must be a power of two");
  if (r.has("replacement")) {
    const auto name_text = r.at("replacement").string();
    const auto policy = replacement_from_string(name_text);
    if (!policy)
      r.at("replacement")
          .fail(fmt::format("unknown policy \"{}\" (lru, fifo, random, tree-plru)", name_text));
    l.replacement = *policy;
  }
  if (l.replacement == Replacement::TreePlru && (!std::has_single_bit(l.ways) || l.ways > 64))
    r.at("ways").fail("tree-plru needs a power of two up to 64");
  l.miss_cycles = r.at("miss_cycles").number(0, 1e5);
  return l;
}

CacheGeometry geometry_of(const TlbLevelSpec& l) {
  CacheGeometry g;
  g.line_bytes = static_cast<std::uint32_t>(l.page_bytes);
  g.sector_bytes = g.line_bytes;
  g.fetch_bytes = g.line_bytes;
  g.ways = l.ways;
  g.size_bytes = std::uint64_t{l.entries} * l.page_bytes;
  g.replacement = l.replacement;
  return g;
}

}  // namespace

TlbSpec parse_tlb(const JsonReader& r) {
  r.only({"levels", "spaces"});
  TlbSpec spec;
  const auto levels = r.at("levels");
  if (!levels.json().is_object() || levels.json().empty())
    levels.fail("must be an object of named levels");
  if (levels.json().size() > 8) levels.fail("lists more than 8 levels");
  for (const auto& item : levels.json().items())
    spec.levels.push_back(parse_level(levels.at(item.key()), item.key()));
  const auto spaces = r.at("spaces");
  spaces.only({"l1", "l2", "readOnly", "texture", "constant"});
  for (const Space s : {Space::L1, Space::L2, Space::ReadOnly, Space::Texture, Space::Constant}) {
    if (!spaces.has(to_string(s))) continue;
    const auto path = spaces.at(to_string(s));
    auto& out = spec.paths[static_cast<std::size_t>(s)];
    for (std::size_t i = 0; i < path.size(); ++i) {
      const auto name = path.at(i).string();
      const auto it = std::find_if(spec.levels.begin(), spec.levels.end(),
                                   [&](const TlbLevelSpec& l) { return l.name == name; });
      if (it == spec.levels.end())
        path.at(i).fail(fmt::format("names no level in \"tlb.levels\": \"{}\"", name));
      const int index = static_cast<int>(it - spec.levels.begin());
      if (std::find(out.begin(), out.end(), index) != out.end())
        path.at(i).fail("names a level twice");
      out.push_back(index);
    }
  }
  return spec;
}

Translation::Translation(const TlbSpec& spec) : paths_(spec.paths) {
  for (std::size_t i = 0; i < spec.levels.size(); ++i) {
    levels_.emplace_back(geometry_of(spec.levels[i]), mix64(0x71b0000u, i));
    miss_cycles_.push_back(spec.levels[i].miss_cycles);
  }
}

void Translation::reset() {
  for (auto& level : levels_) level.reset();
}

}  // namespace gputopo::device::sim
