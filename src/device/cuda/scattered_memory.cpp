#include "device/cuda/scattered_memory.hpp"

#include <cuda.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <string>

#include "device/cuda/check.hpp"

namespace gputopo::device::cuda {
namespace {

constexpr unsigned kDriverApiVersion = 12000;  // the entry points' CUDA 12 signatures
constexpr std::uint64_t kShuffleSeed = 0x5ca77e7ed;

[[noreturn]] void refuse(const std::string& why) {
  throw Error(Error::Kind::BadRequest, "scattered mapping: " + why);
}

template <class F>
void entry(const char* symbol, F*& f) {
  void* p = nullptr;
  cudaDriverEntryPointQueryResult found{};
  if (cudaGetDriverEntryPointByVersion(symbol, &p, kDriverApiVersion, cudaEnableDefault, &found) !=
          cudaSuccess ||
      found != cudaDriverEntryPointSuccess || p == nullptr) {
    cudaGetLastError();
    refuse(std::string("the driver has no ") + symbol);
  }
  f = reinterpret_cast<F*>(p);
}

}  // namespace

struct ScatteredMemory::Api {
  CUresult (*attribute)(int*, CUdevice_attribute, CUdevice) = nullptr;
  CUresult (*granularity)(size_t*, const CUmemAllocationProp*,
                          CUmemAllocationGranularity_flags) = nullptr;
  CUresult (*create)(CUmemGenericAllocationHandle*, size_t, const CUmemAllocationProp*,
                     unsigned long long) = nullptr;
  CUresult (*release)(CUmemGenericAllocationHandle) = nullptr;
  CUresult (*reserve)(CUdeviceptr*, size_t, size_t, CUdeviceptr, unsigned long long) = nullptr;
  CUresult (*free)(CUdeviceptr, size_t) = nullptr;
  CUresult (*map)(CUdeviceptr, size_t, size_t, CUmemGenericAllocationHandle,
                  unsigned long long) = nullptr;
  CUresult (*unmap)(CUdeviceptr, size_t) = nullptr;
  CUresult (*access)(CUdeviceptr, size_t, const CUmemAccessDesc*, size_t) = nullptr;
  CUmemAllocationProp prop{};

  void check_cu(CUresult rc, const char* what) const {
    if (rc == CUDA_SUCCESS) return;
    const auto kind =
        rc == CUDA_ERROR_OUT_OF_MEMORY ? Error::Kind::OutOfMemory : Error::Kind::Measurement;
    throw Error(kind, std::string("CUDA driver error ") + std::to_string(static_cast<int>(rc)) +
                          " in " + what + " (scattered mapping)");
  }
};

ScatteredMemory::ScatteredMemory() : api_(std::make_unique<Api>()) {
  auto& a = *api_;
  entry("cuDeviceGetAttribute", a.attribute);
  entry("cuMemGetAllocationGranularity", a.granularity);
  entry("cuMemCreate", a.create);
  entry("cuMemRelease", a.release);
  entry("cuMemAddressReserve", a.reserve);
  entry("cuMemAddressFree", a.free);
  entry("cuMemMap", a.map);
  entry("cuMemUnmap", a.unmap);
  entry("cuMemSetAccess", a.access);
  check(cudaGetDevice(&device_), "cudaGetDevice");
  int supported = 0;
  a.check_cu(
      a.attribute(&supported, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, device_),
      "cuDeviceGetAttribute");
  if (supported == 0) refuse("the device does not support virtual memory management");
  a.prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  a.prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  a.prop.location.id = device_;
  size_t granule = 0;
  a.check_cu(a.granularity(&granule, &a.prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM),
             "cuMemGetAllocationGranularity");
  if (granule == 0) refuse("the driver gives no allocation granularity");
  granule_ = granule;
}

ScatteredMemory::~ScatteredMemory() {
  try {
    release();
  } catch (const Error&) {  // nothing left to do with a failing driver at teardown
  }
}

void ScatteredMemory::release() {
  const auto& a = *api_;
  if (bytes_ > 0) a.unmap(base_, bytes_);
  for (const auto h : handles_) a.release(h);
  handles_.clear();
  if (base_ != 0) a.free(base_, bytes_);
  base_ = 0;
  bytes_ = 0;
}

std::uint8_t* ScatteredMemory::map(std::uint64_t bytes) {
  release();
  const auto& a = *api_;
  const std::uint64_t chunks = std::max<std::uint64_t>(1, (bytes + granule_ - 1) / granule_);
  std::size_t free_bytes = 0;
  std::size_t total_bytes = 0;
  check(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
  if (chunks * granule_ > free_bytes)
    throw Error(Error::Kind::BadRequest,
                "scattered chase arrays need " + std::to_string(chunks * granule_) +
                    " B of device memory; " + std::to_string(free_bytes) + " B are free");
  CUdeviceptr base = 0;
  a.check_cu(a.reserve(&base, chunks * granule_, granule_, 0, 0), "cuMemAddressReserve");
  base_ = base;
  bytes_ = chunks * granule_;
  std::vector<std::uint64_t> slot(chunks);
  std::iota(slot.begin(), slot.end(), std::uint64_t{0});
  std::shuffle(slot.begin(), slot.end(), std::mt19937_64(kShuffleSeed));
  std::uint64_t mapped = 0;
  try {
    for (std::uint64_t i = 0; i < chunks; ++i) {
      CUmemGenericAllocationHandle h = 0;
      a.check_cu(a.create(&h, granule_, &a.prop, 0), "cuMemCreate");
      handles_.push_back(h);
      a.check_cu(a.map(base_ + slot[i] * granule_, granule_, 0, h, 0), "cuMemMap");
      ++mapped;
    }
    CUmemAccessDesc access{};
    access.location = a.prop.location;
    access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    a.check_cu(a.access(base_, bytes_, &access, 1), "cuMemSetAccess");
  } catch (const Error&) {
    for (std::uint64_t i = 0; i < mapped; ++i) a.unmap(base_ + slot[i] * granule_, granule_);
    for (const auto h : handles_) a.release(h);
    handles_.clear();
    a.free(base_, bytes_);
    base_ = 0;
    bytes_ = 0;
    throw;
  }
  return reinterpret_cast<std::uint8_t*>(static_cast<std::uintptr_t>(base_));
}

}  // namespace gputopo::device::cuda
