#include "model/printable.hpp"

#include <gtest/gtest.h>

namespace gputopo::model {
namespace {

TEST(Printable, ControlCharactersBecomeEscapesAndTheRestStays) {
  EXPECT_EQ(printable("plain text, ümlaut"), "plain text, ümlaut");
  EXPECT_EQ(printable("a\nb\rc\td"), "a\\nb\\rc\\td");
  EXPECT_EQ(printable(std::string("\x1b[2J\x7f") + '\0'), "\\x1b[2J\\x7f\\x00");
}

TEST(Printable, BytesThatAreNotUtf8BecomeEscapes) {
  EXPECT_EQ(printable("\xe2\x82\xac \xf0\x9f\x98\x80"), "\xe2\x82\xac \xf0\x9f\x98\x80");
  EXPECT_EQ(printable("a\xff.json"), "a\\xff.json");
  EXPECT_EQ(printable("\xc3"), "\\xc3");                             // cut short
  EXPECT_EQ(printable("\xc0\xaf"), "\\xc0\\xaf");                    // overlong '/'
  EXPECT_EQ(printable("\xed\xa0\x80"), "\\xed\\xa0\\x80");           // a surrogate
  EXPECT_EQ(printable("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80");  // above U+10FFFF
}

}  // namespace
}  // namespace gputopo::model
