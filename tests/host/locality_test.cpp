#include "numa/locality.hpp"

#include <gtest/gtest.h>

namespace gputopo::numa {
namespace {

TEST(Locality, WithoutHwlocItIsNotEstablishedAndSaysSo) {
  const Locality l = locality_of("0000:18:00.0", "libhwloc-that-is-not-there.so.15");
  EXPECT_FALSE(l.established);
  EXPECT_EQ(l.reason.rfind("hwloc not found", 0), 0u) << l.reason;
}

TEST(Locality, AnUnknownBusIdIsRefusedBeforeHwlocIsAsked) {
  const Locality l = locality_of("", "libhwloc-that-is-not-there.so.15");
  EXPECT_FALSE(l.established);
  EXPECT_EQ(l.reason, "the GPU's PCI bus id is not known");
}

TEST(Locality, ADeviceHwlocDoesNotListIsNotEstablished) {
  // The build needs hwloc's header (libhwloc-dev), whose package brings the library.
  const Locality l = locality_of("00ff:fe:1f.7");
  EXPECT_FALSE(l.established);
  EXPECT_EQ(l.reason, "hwloc does not list the PCI device 00ff:fe:1f.7") << l.reason;
}

}  // namespace
}  // namespace gputopo::numa
