# Install rules (included by CMakeLists.txt).  Everything installed finds
# what it needs relative to its own location, so a prefix can be moved (mv)
# or unpacked anywhere (the .tar.gz, `dpkg-deb -x` of the .deb):
#
#   bin/pacoll-bench     RUNPATH $ORIGIN/../LIBDIR (libpacoll.so.0)
#   bin/pacoll-tune, bin/pacoll-info   the static library inside
#   LIBDIR/libpacoll*.so RUNPATH $ORIGIN
#   bin/pacoll-run       finds ../LIBDIR/libpacoll_preload.so from its own path
#   LIBDIR/pkgconfig/pacoll.pc   prefix from ${pcfiledir}; Libs add -rpath
#   LIBDIR/cmake/pacoll/ pacollTargets.cmake computes the prefix from its path
#
# plus the MPI library's folder when it is not the system's (an MPI under
# /opt or /usr/local), so nothing needs LD_LIBRARY_PATH.  Debian's MPIs keep
# their sonames in the multiarch folder, where the loader looks anyway.
#
# Two layouts from one build, as install components:
#   runtime, dev          `cmake --install` and the .tar.gz: LIBDIR is
#                         GNUInstallDirs' (lib, or lib/<triplet> for the
#                         prefix /usr), docs in share/doc/pacoll
#   deb_runtime, deb_dev  the .deb packages (cmake/package.cmake): LIBDIR
#                         lib/<multiarch triplet>, docs in
#                         share/doc/<package> (copyright, changelog.gz),
#                         no -rpath in pacoll.pc; left out of a plain install
# runtime = shared and preload libraries, tools, man pages, licence and docs;
# dev = header, static library, CMake package, pkg-config file and the
# libpacoll.so link.

# the address in the project's history; the packages' Maintainer
set(PACOLL_MAINTAINER "pacoll maintainers <maintainers@users.noreply.a-seed-ea25e4ed.example>")
if(CMAKE_LIBRARY_ARCHITECTURE)
  set(PACOLL_DEB_LIBDIR lib/${CMAKE_LIBRARY_ARCHITECTURE})
else()
  set(PACOLL_DEB_LIBDIR lib)
endif()
set(PACOLL_DEB_NAME pacoll-${PACOLL_MPI_FAMILY})
# Shared libraries are not executables (Debian policy 8.1: mode 0644).
set(_pacoll_lib_perms OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)

# bin -> lib as a run path, for each layout ("$ORIGIN/../lib",
# "$ORIGIN/../lib/x86_64-linux-gnu")
function(pacoll_bin_to_lib libdir out_rel out_rpath)
  if(IS_ABSOLUTE "${libdir}")
    set(${out_rel} "${libdir}" PARENT_SCOPE)
    set(${out_rpath} "${libdir}" PARENT_SCOPE)
  else()
    file(RELATIVE_PATH _r "/p/${CMAKE_INSTALL_BINDIR}" "/p/${libdir}")
    set(${out_rel} "${_r}" PARENT_SCOPE)
    set(${out_rpath} "$ORIGIN/${_r}" PARENT_SCOPE)
  endif()
endfunction()
pacoll_bin_to_lib("${CMAKE_INSTALL_LIBDIR}" PACOLL_BIN_TO_LIB _pacoll_exe_rpath)
pacoll_bin_to_lib("${PACOLL_DEB_LIBDIR}" PACOLL_DEB_BIN_TO_LIB _pacoll_deb_exe_rpath)
set(_pacoll_exe_rpaths "${_pacoll_exe_rpath}")
if(NOT _pacoll_deb_exe_rpath STREQUAL _pacoll_exe_rpath)
  list(APPEND _pacoll_exe_rpaths "${_pacoll_deb_exe_rpath}")
endif()
# the MPI library's folder, unless it is the distribution's
set(_pacoll_mpi_rpath "")
foreach(_l IN LISTS MPI_C_LIBRARIES)
  if(IS_ABSOLUTE "${_l}")
    get_filename_component(_d "${_l}" DIRECTORY)
    if(NOT _d MATCHES "^/(usr/)?lib(32|64)?(/|$)")
      list(APPEND _pacoll_mpi_rpath "${_d}")
    endif()
  endif()
endforeach()
list(REMOVE_DUPLICATES _pacoll_mpi_rpath)

set(_pacoll_tools pacoll-bench pacoll-tune)
if(NOT PACOLL_SMPI)
  list(APPEND _pacoll_tools pacoll-info)
endif()
set_target_properties(${_pacoll_tools} PROPERTIES
  INSTALL_RPATH "${_pacoll_exe_rpaths};${_pacoll_mpi_rpath}")
set_target_properties(${PACOLL_INSTALL_LIBS} PROPERTIES
  INSTALL_RPATH "$ORIGIN;${_pacoll_mpi_rpath}")

# the exported targets (pacollTargets.cmake): libraries, bench and tune
set(_pacoll_exported ${PACOLL_INSTALL_LIBS} pacoll-bench pacoll-tune)
install(TARGETS ${_pacoll_exported} EXPORT pacollTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} PERMISSIONS ${_pacoll_lib_perms}
                COMPONENT runtime NAMELINK_COMPONENT dev
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT runtime)
install(TARGETS ${_pacoll_exported} EXPORT pacollDebTargets
        LIBRARY DESTINATION ${PACOLL_DEB_LIBDIR} PERMISSIONS ${_pacoll_lib_perms}
                COMPONENT deb_runtime NAMELINK_COMPONENT deb_dev EXCLUDE_FROM_ALL
        ARCHIVE DESTINATION ${PACOLL_DEB_LIBDIR} COMPONENT deb_dev EXCLUDE_FROM_ALL
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT deb_runtime EXCLUDE_FROM_ALL)
if(NOT PACOLL_SMPI)
  install(TARGETS pacoll-info RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT runtime)
  install(TARGETS pacoll-info RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
          COMPONENT deb_runtime EXCLUDE_FROM_ALL)
endif()
set(_pacoll_headers include/pacoll.h ${CMAKE_BINARY_DIR}/generated/include/pacoll_version.h)
install(FILES ${_pacoll_headers} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT dev)
install(FILES ${_pacoll_headers} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        COMPONENT deb_dev EXCLUDE_FROM_ALL)
# The default selection rules are built into the library and not installed:
# a file the library never reads would invite edits that change nothing.

# ---- pacoll-run: the launcher for unchanged programs (not under SMPI, which
# LD_PRELOAD does not reach).  Three copies: bin/pacoll-run of the build tree
# uses the build tree's library, the installed ones LIBDIR of their layout
# relative to their own folder.
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
  pacoll_configure_run(${CMAKE_BINARY_DIR}/install-tree-deb/pacoll-run "${PACOLL_DEB_BIN_TO_LIB}")
  install(PROGRAMS ${CMAKE_BINARY_DIR}/install-tree/pacoll-run DESTINATION ${CMAKE_INSTALL_BINDIR}
          COMPONENT runtime)
  install(PROGRAMS ${CMAKE_BINARY_DIR}/install-tree-deb/pacoll-run DESTINATION ${CMAKE_INSTALL_BINDIR}
          COMPONENT deb_runtime EXCLUDE_FROM_ALL)
endif()

# ---- find_package(pacoll) and pkg-config, once per layout
include(CMakePackageConfigHelpers)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/pacollConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
function(pacoll_dev_files libdir rpath subdir component)
  set(_out ${CMAKE_BINARY_DIR}/${subdir})
  # pacollConfig.cmake: its PACKAGE_INIT finds the prefix from its own folder
  configure_package_config_file(${CMAKE_SOURCE_DIR}/cmake/pacollConfig.cmake.in
    ${_out}/pacollConfig.cmake INSTALL_DESTINATION ${libdir}/cmake/pacoll)
  install(FILES ${_out}/pacollConfig.cmake ${CMAKE_BINARY_DIR}/pacollConfigVersion.cmake
          DESTINATION ${libdir}/cmake/pacoll COMPONENT ${component} ${ARGN})
  # pacoll.pc: the prefix relative to the .pc file's folder
  if(IS_ABSOLUTE "${libdir}")
    set(PACOLL_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
    set(PACOLL_PC_LIBDIR "${libdir}")
  else()
    file(RELATIVE_PATH _pc_up "/p/${libdir}/pkgconfig" "/p")
    string(REGEX REPLACE "/$" "" _pc_up "${_pc_up}")
    set(PACOLL_PC_PREFIX "\${pcfiledir}/${_pc_up}")
    set(PACOLL_PC_LIBDIR "\${prefix}/${libdir}")
  endif()
  set(PACOLL_PC_RPATH "${rpath}")
  configure_file(${CMAKE_SOURCE_DIR}/cmake/pacoll.pc.in ${_out}/pacoll.pc @ONLY)
  install(FILES ${_out}/pacoll.pc DESTINATION ${libdir}/pkgconfig COMPONENT ${component} ${ARGN})
endfunction()
# Libs -Wl,-rpath: a program built against a prefix runs without
# LD_LIBRARY_PATH; the packages' libraries are in the loader's own folder.
pacoll_dev_files("${CMAKE_INSTALL_LIBDIR}" " -Wl,-rpath,\${libdir}" dev-files dev)
pacoll_dev_files("${PACOLL_DEB_LIBDIR}" "" dev-files-deb deb_dev EXCLUDE_FROM_ALL)
install(EXPORT pacollTargets NAMESPACE pacoll:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/pacoll
        COMPONENT dev)
install(EXPORT pacollDebTargets FILE pacollTargets.cmake NAMESPACE pacoll::
        DESTINATION ${PACOLL_DEB_LIBDIR}/cmake/pacoll COMPONENT deb_dev EXCLUDE_FROM_ALL)

# ---- licence, docs, man pages
include(cmake/docs.cmake)
