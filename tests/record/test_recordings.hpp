#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "device/requests.hpp"

// Requests and a scratch directory shared by the record tests.
namespace gputopo::device::record::testing {

// Each test gets an empty directory path of its own, removed afterwards.
class TempDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    static std::atomic<int> counter{0};
    dir_ = std::filesystem::temp_directory_path() /
           ("gputopo-record-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    std::filesystem::remove_all(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::filesystem::path dir_;
};

inline std::string read_text(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

inline void write_text(const std::filesystem::path& file, const std::string& text) {
  std::ofstream(file, std::ios::binary | std::ios::trunc) << text;
}

inline ChaseRequest chase_request(Space space, std::uint64_t bytes, std::uint32_t stride = 128) {
  ChaseRequest r;
  r.space = space;
  r.array_bytes = bytes;
  r.stride_bytes = stride;
  r.recorded_loads = 9;
  return r;
}

// Three L1 sizes at carve-out 0; the second records indices, the third is placed and random.
inline ChaseBatch l1_sweep() {
  ChaseBatch b;
  b.carveout_percent = 0;
  for (std::uint64_t kib : {16, 128, 256})
    b.requests.push_back(chase_request(Space::L1, kib << 10));
  b.requests[1].record_indices = true;
  b.requests[2].sm = 3;
  b.requests[2].pattern = Pattern::Random;
  return b;
}

inline InterferenceBatch amount_batch() {
  InterferenceBatch b;
  InterferenceRequest r;
  r.a = chase_request(Space::Texture, 64 << 10);
  r.b = chase_request(Space::ReadOnly, 96 << 10, 32);
  r.placement = InterferenceRequest::Placement::TwoThreads;
  r.thread_a = 0;
  r.thread_b = 33;
  r.sm = 1;
  b.requests = {r, r};
  b.requests[1].placement = InterferenceRequest::Placement::SameThread;
  return b;
}

inline StreamRequest copy_stream() {
  StreamRequest s;
  s.kind = StreamKind::Copy;
  s.bytes = 1ull << 31;
  s.repeats = 4;
  return s;
}

}  // namespace gputopo::device::record::testing
