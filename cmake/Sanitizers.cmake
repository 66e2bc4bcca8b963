# GPUTOPO_SANITIZE: every C++ target built and linked with AddressSanitizer and
# UndefinedBehaviorSanitizer; the first finding ends the process with an error. Defines
# GPUTOPO_SANITIZED for tests that cannot run under them.
#
# GPUTOPO_FUZZ: the fuzz targets of tests/fuzz built with libFuzzer (clang only) and run as tests;
# tests/fuzz/CMakeLists.txt instruments the code that parses input for libFuzzer's coverage.
option(GPUTOPO_SANITIZE "Build with AddressSanitizer and UndefinedBehaviorSanitizer" OFF)
option(GPUTOPO_FUZZ "Build and run the libFuzzer targets (clang)" OFF)

if(GPUTOPO_SANITIZE)
  set(_gputopo_sanitizers -fsanitize=address,undefined)
  add_compile_options(
    "$<$<COMPILE_LANGUAGE:CXX>:${_gputopo_sanitizers};-fno-sanitize-recover=all;-fno-omit-frame-pointer>")
  add_link_options(${_gputopo_sanitizers})
  add_compile_definitions(GPUTOPO_SANITIZED)
endif()

if(GPUTOPO_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "GPUTOPO_FUZZ needs clang (libFuzzer); the compiler is ${CMAKE_CXX_COMPILER_ID}")
  endif()
endif()
