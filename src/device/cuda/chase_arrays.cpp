#include "device/cuda/chase_arrays.hpp"

#include <algorithm>
#include <cstdlib>

#include "device/cuda/check.hpp"
#include "device/cuda/kernels.hpp"
#include "device/cuda/plan/batch_plan.hpp"

namespace gputopo::device::cuda {
namespace {

constexpr double kBuildSeconds = 60;  // building one random array

// GPUTOPO_CUDA_ARRAY_GAP: extra bytes between the arrays of one launch (docs/cuda-backend.md,
// "Diagnostics"); unset or invalid: 0.
std::uint64_t array_gap() {
  const char* text = std::getenv("GPUTOPO_CUDA_ARRAY_GAP");
  if (text == nullptr) return 0;
  char* end = nullptr;
  const auto value = std::strtoull(text, &end, 10);
  return end != text && *end == '\0' ? value : 0;
}

std::uint64_t address_value(const void* p) {
  return static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(p));
}

ChaseArray describe_array(const ChaseRequest& r, const ChaseLayout& layout) {
  ChaseArray a;
  a.elements = layout.elements;
  a.stride_words = layout.stride_words;
  a.words = layout.words;
  a.space = static_cast<std::uint32_t>(r.space);
  a.warmup_passes = r.warmup_passes;
  a.warmup = static_cast<std::uint32_t>(warmup_of(r));
  return a;
}

cudaTextureObject_t make_texture(void* base, std::uint64_t words) {
  cudaResourceDesc resource{};
  resource.resType = cudaResourceTypeLinear;
  resource.res.linear.devPtr = base;
  resource.res.linear.desc = cudaCreateChannelDesc<unsigned int>();
  resource.res.linear.sizeInBytes = words * 4;
  cudaTextureDesc texture{};
  texture.readMode = cudaReadModeElementType;
  cudaTextureObject_t object = 0;
  check(cudaCreateTextureObject(&object, &resource, &texture, nullptr), "cudaCreateTextureObject");
  return object;
}

// Builds request `r`'s array at `p`: true when a strided fill is still running (waited on once
// per launch), false when the array's successor table was waited on here (the table is reused).
bool fill(const ChaseRequest& r, std::uint8_t* p, const ChaseLayout& layout,
          DeviceArena& successor_table, cudaStream_t stream) {
  // Device-memory chains hold addresses; every other array holds positions.
  const bool pointers = chain_timed(r) && global_load(r.space);
  if (r.pattern == Pattern::Strided) {
    check(pointers
              ? fill_pointer_chain(p, nullptr, layout.elements, r.stride_bytes, stream)
              : fill_strided(p, layout.index_bytes, layout.elements, layout.stride_words, stream),
          "building a strided chase array");
    return true;
  } else if (r.pattern == Pattern::Sequence) {
    const auto& order = r.sequence;
    auto* table = successor_table.reserve(order.size() * sizeof(std::uint64_t));
    check(cudaMemcpyAsync(table, order.data(), order.size() * sizeof(std::uint64_t),
                          cudaMemcpyHostToDevice, stream),
          "cudaMemcpyAsync (chase sequence)");
    check(scatter_sequence(p, layout.index_bytes, reinterpret_cast<std::uint64_t*>(table),
                           order.size(), layout.stride_words, stream),
          "building a sequence chase array");
    // The table is reused by the next array.
    wait_for(stream, kBuildSeconds, "building the chase arrays");
    return false;
  } else {
    const auto next = successors(layout.elements, r.pattern);
    auto* table = successor_table.reserve(next.size() * sizeof(std::uint64_t));
    check(cudaMemcpyAsync(table, next.data(), next.size() * sizeof(std::uint64_t),
                          cudaMemcpyHostToDevice, stream),
          "cudaMemcpyAsync (chase permutation)");
    const auto* successors_on_device = reinterpret_cast<std::uint64_t*>(table);
    check(pointers
              ? fill_pointer_chain(p, successors_on_device, layout.elements, r.stride_bytes, stream)
              : scatter_successors(p, layout.index_bytes, successors_on_device, layout.elements,
                                   layout.stride_words, stream),
          "building a random chase array");
    // The table is reused by the next array, and `next` dies here.
    wait_for(stream, kBuildSeconds, "building the chase arrays");
    return false;
  }
}

}  // namespace

namespace {

// Each device-memory array's bytes from an aligned base (its region's offset included), in the
// order the constructor places them.
std::vector<std::uint64_t> global_sizes(const std::vector<const ChaseUnit*>& units) {
  std::vector<std::uint64_t> sizes;
  for (const auto* u : units)
    for (const ChaseRequest* r : {&u->a, u->b ? &*u->b : nullptr})
      if (r != nullptr && r->space != Space::Constant)
        sizes.push_back(region_offset(*r) + r->array_bytes);
  return sizes;
}

}  // namespace

std::uint64_t LaunchArrays::successor_bytes(const std::vector<ChaseUnit>& units,
                                            const ChaseLimits& limits) {
  std::uint64_t bytes = 0;
  for (const auto& u : units)
    for (const ChaseRequest* r : {&u.a, u.b ? &*u.b : nullptr}) {
      if (r == nullptr || r->space == Space::Constant) continue;
      if (r->pattern == Pattern::Sequence)
        bytes = std::max<std::uint64_t>(bytes, r->sequence.size() * sizeof(std::uint64_t));
      else if (r->pattern == Pattern::Random)
        bytes = std::max(bytes, make_layout(*r, limits).elements * sizeof(std::uint64_t));
    }
  return bytes;
}

std::uint64_t LaunchArrays::device_bytes(const std::vector<const ChaseUnit*>& units) {
  return place(global_sizes(units), kArrayAlignment, array_gap()).total;
}

LaunchArrays::LaunchArrays(const std::vector<const ChaseUnit*>& units, const ChaseLimits& limits,
                           DeviceArena& arrays, DeviceArena& successor_table, cudaStream_t stream,
                           bool wait_for_fills) {
  const auto n = units.size();
  a_.resize(n);
  b_.resize(n);

  // Which array goes where: device memory (every space but constant) or the constant bank.
  struct GlobalArray {
    const ChaseRequest* request;
    ChaseArray* target;
  };
  std::vector<GlobalArray> globals;
  std::vector<PlanUnit> constant_users(n);
  for (std::size_t i = 0; i < n; ++i) {
    const auto& u = *units[i];
    for (auto [r, target] : {std::pair{&u.a, &a_[i]}, std::pair{u.b ? &*u.b : nullptr, &b_[i]}}) {
      if (r == nullptr) continue;
      *target = describe_array(*r, make_layout(*r, limits));
      if (r->space == Space::Constant) {
        constant_users[i].constants.push_back(constant_array(*r));
      } else {
        globals.push_back({r, target});
      }
    }
    if (u.b && u.a.space == Space::Shared && u.b->space == Space::Shared)
      b_[i].shared_word = static_cast<std::uint32_t>(a_[i].words);
  }

  const auto placement = place(global_sizes(units), kArrayAlignment, array_gap());
  std::uint8_t* base = arrays.reserve(placement.total);

  bool strided_pending = false;
  for (std::size_t g = 0; g < globals.size(); ++g) {
    const ChaseRequest& r = *globals[g].request;
    ChaseArray& a = *globals[g].target;
    std::uint8_t* p = base + placement.offsets[g] + region_offset(r);
    const auto layout = make_layout(r, limits);
    strided_pending = fill(r, p, layout, successor_table, stream);
    a.base = address_value(p);
    if (r.space == Space::Texture) {
      textures_.objects.push_back(make_texture(p, layout.words));
      a.texture = textures_.objects.back();
    }
  }

  // Waited on before the chase, so that a fault in a fill is reported under its own name; once per
  // launch, not per array: a wait per array cost an L1 size sweep 10 to 20 % on an H100.
  if (strided_pending && wait_for_fills)
    wait_for(stream, kBuildSeconds, "building the chase arrays");

  upload_constants(units, constant_users, limits, stream);
}

void LaunchArrays::upload_constants(const std::vector<const ChaseUnit*>& units,
                                    const std::vector<PlanUnit>& constant_users,
                                    const ChaseLimits& limits, cudaStream_t stream) {
  const auto n = units.size();
  std::vector<const PlanUnit*> users;
  for (const auto& c : constant_users) users.push_back(&c);
  const auto packing = pack_constants(users);
  for (std::size_t c = 0; c < packing.arrays.size(); ++c) {
    ChaseRequest r;
    r.space = Space::Constant;
    r.array_bytes = packing.arrays[c].bytes;
    r.stride_bytes = packing.arrays[c].stride_bytes;
    r.warmup_passes = 0;
    r.pattern = packing.arrays[c].pattern;
    r.sequence = packing.arrays[c].sequence;
    auto image = image32(make_layout(r, limits), r.pattern, r.sequence);
    // A chain holds byte offsets into the bank.
    if (packing.arrays[c].chain)
      for (auto& word : image)
        word = static_cast<std::uint32_t>(packing.offsets[c] + std::uint64_t{word} * 4);
    // From pageable memory, the copy is staged before the call returns.
    check(upload_constant(image.data(), image.size(), packing.offsets[c] / 4, stream),
          "cudaMemcpyToSymbolAsync (constant chase bank)");
  }
  for (std::size_t i = 0; i < n; ++i) {
    const auto& u = *units[i];
    for (auto [r, target] : {std::pair{&u.a, &a_[i]}, std::pair{u.b ? &*u.b : nullptr, &b_[i]}})
      if (r != nullptr && r->space == Space::Constant)
        target->constant_word =
            static_cast<std::uint32_t>(packing.offset_of(constant_array(*r)) / 4);
  }
}

LaunchArrays::Textures::~Textures() {
  for (auto t : objects) cudaDestroyTextureObject(t);
}

std::uint32_t LaunchArrays::shared_bytes(std::size_t i) const {
  std::uint64_t words = 0;
  for (const auto* a : {&a_[i], &b_[i]})
    if (a->space == static_cast<std::uint32_t>(Space::Shared) && a->words > 0) words += a->words;
  return static_cast<std::uint32_t>(words * 4);
}

}  // namespace gputopo::device::cuda
