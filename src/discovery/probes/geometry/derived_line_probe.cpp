#include "discovery/context.hpp"
#include "discovery/registry.hpp"

namespace gputopo::discovery {
namespace {

// Sectors per line and what a miss fills, from the measured line size and fetch granularity (the
// L2's sector is its fetch at the smallest fetch limit).
class DerivedLineProbe final : public Probe {
 public:
  explicit DerivedLineProbe(const std::string& element)
      : Probe(element + ".sectors", {element}), e_(element) {
    declare({{e_, &keys::lineSize}, {e_, &keys::fetchGranularity}, {e_, &keys::sectorSize}},
            {{e_, &keys::sectorsPerLine}, {e_, &keys::missFill}});
  }

  void run(Context& ctx) override {
    const Input line = ctx.input(e_, keys::lineSize);
    const Input fetch = ctx.input(e_, keys::fetchGranularity);
    const Input sector = ctx.input(e_, keys::sectorSize);
    const Input& smallest = sector ? sector : fetch;
    if (!line || !smallest) {
      const std::string why =
          !line ? "needs the line size: " + line.why : "needs the fetch granularity: " + fetch.why;
      ctx.put(e_, keys::sectorsPerLine,
              model::Attribute::unavailable(model::Source::Derived, "", why));
      ctx.put(e_, keys::missFill, model::Attribute::unavailable(model::Source::Derived, "", why));
      return;
    }
    const double confidence = std::min(
        ctx.get(e_, keys::lineSize)->confidence.value_or(0),
        ctx.get(e_, sector ? keys::sectorSize : keys::fetchGranularity)->confidence.value_or(0));
    const double sectors = *line.value / *smallest.value;
    auto s = model::Attribute::measured(
        sectors, "", std::string("lineSize / ") + (sector ? "sectorSize" : "fetchGranularity"),
        confidence);
    s.source = model::Source::Derived;
    ctx.put(e_, keys::sectorsPerLine, s);
    if (!fetch) {
      ctx.put(e_, keys::missFill,
              model::Attribute::unavailable(model::Source::Derived, "",
                                            "needs the fetch granularity: " + fetch.why));
      return;
    }
    std::string fill;
    if (*fetch.value >= *line.value)
      fill = "line";
    else if (*fetch.value <= *smallest.value)
      fill = "sector";
    else
      fill = std::to_string(static_cast<int>(*fetch.value / *smallest.value)) + " sectors";
    auto f = model::Attribute::measured(
        fill, "", "the fetch granularity against the line and the sector", confidence);
    f.source = model::Source::Derived;
    f.evidence = {{"fetchGranularity", *fetch.value}, {"lineSize", *line.value}};
    ctx.put(e_, keys::missFill, f);
  }

 private:
  std::string e_;
};

}  // namespace

GPUTOPO_REGISTER_PROBE(Family::Geometry, 20, Made::PerTarget,
                       [](const Site& s) -> std::unique_ptr<Probe> {
                         if (s.target->level != 1) return nullptr;
                         return std::make_unique<DerivedLineProbe>(s.target->element);
                       });

}  // namespace gputopo::discovery
