#include "model/printable.hpp"

#include <gtest/gtest.h>

namespace gputopo::model {
namespace {

TEST(Printable, ControlCharactersBecomeEscapesAndTheRestStays) {
  EXPECT_EQ(printable("plain text, ümlaut"), "plain text, ümlaut");
  EXPECT_EQ(printable("a\nb\rc\td"), "a\\nb\\rc\\td");
  EXPECT_EQ(printable(std::string("\x1b[2J\x7f") + '\0'), "\\x1b[2J\\x7f\\x00");
}

}  // namespace
}  // namespace gputopo::model
