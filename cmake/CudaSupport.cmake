# Detects nvcc. Without it everything but the CUDA backend still builds (simulator only).
#
# GPUTOPO_CUDA: OFF builds without the CUDA backend even where nvcc is found (the sanitize preset:
# no GPU runs it in CI, and nvcc's device code cannot be instrumented).
#
# GPUTOPO_CUDA_ARCHS: "auto" builds real code for every architecture the installed nvcc supports
# from the project's minimum upward (sm_75 on CUDA 13, sm_60 on CUDA 12), plus PTX for the newest.
# "native" builds for the GPUs of the building host (CMake's native, as nvidia-smi finds them) and,
# where the host has none, PTX for the project's minimum only (JIT-compiled by the driver of any
# newer GPU; probes of newer architectures, such as Hopper's wgmma, then report themselves not
# built): the default preset. Any other value is handed to CMAKE_CUDA_ARCHITECTURES as it is
# (e.g. "90" for a quick build).
include(CheckLanguage)
option(GPUTOPO_CUDA "Build the CUDA backend where nvcc is found" ON)
if(GPUTOPO_CUDA)
  check_language(CUDA)
endif()
set(GPUTOPO_CUDA_ARCHS "auto" CACHE STRING "CUDA architectures: auto, native, or a CMAKE_CUDA_ARCHITECTURES list")
set(GPUTOPO_HAVE_CUDA OFF)

if(GPUTOPO_CUDA AND CMAKE_CUDA_COMPILER)
  execute_process(COMMAND "${CMAKE_CUDA_COMPILER}" --version OUTPUT_VARIABLE _ver)
  string(REGEX MATCH "release ([0-9]+)" _m "${_ver}")
  set(_min 75)
  if(CMAKE_MATCH_1 AND CMAKE_MATCH_1 LESS 13)
    set(_min 60)
  endif()
  if(GPUTOPO_CUDA_ARCHS STREQUAL "native")
    execute_process(COMMAND nvidia-smi --query-gpu=compute_cap --format=csv,noheader
                    OUTPUT_VARIABLE _caps RESULT_VARIABLE _rc ERROR_QUIET)
    if(_rc EQUAL 0 AND _caps MATCHES "[0-9]")
      set(CMAKE_CUDA_ARCHITECTURES native)
    else()
      set(CMAKE_CUDA_ARCHITECTURES "${_min}-virtual")
      message(STATUS "gputopo: no GPU found (nvidia-smi): CUDA as PTX for sm_${_min} only")
    endif()
  elseif(GPUTOPO_CUDA_ARCHS STREQUAL "auto")
    execute_process(COMMAND "${CMAKE_CUDA_COMPILER}" --list-gpu-code
                    OUTPUT_VARIABLE _codes OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE _rc)
    string(REPLACE "\n" ";" _codes "${_codes}")
    set(_archs "")
    foreach(_c IN LISTS _codes)
      if(_c MATCHES "^sm_([0-9]+)[a-z]?$")
        set(_n "${CMAKE_MATCH_1}")
        if(_n GREATER_EQUAL _min AND NOT _c MATCHES "[a-z]$")
          list(APPEND _archs "${_n}")
        endif()
      endif()
    endforeach()
    list(REMOVE_DUPLICATES _archs)
    list(SORT _archs COMPARE NATURAL)
    list(POP_BACK _archs _newest)
    list(TRANSFORM _archs APPEND "-real")
    list(APPEND _archs "${_newest}")
    set(CMAKE_CUDA_ARCHITECTURES "${_archs}")
  else()
    set(CMAKE_CUDA_ARCHITECTURES "${GPUTOPO_CUDA_ARCHS}")
  endif()
  # Kernels are C++17: the CMake this project supports knows no CUDA20 flags for nvcc 13. Host
  # code of the backend is C++20 .cpp compiled by the host compiler.
  set(CMAKE_CUDA_STANDARD 17)
  set(CMAKE_CUDA_STANDARD_REQUIRED ON)
  set(CMAKE_CUDA_RUNTIME_LIBRARY Static)
  enable_language(CUDA)
  find_package(CUDAToolkit REQUIRED)
  set(GPUTOPO_HAVE_CUDA ON)
  message(STATUS "gputopo: CUDA backend ON (nvcc ${CMAKE_CUDA_COMPILER_VERSION}, architectures ${CMAKE_CUDA_ARCHITECTURES})")
elseif(NOT GPUTOPO_CUDA)
  message(STATUS "gputopo: CUDA backend OFF (GPUTOPO_CUDA=OFF); building the simulator and everything else")
else()
  message(STATUS "gputopo: CUDA backend OFF: no nvcc found; building the simulator and everything else")
endif()
