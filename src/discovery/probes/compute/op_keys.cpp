#include "discovery/probes/compute/op_keys.hpp"

#include <algorithm>
#include <array>

namespace gputopo::discovery {
namespace {

using O = device::ComputeOp;
namespace k = model::keys;

struct Row {
  O op;
  OpKeys keys;
};

constexpr std::array<Row, 38> kOpKeys{{
    {O::FAdd32, {&k::faddLatency, &k::faddThroughput, nullptr, nullptr}},
    {O::FMul32, {&k::fmulLatency, &k::fmulThroughput, nullptr, nullptr}},
    {O::FFma32, {&k::ffmaLatency, &k::ffmaThroughput, nullptr, nullptr}},
    {O::DAdd, {&k::daddLatency, &k::daddThroughput, nullptr, nullptr}},
    {O::DFma, {&k::dfmaLatency, &k::dfmaThroughput, nullptr, nullptr}},
    {O::HFma2, {&k::hfma2Latency, &k::hfma2Throughput, nullptr, nullptr}},
    {O::BFma2, {&k::bf16Fma2Latency, &k::bf16Fma2Throughput, nullptr, nullptr}},
    {O::IAdd3, {&k::iadd3Latency, &k::iadd3Throughput, nullptr, nullptr}},
    {O::IMad, {&k::imadLatency, &k::imadThroughput, nullptr, nullptr}},
    {O::Lop3, {&k::lop3Latency, &k::lop3Throughput, nullptr, nullptr}},
    {O::Shf, {&k::shfLatency, &k::shfThroughput, nullptr, nullptr}},
    {O::Rcp, {&k::mufuRcpLatency, &k::mufuRcpThroughput, nullptr, nullptr}},
    {O::Rsq, {&k::mufuRsqLatency, &k::mufuRsqThroughput, nullptr, nullptr}},
    {O::Sin, {&k::mufuSinLatency, &k::mufuSinThroughput, nullptr, nullptr}},
    {O::Ex2, {&k::mufuEx2Latency, &k::mufuEx2Throughput, nullptr, nullptr}},
    {O::Lg2, {&k::mufuLg2Latency, &k::mufuLg2Throughput, nullptr, nullptr}},
    {O::F2I, {&k::f2iLatency, &k::f2iThroughput, nullptr, nullptr}},
    {O::I2F, {&k::i2fLatency, &k::i2fThroughput, nullptr, nullptr}},
    {O::F2F, {&k::f2fLatency, &k::f2fThroughput, nullptr, nullptr}},
    {O::Shfl, {&k::shflLatency, &k::shflThroughput, nullptr, nullptr}},
    {O::Vote, {&k::voteLatency, &k::voteThroughput, nullptr, nullptr}},
    {O::Match, {&k::matchLatency, &k::matchThroughput, nullptr, nullptr}},
    {O::AtomGlobal, {&k::atomGlobalLatency, &k::atomGlobalThroughput, nullptr, nullptr}},
    {O::AtomGlobalOne,
     {&k::atomGlobalOneAddressLatency, &k::atomGlobalOneAddressThroughput, nullptr, nullptr}},
    {O::AtomShared, {&k::atomSharedLatency, &k::atomSharedThroughput, nullptr, nullptr}},
    {O::AtomSharedOne,
     {&k::atomSharedOneAddressLatency, &k::atomSharedOneAddressThroughput, nullptr, nullptr}},
    {O::MmaF16, {&k::mmaF16Latency, &k::mmaF16Throughput, &k::mmaF16PerClkPerSm, &k::mmaF16Tflops}},
    {O::MmaBF16,
     {&k::mmaBf16Latency, &k::mmaBf16Throughput, &k::mmaBf16PerClkPerSm, &k::mmaBf16Tflops}},
    {O::MmaTF32,
     {&k::mmaTf32Latency, &k::mmaTf32Throughput, &k::mmaTf32PerClkPerSm, &k::mmaTf32Tflops}},
    {O::MmaI8, {&k::mmaI8Latency, &k::mmaI8Throughput, &k::mmaI8PerClkPerSm, &k::mmaI8Tflops}},
    {O::MmaF64, {&k::mmaF64Latency, &k::mmaF64Throughput, &k::mmaF64PerClkPerSm, &k::mmaF64Tflops}},
    {O::MmaE4M3,
     {&k::mmaE4m3Latency, &k::mmaE4m3Throughput, &k::mmaE4m3PerClkPerSm, &k::mmaE4m3Tflops}},
    {O::MmaE5M2,
     {&k::mmaE5m2Latency, &k::mmaE5m2Throughput, &k::mmaE5m2PerClkPerSm, &k::mmaE5m2Tflops}},
    {O::LdShared32, {&k::ldShared32Latency, &k::ldShared32Throughput, nullptr, nullptr}},
    {O::LdShared64, {&k::ldShared64Latency, &k::ldShared64Throughput, nullptr, nullptr}},
    {O::WgmmaBf16,
     {nullptr, &k::wgmmaBf16Throughput, &k::wgmmaBf16PerClkPerSm, &k::wgmmaBf16Tflops}},
    {O::WgmmaE4M3,
     {nullptr, &k::wgmmaE4m3Throughput, &k::wgmmaE4m3PerClkPerSm, &k::wgmmaE4m3Tflops}},
    {O::WgmmaE5M2,
     {nullptr, &k::wgmmaE5m2Throughput, &k::wgmmaE5m2PerClkPerSm, &k::wgmmaE5m2Tflops}},
}};

}  // namespace

const OpKeys& op_keys(device::ComputeOp op) {
  static constexpr OpKeys kNone{};
  const auto it =
      std::find_if(kOpKeys.begin(), kOpKeys.end(), [&](const auto& row) { return row.op == op; });
  return it == kOpKeys.end() ? kNone : it->keys;
}

}  // namespace gputopo::discovery
