#include "model/topology.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

namespace gputopo::model {
namespace {

// Each group sorted, empty ones dropped, the groups in order of their lowest SM.
std::vector<SmList> normalised(std::vector<SmList> groups) {
  for (auto& g : groups) {
    std::erase_if(g, [](int sm) { return sm < 0; });
    std::sort(g.begin(), g.end());
  }
  std::erase_if(groups, [](const SmList& g) { return g.empty(); });
  std::sort(groups.begin(), groups.end());
  return groups;
}

void grow(Topology& t, std::size_t sm_count) {
  for (std::size_t s = t.sms.size(); s < sm_count; ++s) {
    Sm sm;
    sm.id = static_cast<int>(s);
    t.sms.push_back(sm);
  }
}

bool contains_all(const SmList& outer, const SmList& inner) {
  return std::includes(outer.begin(), outer.end(), inner.begin(), inner.end());
}

// The memberships that follow from the SMs' own: a GPC's TPCs, a segment's GPCs.
void link(Topology& t) {
  for (auto& tpc : t.tpcs) tpc.gpc.reset();
  for (auto& gpc : t.gpcs) {
    gpc.tpcs.clear();
    for (auto& tpc : t.tpcs)
      if (contains_all(gpc.sms, tpc.sms)) {
        gpc.tpcs.push_back(tpc.id);
        tpc.gpc = gpc.id;
      }
  }
  for (auto& segment : t.segments) {
    segment.gpcs.clear();
    for (const auto& gpc : t.gpcs)
      if (contains_all(segment.sms, gpc.sms)) segment.gpcs.push_back(gpc.id);
    segment.slices.clear();
    for (std::size_t i = 0; i < t.slices.size(); ++i)
      if (t.slices[i].segment == segment.id) segment.slices.push_back(static_cast<int>(i));
  }
}

std::vector<SmList> sms_of(const auto& objects) {
  std::vector<SmList> out;
  for (const auto& o : objects) out.push_back(o.sms);
  return out;
}

}  // namespace

std::vector<SmList> Topology::tpc_sms() const { return sms_of(tpcs); }

std::vector<SmList> Topology::gpc_sms() const { return sms_of(gpcs); }

std::vector<int> Topology::segment_of_sm() const {
  std::vector<int> out;
  if (!segment_state.written || !segment_state.established) return out;
  for (const auto& sm : sms) out.push_back(sm.segment.value_or(-1));
  return out;
}

void set_tpcs(Topology& t, int sm_count, std::vector<SmList> tpcs) {
  grow(t, static_cast<std::size_t>(std::max(sm_count, 0)));
  t.tpcs.clear();
  for (auto& sm : t.sms) sm.tpc.reset();
  for (auto& sms : normalised(std::move(tpcs))) {
    const int id = static_cast<int>(t.tpcs.size());
    grow(t, static_cast<std::size_t>(sms.back()) + 1);
    for (int s : sms) t.sms[static_cast<std::size_t>(s)].tpc = id;
    t.tpcs.push_back({id, std::move(sms), std::nullopt});
  }
  t.tpc_state.written = true;
  link(t);
}

void set_gpcs(Topology& t, int sm_count, std::vector<SmList> gpcs,
              const std::vector<double>& confidence, std::vector<SmList> loose) {
  grow(t, static_cast<std::size_t>(std::max(sm_count, 0)));
  t.gpcs.clear();
  for (auto& sm : t.sms) {
    sm.gpc.reset();
    sm.gpc_confidence = 0;
  }
  for (auto& sms : normalised(std::move(gpcs))) {
    const int id = static_cast<int>(t.gpcs.size());
    grow(t, static_cast<std::size_t>(sms.back()) + 1);
    for (int s : sms) {
      const auto i = static_cast<std::size_t>(s);
      t.sms[i].gpc = id;
      t.sms[i].gpc_confidence = i < confidence.size() ? confidence[i] : 0;
    }
    t.gpcs.push_back({id, std::move(sms), {}});
  }
  t.loose_units = normalised(std::move(loose));
  t.gpc_state.written = true;
  link(t);
}

void set_segment_of_sm(Topology& t, const std::vector<std::optional<int>>& segment_of_sm) {
  grow(t, segment_of_sm.size());
  std::map<int, SmList> by_segment;
  for (std::size_t s = 0; s < t.sms.size(); ++s) {
    t.sms[s].segment = s < segment_of_sm.size() ? segment_of_sm[s] : std::nullopt;
    if (t.sms[s].segment) by_segment[*t.sms[s].segment].push_back(static_cast<int>(s));
  }
  t.segments.clear();
  for (auto& [id, sms] : by_segment) t.segments.push_back({id, std::move(sms), {}, {}});
  t.segment_state.written = true;
  link(t);
}

void add_slice(Topology& t, L2Slice slice, const std::string& key) {
  std::sort(slice.near_sms.begin(), slice.near_sms.end());
  t.slices.push_back(std::move(slice));
  t.slice_state.key = key;
  t.slice_state.written = true;
  link(t);
}

void set_shared_cache(Topology& t, std::string element, std::vector<SmList> groups) {
  for (auto& c : t.shared_caches)
    if (c.element == element) {
      c.groups = std::move(groups);
      return;
    }
  t.shared_caches.push_back({std::move(element), std::move(groups)});
}

const SharedCache* shared_cache(const Topology& t, std::string_view element) {
  for (const auto& c : t.shared_caches)
    if (c.element == element) return &c;
  return nullptr;
}

}  // namespace gputopo::model
