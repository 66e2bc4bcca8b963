#include "analysis/parallel.hpp"

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

namespace gputopo::analysis {

void parallel_for(std::size_t n, const std::function<void(std::size_t)>& each,
                  std::size_t least_for_threads) {
  std::atomic<std::size_t> next{0};
  const auto work = [&] {
    for (std::size_t i; (i = next.fetch_add(1)) < n;) each(i);
  };
  const std::size_t threads = n < least_for_threads
                                  ? 1
                                  : std::clamp<std::size_t>(std::thread::hardware_concurrency(), 1,
                                                            std::min(kMaxThreads, n));
  std::vector<std::thread> pool;
  for (std::size_t t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
}

}  // namespace gputopo::analysis
