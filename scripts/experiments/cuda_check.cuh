// The experiments' check of a CUDA runtime call (CHECK) or driver call (CU, for experiments linked
// with -lcuda): on an error, the call and the error on stderr, then exit 1.
#pragma once

#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

#define CHECK(x)                                                   \
  do {                                                             \
    cudaError_t e = (x);                                           \
    if (e != cudaSuccess) {                                        \
      std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e)); \
      std::exit(1);                                                \
    }                                                              \
  } while (0)

#define CU(x)                                            \
  do {                                                   \
    CUresult r = (x);                                    \
    if (r != CUDA_SUCCESS) {                             \
      const char* s = nullptr;                           \
      cuGetErrorString(r, &s);                           \
      std::fprintf(stderr, "%s: %s\n", #x, s ? s : "?"); \
      std::exit(1);                                      \
    }                                                    \
  } while (0)
