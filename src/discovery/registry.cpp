#include "discovery/registry.hpp"

#include <algorithm>
#include <stdexcept>

#include "model/vendor.hpp"

namespace gputopo::discovery {
namespace {

struct ProbeRegistration {
  Family family;
  int place;
  Made made;
  ProbeFactory factory;
};

// Filled by the registrars before main(); read after.
std::vector<ProbeRegistration>& probe_registrations() {
  static std::vector<ProbeRegistration> all;
  return all;
}

constexpr Family kProbeFamilies[] = {Family::L1Family, Family::L2,      Family::Mall,
                                     Family::Dram,     Family::Tlb,     Family::Layout,
                                     Family::Compute,  Family::Geometry};

bool family_applies(Family f, const device::DeviceInfo& info) {
  if (f == Family::Mall) return model::is_amd(info);
  if (f == Family::Layout || f == Family::Compute) return !model::is_amd(info);
  return true;
}

std::vector<Target> family_targets(Family f, const device::DeviceInfo& info) {
  if (f == Family::L1Family) return l1_family_targets(info);
  if (f != Family::Geometry) return {};
  auto targets = l1_family_targets(info);
  targets.push_back(l2_target());
  return targets;
}

// The family's registrations in place order.
std::vector<const ProbeRegistration*> family_kinds(Family f) {
  std::vector<const ProbeRegistration*> kinds;
  for (const auto& r : probe_registrations())
    if (r.family == f) kinds.push_back(&r);
  std::sort(kinds.begin(), kinds.end(), [](const ProbeRegistration* a, const ProbeRegistration* b) {
    return a->place < b->place;
  });
  for (std::size_t i = 1; i < kinds.size(); ++i)
    if (kinds[i]->place == kinds[i - 1]->place)
      throw std::logic_error("probe registry: two probes of one family at place " +
                             std::to_string(kinds[i]->place));
  return kinds;
}

void add_made(std::vector<std::unique_ptr<Probe>>& probes, const ProbeRegistration& r,
              const Site& site) {
  if (auto p = r.factory(site)) probes.push_back(std::move(p));
}

}  // namespace

ProbeRegistrar::ProbeRegistrar(Family family, int place, Made made, ProbeFactory factory) {
  probe_registrations().push_back({family, place, made, std::move(factory)});
}

std::vector<std::unique_ptr<Probe>> registered_probes(const device::DeviceInfo& info) {
  std::vector<std::unique_ptr<Probe>> probes;
  for (const Family f : kProbeFamilies) {
    if (!family_applies(f, info)) continue;
    const auto kinds = family_kinds(f);
    for (const Target& t : family_targets(f, info))
      for (const ProbeRegistration* r : kinds)
        if (r->made == Made::PerTarget) add_made(probes, *r, {info, &t});
    for (const ProbeRegistration* r : kinds)
      if (r->made == Made::Once) add_made(probes, *r, {info, nullptr});
  }
  return probes;
}

std::unique_ptr<Probe> registered_probe(const device::DeviceInfo& info, const std::string& name) {
  for (auto& p : registered_probes(info))
    if (p->name() == name) return std::move(p);
  return nullptr;
}

}  // namespace gputopo::discovery
