// Hopper's warpgroup matrix multiply (wgmma.mma_async, sm_90a only): a stream of BF16 m64n256k16
// or FP8 (E4M3 or E5M2) m64n256k32 products per warpgroup, both operands in shared memory (the same
// bytes for both types), accumulating in 128 FP32 registers a thread. Built for sm_90a alone (its
// own object library); a GPU of another compute capability has no image of this kernel, and the
// host refuses the op there.
#include <cuda_runtime.h>

#include <cstdint>

#include "device/cuda/compute_job.hpp"
#include "device/cuda/device_clock.cuh"
#include "device/cuda/kernels.hpp"

namespace gputopo::device::cuda {
namespace {

// Operand tiles: A (64 rows of 32 bytes: 16 BF16 or 32 FP8) at 0, B (256 rows) at 8 KiB; zeros,
// no swizzle.
constexpr std::uint32_t kWgmmaSharedBytes = 32768;
constexpr std::uint32_t kBOffset = 8192;

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
// A shared-memory matrix descriptor: start address, leading and stride byte offsets (16-byte
// units), no swizzle.
__device__ __forceinline__ std::uint64_t descriptor(std::uint32_t address) {
  constexpr std::uint64_t kLeading = 128 >> 4;
  constexpr std::uint64_t kStride = 256 >> 4;
  return ((address & 0x3FFFFU) >> 4) | (kLeading << 16) | (kStride << 32);
}

// The instruction's shape and types, and its immediates after the scales (FP8 takes no transpose
// immediates: K-major is its only layout).
template <ComputeOp Op>
struct WgmmaForm;
template <>
struct WgmmaForm<ComputeOp::WgmmaBf16> {
  static constexpr char kShape[] = "m64n256k16.f32.bf16.bf16";
  static constexpr char kTail[] = ", 0, 0";
};
template <>
struct WgmmaForm<ComputeOp::WgmmaE4M3> {
  static constexpr char kShape[] = "m64n256k32.f32.e4m3.e4m3";
  static constexpr char kTail[] = "";
};
template <>
struct WgmmaForm<ComputeOp::WgmmaE5M2> {
  static constexpr char kShape[] = "m64n256k32.f32.e5m2.e5m2";
  static constexpr char kTail[] = "";
};

template <ComputeOp Op>
__device__ __forceinline__ void wgmma(float (&d)[128], std::uint64_t a, std::uint64_t b) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
      "wgmma.mma_async.sync.aligned.%131 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, "
      "%20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, "
      "%38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, "
      "%56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, "
      "%74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, "
      "%92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, "
      "%108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, "
      "%123, %124, %125, %126, %127}, %128, %129, p, 1, 1%132;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
        "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
        "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]),
        "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
        "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]),
        "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]),
        "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]),
        "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]),
        "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]),
        "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]),
        "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]),
        "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]),
        "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]),
        "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),
        "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]),
        "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]),
        "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]),
        "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
      : "l"(a), "l"(b), "r"(1), "C"(WgmmaForm<Op>::kShape), "C"(WgmmaForm<Op>::kTail));
}
#endif

template <ComputeOp Op>
__global__ void __launch_bounds__(256) wgmma_kernel(ComputeLaunchArgs args) {
  extern __shared__ __align__(1024) std::uint8_t s_tiles[];
  auto* words = reinterpret_cast<uint4*>(s_tiles);
  for (std::uint32_t i = threadIdx.x; i < kWgmmaSharedBytes / 16; i += blockDim.x)
    words[i] = make_uint4(0, 0, 0, 0);
  __syncthreads();
  float d[128];
#pragma unroll
  for (int i = 0; i < 128; ++i) d[i] = 0.0f;
  const std::uint64_t start = read_clock64();
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  const auto base = static_cast<std::uint32_t>(__cvta_generic_to_shared(s_tiles));
  const std::uint64_t a = descriptor(base);
  const std::uint64_t b = descriptor(base + kBOffset);
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
  for (std::uint32_t trip = 0; trip < args.trips; ++trip) {
#pragma unroll
    for (std::uint32_t u = 0; u < kComputeUnroll; ++u) wgmma<Op>(d, a, b);
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 1;" ::: "memory");
  }
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
#endif
  const std::uint64_t end = read_clock64();
  float folded = 0;
#pragma unroll
  for (int i = 0; i < 128; ++i) folded += d[i];
  args.sink[threadIdx.x] = __float_as_uint(folded);
  const std::uint32_t warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  if (threadIdx.x % 32 == 0) {
    args.clocks[2 * warp] = start;
    args.clocks[2 * warp + 1] = end;
  }
  if (threadIdx.x == 0) {
    args.smids[blockIdx.x] = read_smid();
    args.status[blockIdx.x] = static_cast<std::uint32_t>(ComputeStatus::Done);
  }
}

}  // namespace

cudaError_t launch_wgmma(ComputeOp op, const ComputeLaunchArgs& args, std::uint32_t blocks,
                         std::uint32_t threads, cudaStream_t s) {
  const auto kernel = op == ComputeOp::WgmmaE4M3   ? wgmma_kernel<ComputeOp::WgmmaE4M3>
                      : op == ComputeOp::WgmmaE5M2 ? wgmma_kernel<ComputeOp::WgmmaE5M2>
                                                   : wgmma_kernel<ComputeOp::WgmmaBf16>;
  const cudaError_t rc =
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kWgmmaSharedBytes);
  if (rc != cudaSuccess) return rc;
  kernel<<<blocks, threads, kWgmmaSharedBytes, s>>>(args);
  return cudaGetLastError();
}

}  // namespace gputopo::device::cuda
