# cmake --install: the tool, libgputopo with its header, and a CMake package, so that a project
# uses the library with find_package(gputopo) and target gputopo::gputopo (docs/library.md).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)
install(TARGETS gputopo RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS libgputopo EXPORT gputopoTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/gputopo DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
set(GPUTOPO_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/gputopo)
install(EXPORT gputopoTargets NAMESPACE gputopo:: DESTINATION ${GPUTOPO_CMAKE_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/gputopoConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/gputopoConfig.cmake
                              INSTALL_DESTINATION ${GPUTOPO_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/gputopoConfigVersion.cmake
                                 COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/gputopoConfig.cmake
              ${PROJECT_BINARY_DIR}/gputopoConfigVersion.cmake
        DESTINATION ${GPUTOPO_CMAKE_DIR})

# cpack -G DEB in the build directory: a Debian package of the above.
set(CPACK_PACKAGE_NAME gputopo)
set(CPACK_PACKAGE_CONTACT "gputopo maintainers")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "libhwloc15")
include(CPack)
