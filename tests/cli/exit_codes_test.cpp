#include "cli/exit_codes.hpp"

#include <gtest/gtest.h>

namespace gputopo::cli {

TEST(ExitCodes, DeviceErrorsMapToTheDocumentedCodes) {
  using Kind = device::Error::Kind;
  EXPECT_EQ(exit_code_for(Kind::NoDriver), 3);
  EXPECT_EQ(exit_code_for(Kind::NoDevice), 3);
  EXPECT_EQ(exit_code_for(Kind::Unsupported), 3);
  EXPECT_EQ(exit_code_for(Kind::BadRequest), 4);
  EXPECT_EQ(exit_code_for(Kind::Measurement), 4);
}

}  // namespace gputopo::cli
