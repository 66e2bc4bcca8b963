#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <set>
#include <string>
#include <utility>

#include "device/record/replay.hpp"
#include "discovery/discover.hpp"

namespace gputopo::device::record::testing {

// The discovery of `only` (every probe where empty) at `depth`, replayed from the recording in
// tests/data/runs/`archive`, unpacked under `dir`; `folder` is the recording's folder in it.
inline discovery::Result replay_run(const std::filesystem::path& dir, const std::string& archive,
                                    const std::string& folder, std::set<std::string> only,
                                    discovery::Depth depth = discovery::Depth::Quick) {
  std::filesystem::create_directories(dir);
  // gzip (.tgz) or xz (.txz, about half the size): tar tells them apart.
  const std::string untar = "tar -xf '" + std::string(GPUTOPO_TEST_DATA) + "/runs/" + archive +
                            "' -C '" + dir.string() + "'";
  EXPECT_EQ(std::system(untar.c_str()), 0) << untar;
  auto replay = open_replay(dir / folder);
  discovery::NullProgress progress;
  discovery::Options o;
  o.only = std::move(only);
  o.depth = depth;
  o.retry_backoff_s = 0;
  return discovery::discover(*replay, o, progress, nullptr);
}

}  // namespace gputopo::device::record::testing
