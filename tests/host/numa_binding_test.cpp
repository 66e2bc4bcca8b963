#include "numa/numa_binding.hpp"

#include <gtest/gtest.h>
#include <sys/mman.h>

#include <fstream>

// Binding host memory to a NUMA node through hwloc loaded at run time.
namespace gputopo::numa {
namespace {

struct Area {
  std::size_t bytes = 1 << 20;
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ~Area() { munmap(p, bytes); }
};

TEST(NumaBinding, WithoutHwlocItSaysSo) {
  Area a;
  EXPECT_EQ(bind_to_numa_node(a.p, a.bytes, 0, "libno-such-hwloc.so"),
            "hwloc not found (libno-such-hwloc.so)");
}

TEST(NumaBinding, ANodeTheHostLacksIsRefusedWithItsNumber) {
  Area a;
  const std::string why = bind_to_numa_node(a.p, a.bytes, 999);
  EXPECT_FALSE(why.empty());
  if (why.rfind("hwloc not found", 0) != 0) {
    EXPECT_EQ(why, "hwloc knows no NUMA node 999");
  }
}

TEST(NumaBinding, TheFirstNodeTakesTheBufferWhereHwlocIsPresent) {
  Area a;
  const std::string why = bind_to_numa_node(a.p, a.bytes, 0);
  if (why.rfind("hwloc not found", 0) == 0) GTEST_SKIP() << why;
  std::ifstream online("/sys/devices/system/node/online");
  if (!online) GTEST_SKIP() << "the kernel lists no NUMA nodes";
  EXPECT_EQ(why, "");
}

}  // namespace
}  // namespace gputopo::numa
