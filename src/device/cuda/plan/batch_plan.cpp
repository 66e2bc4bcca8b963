#include "device/cuda/plan/batch_plan.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>

namespace gputopo::device::cuda {

std::uint64_t align_up(std::uint64_t value, std::uint64_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

Placement place(const std::vector<std::uint64_t>& sizes, std::uint64_t alignment,
                std::uint64_t gap) {
  Placement p;
  for (const auto size : sizes) {
    p.offsets.push_back(p.total);
    p.total += align_up(std::max<std::uint64_t>(size, 1), alignment) + gap;
  }
  return p;
}

ConstantArray constant_array(const ChaseRequest& r) {
  return {r.array_bytes, r.stride_bytes, r.pattern, chain_timed(r), r.sequence};
}

std::uint64_t ConstantPacking::offset_of(const ConstantArray& a) const {
  for (std::size_t i = 0; i < arrays.size(); ++i)
    if (arrays[i] == a) return offsets[i];
  throw std::logic_error("constant array not packed");
}

ConstantPacking pack_constants(const std::vector<const PlanUnit*>& units) {
  ConstantPacking p;
  for (const auto* u : units)
    for (const auto& a : u->constants) {
      if (std::find(p.arrays.begin(), p.arrays.end(), a) != p.arrays.end()) continue;
      p.arrays.push_back(a);
      p.offsets.push_back(p.bytes);
      p.bytes += align_up(a.bytes, kConstantAlignment);
    }
  return p;
}

namespace {

struct OpenLaunch {
  std::vector<std::size_t> units;
  std::vector<int> sms;
  std::uint64_t bytes = 0;
};

bool fits(const OpenLaunch& l, const PlanUnit& u, const std::vector<PlanUnit>& all,
          const PlanLimits& limits) {
  if (l.units.empty()) return true;
  if (static_cast<int>(l.units.size()) >= limits.sm_count) return false;
  if (u.sm >= 0 && std::find(l.sms.begin(), l.sms.end(), u.sm) != l.sms.end()) return false;
  if (l.bytes + u.global_bytes > limits.concurrent_bytes) return false;
  std::vector<const PlanUnit*> members;
  for (const auto i : l.units) members.push_back(&all[i]);
  members.push_back(&u);
  return pack_constants(members).bytes <= limits.constant_bank_bytes;
}

}  // namespace

std::vector<std::vector<std::size_t>> plan_launches(const std::vector<PlanUnit>& units,
                                                    const PlanLimits& limits) {
  std::vector<std::vector<std::size_t>> launches;
  std::map<int, OpenLaunch> open;  // by group
  auto close = [&](int group) {
    auto it = open.find(group);
    if (it == open.end()) return;
    launches.push_back(std::move(it->second.units));
    open.erase(it);
  };
  for (std::size_t i = 0; i < units.size(); ++i) {
    const auto& u = units[i];
    if (!u.sm_private) {
      launches.push_back({i});
      continue;
    }
    if (!fits(open[u.group], u, units, limits)) close(u.group);
    auto& l = open[u.group];
    l.units.push_back(i);
    if (u.sm >= 0) l.sms.push_back(u.sm);
    l.bytes += u.global_bytes;
  }
  while (!open.empty()) close(open.begin()->first);
  return launches;
}

}  // namespace gputopo::device::cuda
