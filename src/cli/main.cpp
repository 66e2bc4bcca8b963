#include <cstdio>

int main() {
  std::puts("gputopo: under construction");
  return 0;
}
