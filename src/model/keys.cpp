#include "model/keys.hpp"

#include <algorithm>
#include <array>

namespace gputopo::model {
namespace {

using namespace keys;

#define GPUTOPO_KEY(id, unit, elements, description) &id,
#define GPUTOPO_OP_KEY(id, family, unit) &id,
constexpr std::array kCatalogue{
#include "model/keys.def"
};
#undef GPUTOPO_KEY
#undef GPUTOPO_OP_KEY

constexpr std::array kFamilies{&opLatency, &opThroughput, &opPerClkPerSm, &opTflops};

}  // namespace

std::span<const Key* const> catalogue() { return kCatalogue; }

std::span<const KeyFamily* const> key_families() { return kFamilies; }

std::optional<std::pair<const KeyFamily*, std::string_view>> family_member(std::string_view name) {
  if (const Key* k = key_named(name))
    return k->family ? std::optional(std::pair{k->family, k->member()}) : std::nullopt;
  // A report of another version may hold ops this catalogue does not know.
  for (const KeyFamily* f : kFamilies)
    if (name.size() > f->suffix.size() && name.ends_with(f->suffix))
      return std::pair{f, name.substr(0, name.size() - f->suffix.size())};
  return std::nullopt;
}

const Key* key_named(std::string_view name) {
  const auto it = std::find_if(kCatalogue.begin(), kCatalogue.end(),
                               [&](const Key* k) { return k->name == name; });
  return it == kCatalogue.end() ? nullptr : *it;
}

std::size_t report_rank(std::string_view name) {
  const auto it = std::find_if(kCatalogue.begin(), kCatalogue.end(),
                               [&](const Key* k) { return k->name == name; });
  return static_cast<std::size_t>(it - kCatalogue.begin());
}

}  // namespace gputopo::model
