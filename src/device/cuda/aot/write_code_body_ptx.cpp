// Writes the code body of INSTRUCTIONS FFMAs for sm_SM as PTX to OUT, for the build to compile
// ahead of time.
#include <cstdlib>
#include <fstream>
#include <iostream>

#include "device/cuda/code_body_ptx.hpp"

int main(int argc, char** argv) {
  if (argc != 4) {
    std::cerr << "usage: write_code_body_ptx INSTRUCTIONS SM OUT\n";
    return 2;
  }
  const auto instructions = static_cast<std::uint32_t>(std::strtoul(argv[1], nullptr, 10));
  const int sm = std::atoi(argv[2]);
  std::ofstream out(argv[3], std::ios::binary);
  out << gputopo::device::cuda::code_body_ptx(instructions, false, sm);
  return out ? 0 : 1;
}
