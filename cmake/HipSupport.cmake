# Detects hipcc (Debian bookworm: `apt-get install hipcc`, HIP 5.2.3). Without it everything but
# the HIP backend still builds.
#
# GPUTOPO_HIP: OFF builds without the HIP backend even where hipcc is found.
# GPUTOPO_HIP_ARCHS: the AMD targets the kernels are built for (HIP 5.2's LLVM 15: gfx908 is
# CDNA1, gfx90a CDNA2; CDNA3's gfx942 needs a newer ROCm).
option(GPUTOPO_HIP "Build the HIP backend where hipcc is found" ON)
set(GPUTOPO_HIP_ARCHS "gfx90a" CACHE STRING "AMD GPU targets of the HIP backend (;-separated)")
set(GPUTOPO_HAVE_HIP OFF)
if(GPUTOPO_HIP)
  find_program(GPUTOPO_HIPCC hipcc)
  if(GPUTOPO_HIPCC)
    set(GPUTOPO_HAVE_HIP ON)
    message(STATUS "gputopo: HIP backend for ${GPUTOPO_HIP_ARCHS} (${GPUTOPO_HIPCC})")
  else()
    message(STATUS "gputopo: no hipcc: building without the HIP backend")
  endif()
endif()
