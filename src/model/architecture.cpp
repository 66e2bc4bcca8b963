#include "model/architecture.hpp"

#include <array>

namespace gputopo::model {
namespace {
constexpr std::array<ArchitectureFacts, 23> kTable{{
    {3, 0, "Kepler", 192},     {3, 2, "Kepler", 192},       {3, 5, "Kepler", 192},
    {3, 7, "Kepler", 192},     {5, 0, "Maxwell", 128},      {5, 2, "Maxwell", 128},
    {5, 3, "Maxwell", 128},    {6, 0, "Pascal", 64},        {6, 1, "Pascal", 128},
    {6, 2, "Pascal", 128},     {7, 0, "Volta", 64},         {7, 2, "Volta", 64},
    {7, 5, "Turing", 64},      {8, 0, "Ampere", 64},        {8, 6, "Ampere", 128},
    {8, 7, "Ampere", 128},     {8, 9, "Ada Lovelace", 128}, {9, 0, "Hopper", 128},
    {10, 0, "Blackwell", 128}, {10, 3, "Blackwell", 128},   {11, 0, "Blackwell", 128},
    {12, 0, "Blackwell", 128}, {12, 1, "Blackwell", 128},
}};
}  // namespace

std::optional<ArchitectureFacts> architecture_facts(int cc_major, int cc_minor) {
  for (const auto& f : kTable)
    if (f.cc_major == cc_major && f.cc_minor == cc_minor) return f;
  return std::nullopt;
}

}  // namespace gputopo::model
