#include "device/cuda/code_body_ptx.hpp"

#include "device/compute_request.hpp"

namespace gputopo::device::cuda {
namespace {

constexpr int kChains = 8;

// The constant chase before each pass: `loads` dependent loads from a zero table, each address
// the last plus the loaded value plus the stride, wrapping at `bytes`.
std::string chase_ptx() {
  return "mov.u32 %k, 0;\nCHASE:\ncvt.u64.u32 %ra, %a;\nadd.u64 %ra, %table, %ra;\n"
         "ld.const.u32 %v, [%ra];\nadd.u32 %a, %a, %v;\nadd.u32 %a, %a, " +
         std::to_string(kCodeChaseStride) +
         ";\nsetp.ge.u32 %q, %a, %bytes;\nselp.u32 %a, 0, %a, %q;\nadd.u32 %k, %k, 1;\n"
         "setp.lt.u32 %q, %k, %loads;\n@%q bra CHASE;\n";
}

// The oldest PTX ISA that names sm_`sm` as a target (ptxas refuses a newer target under an older
// ISA): 8.0 up to Hopper; for Blackwell 8.6 (sm_100, sm_101), 8.7 (sm_120), 8.8 (sm_103, sm_121),
// 9.0 beyond.
std::string ptx_isa_version(int sm) {
  if (sm < 100) return "8.0";
  if (sm <= 101) return "8.6";
  if (sm == 120) return "8.7";
  if (sm == 103 || sm == 121) return "8.8";
  return "9.0";
}

}  // namespace

// The kernel as PTX: a loop over `instructions` FFMAs round-robin over 8 independent chains
// (after a constant chase where `chase`), timed with %clock64 around the loop; lane 0 of each
// warp writes its two clock readings, thread 0 the SM and "done", every thread its chains' sum
// and chase position (so nothing is dropped).
std::string code_body_ptx(std::uint32_t instructions, bool chase, int sm) {
  std::string p;
  p.reserve(static_cast<std::size_t>(instructions) * 40 + 4096);
  p += ".version " + ptx_isa_version(sm) + "\n.target sm_" + std::to_string(sm) +
       "\n.address_size 64\n";
  if (chase)
    p += ".const .align 4 .b32 gputopo_table[" + std::to_string(kMaxCodeChaseBytes / 4) + "];\n";
  p += ".visible .entry gputopo_code_body(.param .u64 p_clocks, .param .u64 p_smids, "
       ".param .u64 p_status, .param .u64 p_sink, .param .u32 p_trips, .param .f32 p_f1, "
       ".param .f32 p_f2, .param .u32 p_loads, .param .u32 p_bytes)\n{\n";
  p += ".reg .pred %p, %q;\n.reg .b32 %trip, %trips, %thr, %lane, %wp, %sm, %one, %k, %a, %v, "
       "%loads, %bytes;\n.reg .b64 %clocks, %smids, %status, %sink, %t0, %t1, %at, %ra, %table;\n"
       ".reg .f32 %f1, %f2, %sum, %x<8>;\n";
  p += "ld.param.u64 %clocks, [p_clocks];\nld.param.u64 %smids, [p_smids];\n"
       "ld.param.u64 %status, [p_status];\nld.param.u64 %sink, [p_sink];\n"
       "ld.param.u32 %trips, [p_trips];\nld.param.f32 %f1, [p_f1];\nld.param.f32 %f2, [p_f2];\n"
       "ld.param.u32 %loads, [p_loads];\nld.param.u32 %bytes, [p_bytes];\n"
       "cvta.to.global.u64 %clocks, %clocks;\ncvta.to.global.u64 %smids, %smids;\n"
       "cvta.to.global.u64 %status, %status;\ncvta.to.global.u64 %sink, %sink;\n"
       "mov.u32 %thr, %tid.x;\nmov.u32 %a, 0;\n";
  if (chase) p += "mov.u64 %table, gputopo_table;\n";
  for (int c = 0; c < kChains; ++c)
    p += "cvt.rn.f32.u32 %x" + std::to_string(c) + ", %thr;\nadd.f32 %x" + std::to_string(c) +
         ", %x" + std::to_string(c) + ", 0f3F80000" + std::to_string(c) + ";\n";
  p += "mov.u32 %trip, 0;\nmov.u64 %t0, %clock64;\nLOOP:\n";
  if (chase) p += chase_ptx();
  for (std::uint32_t i = 0; i < instructions; ++i) {
    const std::string x = "%x" + std::to_string(i % kChains);
    p += "fma.rn.f32 " + x + ", " + x + ", %f1, %f2;\n";
  }
  p += "add.u32 %trip, %trip, 1;\nsetp.lt.u32 %p, %trip, %trips;\n@%p bra LOOP;\n"
       "mov.u64 %t1, %clock64;\n";
  p += "add.f32 %sum, %x0, %x1;\n";
  for (int c = 2; c < kChains; ++c) p += "add.f32 %sum, %sum, %x" + std::to_string(c) + ";\n";
  if (chase) p += "cvt.rn.f32.u32 %f1, %a;\nadd.f32 %sum, %sum, %f1;\n";
  p += "mul.wide.u32 %at, %thr, 4;\nadd.u64 %at, %sink, %at;\nst.global.f32 [%at], %sum;\n"
       "and.b32 %lane, %thr, 31;\nsetp.ne.u32 %p, %lane, 0;\n@%p bra DONE;\n"
       "shr.u32 %wp, %thr, 5;\nmul.wide.u32 %at, %wp, 16;\nadd.u64 %at, %clocks, %at;\n"
       "st.global.u64 [%at], %t0;\nst.global.u64 [%at+8], %t1;\n"
       "setp.ne.u32 %p, %thr, 0;\n@%p bra DONE;\nmov.u32 %sm, %smid;\n"
       "st.global.u32 [%smids], %sm;\nmov.u32 %one, 1;\nst.global.u32 [%status], %one;\n"
       "DONE:\nret;\n}\n";
  return p;
}

}  // namespace gputopo::device::cuda
