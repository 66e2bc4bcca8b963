#include "device/cuda/cuda_device.hpp"

#include <cuda_runtime.h>

#include <iostream>
#include <string>
#include <string_view>
#include <utility>

#include "device/cuda/chase_runner.hpp"
#include "device/cuda/check.hpp"
#include "device/cuda/cluster_groups.hpp"
#include "device/cuda/compute_runner.hpp"
#include "device/cuda/read_rate_runner.hpp"
#include "device/cuda/reduction_runner.hpp"
#include "device/cuda/run_clock.hpp"
#include "device/cuda/stream_runner.hpp"
#include "device/cuda/transfer_runner.hpp"
#include "device/startup_trace.hpp"

namespace gputopo::device::cuda {
namespace {

class CudaDevice final : public Device {
 public:
  explicit CudaDevice(DeviceInfo info) : info_(std::move(info)), clock_(info_.index) {
    usable(cudaSetDevice(info_.index), "cudaSetDevice");
    // The first call that needs a context: exclusive-process mode held elsewhere fails here.
    usable(cudaFree(nullptr), "cudaFree (context creation)");
    trace_startup("context created");
    usable(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
    chases_ = std::make_unique<ChaseRunner>(info_, stream_, clock_);
    streams_ = std::make_unique<StreamRunner>(info_, stream_, clock_);
    computes_ = std::make_unique<ComputeRunner>(info_, stream_, clock_);
    read_rates_ = std::make_unique<ReadRateRunner>(info_, stream_, clock_);
    reductions_ = std::make_unique<ReductionRunner>(info_, stream_);
    trace_startup("runners ready");
    if (const auto others = clock_.other_processes(); others && *others > 0)
      std::cerr << "gputopo: warning: " << *others << " other process(es) use GPU " << info_.index
                << "; their work distorts timings\n";
  }

  ~CudaDevice() override {
    reductions_.reset();
    read_rates_.reset();
    computes_.reset();
    streams_.reset();
    chases_.reset();
    if (stream_ != nullptr) cudaStreamDestroy(stream_);
  }

  CudaDevice(const CudaDevice&) = delete;
  CudaDevice& operator=(const CudaDevice&) = delete;

  const DeviceInfo& info() const override { return info_; }

  ChaseBatchResult chase(const ChaseBatch& batch) override {
    select();
    std::vector<ChaseUnit> units;
    for (const auto& r : batch.requests) {
      ChaseUnit u;
      u.a = r;
      u.sm = r.sm;
      units.push_back(u);
    }
    return chases_->run(units, batch.carveout_percent, batch.l2_fetch_limit_bytes);
  }

  ChaseBatchResult interfere(const InterferenceBatch& batch) override {
    select();
    std::vector<ChaseUnit> units;
    for (const auto& r : batch.requests) {
      using P = InterferenceRequest::Placement;
      ChaseUnit u;
      u.a = r.a;
      u.b = r.b;
      u.mode = r.placement == P::SameThread   ? JobMode::SameThread
               : r.placement == P::TwoThreads ? JobMode::TwoThreads
                                              : JobMode::TwoSmsA;
      u.sm_b = r.sm_b.value_or(-1);
      u.thread_a = r.thread_a;
      u.thread_b = r.thread_b;
      u.sm = r.sm;
      units.push_back(u);
    }
    return chases_->run(units, batch.carveout_percent);
  }

  StreamResult stream(const StreamRequest& request) override {
    select();
    return streams_->run(request);
  }

  ReadRateResult read_rate(const ReadRateRequest& request) override {
    select();
    return read_rates_->run(request);
  }

  ReductionResult reductions(const ReductionRequest& request) override {
    select();
    return reductions_->run(request);
  }

  ComputeBatchResult compute(const ComputeBatch& batch) override {
    select();
    return computes_->run(batch);
  }

  DeviceState state() override { return clock_.state(); }

  // A phase's large chase arrays go back to the device when the next phase starts.
  void begin_phase(std::string_view /*name*/) override {
    select();
    chases_->release_large_arrays();
  }

  std::vector<std::vector<int>> co_resident_sms(int cluster_size) override {
    select();
    return cluster_groups(info_, stream_, cluster_size);
  }

  PeerLink peer_link(int peer) override { return cuda::peer_link(info_.index, peer); }

  TransferResult transfer(const TransferRequest& request) override {
    select();
    return run_transfer(info_.index, stream_, request);
  }

 private:
  void select() const { check(cudaSetDevice(info_.index), "cudaSetDevice"); }

  // A failure while the device is being opened: the GPU cannot be used by this process.
  void usable(cudaError_t rc, const char* call) const {
    if (rc == cudaSuccess) return;
    throw Error(Error::Kind::NoDevice,
                "GPU " + std::to_string(info_.index) + " is not usable: " + call + ": " +
                    cudaGetErrorString(rc) + " (" + cudaGetErrorName(rc) + ")");
  }

  DeviceInfo info_;
  RunClock clock_;
  cudaStream_t stream_ = nullptr;
  std::unique_ptr<ChaseRunner> chases_;
  std::unique_ptr<StreamRunner> streams_;
  std::unique_ptr<ComputeRunner> computes_;
  std::unique_ptr<ReadRateRunner> read_rates_;
  std::unique_ptr<ReductionRunner> reductions_;
};

}  // namespace

std::unique_ptr<Device> make_cuda_device(DeviceInfo info) {
  return std::make_unique<CudaDevice>(std::move(info));
}

}  // namespace gputopo::device::cuda
