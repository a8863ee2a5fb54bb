# Install rules (included by CMakeLists.txt).  Everything installed finds
# what it needs relative to its own location, so a prefix can be moved (mv)
# or unpacked anywhere (the .tar.gz, `dpkg-deb -x` of the .deb):
#
#   bin/pacoll-bench     RUNPATH $ORIGIN/../lib (libpacoll.so.0)
#   bin/pacoll-tune, bin/pacoll-info   the static library inside
#   lib/libpacoll*.so    RUNPATH $ORIGIN
#   bin/pacoll-run       finds ../lib/libpacoll_preload.so from its own path
#   lib/pkgconfig/pacoll.pc      prefix from ${pcfiledir}; Libs add -rpath
#   lib/cmake/pacoll/    pacollTargets.cmake computes the prefix from its path
#
# plus the MPI library's folder when it is not a system one (an MPI under
# /opt): INSTALL_RPATH_USE_LINK_PATH, so nothing needs LD_LIBRARY_PATH.

# bin -> lib, as a relative path ("../lib"; "../lib/x86_64-linux-gnu" with a
# multiarch libdir)
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  set(PACOLL_BIN_TO_LIB "${CMAKE_INSTALL_LIBDIR}")
  set(_pacoll_exe_rpath "${CMAKE_INSTALL_LIBDIR}")
else()
  file(RELATIVE_PATH PACOLL_BIN_TO_LIB "/p/${CMAKE_INSTALL_BINDIR}" "/p/${CMAKE_INSTALL_LIBDIR}")
  set(_pacoll_exe_rpath "$ORIGIN/${PACOLL_BIN_TO_LIB}")
endif()
set_target_properties(pacoll-bench pacoll-tune PROPERTIES
  INSTALL_RPATH "${_pacoll_exe_rpath}" INSTALL_RPATH_USE_LINK_PATH ON)
set_target_properties(${PACOLL_INSTALL_LIBS} PROPERTIES
  INSTALL_RPATH "$ORIGIN" INSTALL_RPATH_USE_LINK_PATH ON)

install(TARGETS ${PACOLL_INSTALL_LIBS} pacoll-bench pacoll-tune
        EXPORT pacollTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
if(NOT PACOLL_SMPI)
  set_target_properties(pacoll-info PROPERTIES
    INSTALL_RPATH "${_pacoll_exe_rpath}" INSTALL_RPATH_USE_LINK_PATH ON)
  install(TARGETS pacoll-info RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
install(FILES include/pacoll.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
# The default selection rules are built into the library and not installed:
# a file the library never reads would invite edits that change nothing.

# ---- pacoll-run: the launcher for unchanged programs (not under SMPI, which
# LD_PRELOAD does not reach).  Two copies: bin/pacoll-run of the build tree
# uses the build tree's library, the installed one ../lib of its own folder.
if(NOT PACOLL_SMPI)
  function(pacoll_configure_run out libdir_from_script)
    set(PACOLL_RUN_LIBDIR "${libdir_from_script}")
    get_filename_component(_dir ${out} DIRECTORY)
    string(MD5 _tag "${out}")
    set(_tmp ${CMAKE_BINARY_DIR}/CMakeFiles/pacoll-run-${_tag})
    configure_file(${CMAKE_SOURCE_DIR}/tools/run/pacoll-run.in ${_tmp}/pacoll-run @ONLY)
    file(COPY ${_tmp}/pacoll-run DESTINATION ${_dir}
         FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE
                          WORLD_READ WORLD_EXECUTE)
  endfunction()
  file(RELATIVE_PATH _pacoll_bin_to_build ${CMAKE_BINARY_DIR}/bin ${CMAKE_BINARY_DIR})
  pacoll_configure_run(${CMAKE_BINARY_DIR}/bin/pacoll-run "${_pacoll_bin_to_build}")
  pacoll_configure_run(${CMAKE_BINARY_DIR}/install-tree/pacoll-run "${PACOLL_BIN_TO_LIB}")
  install(PROGRAMS ${CMAKE_BINARY_DIR}/install-tree/pacoll-run DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()

# ---- find_package(pacoll): pacoll::pacoll (and pacoll::pacoll_static, ...)
include(CMakePackageConfigHelpers)
configure_package_config_file(cmake/pacollConfig.cmake.in
  ${CMAKE_BINARY_DIR}/pacollConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/pacoll)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/pacollConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(EXPORT pacollTargets NAMESPACE pacoll:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/pacoll)
install(FILES ${CMAKE_BINARY_DIR}/pacollConfig.cmake ${CMAKE_BINARY_DIR}/pacollConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/pacoll)

# ---- pkg-config: the prefix relative to the .pc file's folder
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  set(PACOLL_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
else()
  file(RELATIVE_PATH _pc_up "/p/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/p")
  string(REGEX REPLACE "/$" "" _pc_up "${_pc_up}")
  set(PACOLL_PC_PREFIX "\${pcfiledir}/${_pc_up}")
endif()
configure_file(cmake/pacoll.pc.in ${CMAKE_BINARY_DIR}/pacoll.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/pacoll.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
