#pragma once

#include <cstdint>
#include <optional>

// How many of the first level's pages one entry of a later level covers, from where its step
// falls at strides of 1.5 and 3 pages (docs/methods.md, "Translation (TLB)").
namespace gputopo::discovery {

// One stride's test: whether the arrays there could reach past the expected steps, and the first
// count at which loads missed (nullopt: none up to the largest tested count).
struct StrideTest {
  bool tested = false;
  std::optional<std::uint64_t> first_miss;
};

struct Coverage {
  std::uint64_t pages = 1;  // pages of the first level's size one entry covers
  bool at_least = false;    // a larger coverage could not be ruled out (memory)
};

// `entries`: the level's count at one page an element (first miss - 1). An entry covering C pages
// holds C / s elements of a stride of s pages where s < C, and one from C on: the count at stride
// s is E x max(1, C / s) for E entries of C pages, and `entries` = E x C. At s = 3 that is all of
// `entries` for C = 1, 1/2 for C = 2 and 1/3 for C >= 4; an odd multiple of the page fills every
// set of a modulo index alike, so it is read first, as the nearest of the three (no miss up to
// 0.6 x entries: C = 1). Where memory cannot hold that test, s = 1.5: all of `entries` for C = 1,
// 2/3 for every C >= 2 (a modulo index of few ways fills unevenly at 1.5 pages and brings the
// first miss of C = 1 forward: at 8 ways to 0.89).
Coverage read_coverage(std::uint64_t entries, const StrideTest& at_one_and_a_half,
                       const StrideTest& at_three);

}  // namespace gputopo::discovery
