#include "device/sim/memory_system.hpp"

#include "device/sim/rng.hpp"

namespace gputopo::device::sim {
namespace {
bool same(const CacheGeometry& a, const CacheGeometry& b) {
  return a.size_bytes == b.size_bytes && a.ways == b.ways;
}
// Fixed per-cache seeds keep the random policy reproducible.
std::uint64_t cache_seed(std::size_t cache, std::size_t instance) {
  return mix64(0x5eed0000u + cache, instance);
}
}  // namespace

MemorySystem::MemorySystem(const SimConfig& config) : config_(&config) {
  for (int s = 0; s < config.l2.segments; ++s)
    segments_.emplace_back(config.l2.geometry, mix64(0x12000u, static_cast<std::uint64_t>(s)));
  if (config.mall) mall_.emplace_back(config.mall->geometry, mix64(0x3a110u, 0));
  private_.resize(config.caches.size());
  other_.resize(config.caches.size());
  configure(std::nullopt, 0);
}

void MemorySystem::configure(std::optional<int> carveout_percent,
                             std::uint64_t extra_shared_bytes) {
  for (std::size_t c = 0; c < config_->caches.size(); ++c) {
    const CacheGeometry g = config_->geometry(c, carveout_percent, extra_shared_bytes);
    for (auto* sets : {&private_, &other_}) {
      auto& instances = (*sets)[c];
      if (!instances.empty() && same(instances.front().geometry(), g)) continue;
      instances.clear();
      for (std::uint32_t i = 0; i < config_->caches[c].instances_per_sm; ++i)
        instances.emplace_back(g, cache_seed(c, i));
    }
  }
}

void MemorySystem::set_l2_fetch_bytes(std::uint32_t fetch_bytes) {
  for (auto& segment : segments_)
    if (segment.geometry().fetch_bytes != fetch_bytes) segment.set_fetch_bytes(fetch_bytes);
}

void MemorySystem::reset() {
  for (auto* sets : {&private_, &other_})
    for (auto& instances : *sets)
      for (auto& cache : instances) cache.reset();
  for (auto& segment : segments_) segment.reset();
  for (auto& mall : mall_) mall.reset();
}

std::vector<Cache*> MemorySystem::path(Space space, std::uint32_t warp, int sm, int other_sm) {
  std::vector<Cache*> caches;
  const std::uint32_t warps =
      static_cast<std::uint32_t>(config_->device.max_threads_per_block / config_->device.warp_size);
  for (const int index : config_->space(space).path) {
    const CacheSpec& spec = config_->caches[static_cast<std::size_t>(index)];
    const std::uint32_t n = spec.instances_per_sm;
    const std::uint32_t instance = spec.instance_select == InstanceSelect::Modulo
                                       ? warp % n
                                       : std::min(n - 1, warp * n / warps);
    const auto at = [](const std::vector<int>& v, int i) { return v[static_cast<std::size_t>(i)]; };
    const bool own =
        other_sm < 0 || other_sm == sm ||
        (!spec.sm_group.empty() && at(spec.sm_group, sm) == at(spec.sm_group, other_sm));
    auto& instances = own ? private_ : other_;
    caches.push_back(&instances[static_cast<std::size_t>(index)][instance]);
  }
  return caches;
}

Served MemorySystem::l2_load(int segment, std::uint64_t address) {
  Cache& near = segments_[static_cast<std::size_t>(segment)];
  const std::uint64_t line = near.line_of(address);
  const std::uint32_t bit = near.sector_bit(address);
  const std::uint32_t fetch = near.fetch_mask(address);
  const std::int64_t slot = near.find(line);
  if (slot != Cache::kAbsent) {
    near.touch(slot);
    if (near.sectors(slot) & bit) return {Served::L2Near, 0};
    near.add_sectors(slot, fetch);
    return beyond_l2(address);
  }
  for (std::size_t s = 0; s < segments_.size() && config_->l2.far_segments; ++s) {
    if (static_cast<int>(s) == segment || segments_[s].lines() == 0) continue;
    const std::int64_t far_slot = segments_[s].find(line);
    if (far_slot == Cache::kAbsent) continue;
    const Cache::Line moved = segments_[s].remove(far_slot);
    const bool hit = (moved.sectors & bit) != 0;
    l2_install(segment, line, moved.sectors | (hit ? 0u : fetch));
    if (!hit) return beyond_l2(address);
    return {Served::L2Far, static_cast<std::uint8_t>(s)};
  }
  l2_install(segment, line, fetch);
  return beyond_l2(address);
}

bool MemorySystem::take_store(Cache& cache, std::uint64_t address) {
  const std::uint64_t line = cache.line_of(address);
  const std::int64_t slot = cache.find(line);
  if (slot != Cache::kAbsent) {
    cache.touch(slot);
    cache.add_sectors(slot, cache.sector_bit(address));
    return true;
  }
  if (!cache.geometry().write_allocate) return false;
  cache.fill(line, cache.sector_bit(address));
  return true;
}

void MemorySystem::store(Cache* const* path, std::size_t levels, int segment,
                         std::uint64_t address) {
  for (std::size_t i = 0; i < levels; ++i)
    if (take_store(*path[i], address) && path[i]->geometry().write_back) return;
  Cache& near = segments_[static_cast<std::size_t>(segment)];
  const std::uint64_t line = near.line_of(address);
  if (near.find(line) == Cache::kAbsent) {
    // A line in a far segment moves to the near one, as a load would move it.
    for (std::size_t s = 0; s < segments_.size() && config_->l2.far_segments; ++s) {
      if (static_cast<int>(s) == segment) continue;
      const std::int64_t far_slot = segments_[s].find(line);
      if (far_slot == Cache::kAbsent) continue;
      const Cache::Line moved = segments_[s].remove(far_slot);
      l2_install(segment, line, moved.sectors | near.sector_bit(address));
      return;
    }
    if (!near.geometry().write_allocate) return;
    l2_install(segment, line, near.sector_bit(address));
    return;
  }
  take_store(near, address);
}

Served MemorySystem::beyond_l2(std::uint64_t address) {
  if (mall_.empty()) return {Served::Dram, 0};
  Cache& mall = mall_.front();
  const std::uint64_t fetch = segments_.front().geometry().fetch_bytes;
  const std::uint64_t line = mall.geometry().line_bytes;
  const std::uint64_t first = address / fetch * fetch;
  bool hit = false;
  for (std::uint64_t a = first; a < first + fetch; a += line) {
    const bool h = mall.access(a);
    if (address >= a && address < a + line) hit = h;
  }
  return {hit ? Served::Mall : Served::Dram, 0};
}

void MemorySystem::l2_install(int segment, std::uint64_t line, std::uint32_t sectors) {
  Cache& near = segments_[static_cast<std::size_t>(segment)];
  const auto others = segments_.size() - 1;
  if (others == 0 || !config_->l2.far_segments) return near.fill(line, sectors);
  const auto evicted = near.insert(line, sectors);
  if (!evicted) return;
  auto target = static_cast<std::size_t>(mix64(evicted->number) % others);
  if (target >= static_cast<std::size_t>(segment)) ++target;
  segments_[target].insert(evicted->number, evicted->sectors);
}

}  // namespace gputopo::device::sim
