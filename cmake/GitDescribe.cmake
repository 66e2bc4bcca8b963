# The version string the report carries: `git describe` where a checkout exists.
find_package(Git QUIET)
set(GPUTOPO_GIT_DESCRIBE "unknown")
if(GIT_FOUND AND EXISTS "${PROJECT_SOURCE_DIR}/.git")
  execute_process(
    COMMAND "${GIT_EXECUTABLE}" describe --always --dirty --tags
    WORKING_DIRECTORY "${PROJECT_SOURCE_DIR}"
    OUTPUT_VARIABLE GPUTOPO_GIT_DESCRIBE
    OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(NOT GPUTOPO_GIT_DESCRIBE)
    set(GPUTOPO_GIT_DESCRIBE "unknown")
  endif()
endif()
