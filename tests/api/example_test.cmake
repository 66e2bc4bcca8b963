# Installs gputopo into WORK/prefix, builds examples/tile_size against the installed package
# (find_package(gputopo)) and runs it on a simulated GPU. cmake -DBUILD= -DSOURCE= -DWORK= -P.
function(run)
  execute_process(COMMAND ${ARGV} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${ARGV}: exit ${rc}\n${out}\n${err}")
  endif()
  set(OUT "${out}" PARENT_SCOPE)
endfunction()
file(REMOVE_RECURSE ${WORK})
run(${CMAKE_COMMAND} --install ${BUILD} --prefix ${WORK}/prefix)
run(${CMAKE_COMMAND} -S ${SOURCE}/examples/tile_size -B ${WORK}/build
    -DCMAKE_PREFIX_PATH=${WORK}/prefix -DCMAKE_BUILD_TYPE=Release)
run(${CMAKE_COMMAND} --build ${WORK}/build)
run(${WORK}/build/tile_size --sim h100-sxm)
message("${OUT}")
if(NOT OUT MATCHES "tile: [1-9][0-9]* x [1-9][0-9]* floats per block")
  message(FATAL_ERROR "tile_size printed no tile")
endif()
