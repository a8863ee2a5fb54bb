# Packages (included by CMakeLists.txt): `cpack` in a build folder makes
#
#   pacoll-VERSION-FAMILY-ARCH.tar.gz   the install tree, relocatable: unpack anywhere
#   pacoll-VERSION-FAMILY-ARCH.deb      package pacoll-FAMILY, files under /usr
#
# FAMILY is the MPI the build used (openmpi, mpich: cmake/mpi_family.cmake),
# since libpacoll is bound to one MPI's ABI.  The .deb depends on the Debian
# package that holds that MPI's library (libopenmpi3, libmpich12: asked of
# dpkg at configure time) at least at the version built against, recommends
# the one holding its launcher (openmpi-bin, mpich), and conflicts with the
# other families' pacoll packages (same file names).
# Real MPI builds only: an SMPI build is a simulator's, not an installable one.
if(PACOLL_SMPI)
  return()
endif()

set(_arch ${CMAKE_SYSTEM_PROCESSOR})
find_program(PACOLL_DPKG dpkg)
find_program(PACOLL_DPKG_QUERY dpkg-query)
if(PACOLL_DPKG)
  execute_process(COMMAND ${PACOLL_DPKG} --print-architecture
                  OUTPUT_VARIABLE _arch OUTPUT_STRIP_TRAILING_WHITESPACE)
endif()
set(_stem pacoll-${PROJECT_VERSION}-${PACOLL_MPI_FAMILY}-${_arch})

set(CPACK_PACKAGE_NAME pacoll)
set(CPACK_PACKAGE_VENDOR "pacoll")
set(CPACK_PACKAGE_CONTACT "pacoll developers <pacoll@invalid>")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "arrival-pattern-aware MPI collectives (alltoall, alltoallv, allgather, gather) for ${PACOLL_MPI_FAMILY}")
set(CPACK_PACKAGE_FILE_NAME ${_stem})
set(CPACK_PACKAGE_CHECKSUM SHA256)
set(CPACK_GENERATOR TGZ)
set(CPACK_SOURCE_GENERATOR "")

# The Debian package holding FILE (resolved), and its upstream version.
function(pacoll_deb_owner file out_pkg out_version)
  set(${out_pkg} "" PARENT_SCOPE)
  set(${out_version} "" PARENT_SCOPE)
  if(NOT PACOLL_DPKG_QUERY OR NOT file OR NOT EXISTS "${file}")
    return()
  endif()
  get_filename_component(_real "${file}" REALPATH)
  execute_process(COMMAND ${PACOLL_DPKG_QUERY} -S "${_real}"
                  OUTPUT_VARIABLE _o ERROR_QUIET RESULT_VARIABLE _rc OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT _rc EQUAL 0 OR NOT _o MATCHES "^([^:, ]+)")
    return()
  endif()
  set(_pkg ${CMAKE_MATCH_1})
  execute_process(COMMAND ${PACOLL_DPKG_QUERY} -W -f=\${Version} ${_pkg}
                  OUTPUT_VARIABLE _v ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
  string(REGEX REPLACE "^[0-9]+:" "" _v "${_v}")   # epoch
  string(REGEX REPLACE "-[^-]*$" "" _v "${_v}")    # Debian revision
  set(${out_pkg} ${_pkg} PARENT_SCOPE)
  set(${out_version} "${_v}" PARENT_SCOPE)
endfunction()

if(PACOLL_DPKG)
  list(APPEND CPACK_GENERATOR DEB)
  # the MPI library proper (libmpi.so, libmpich.so), not its helpers
  set(_mpilib "")
  foreach(_l IN LISTS MPI_C_LIBRARIES)
    if(_l MATCHES "/lib(mpi|mpich)\\.so")
      set(_mpilib ${_l})
      break()
    endif()
  endforeach()
  pacoll_deb_owner("${_mpilib}" _runtime _runtime_version)
  pacoll_deb_owner("${MPIEXEC_EXECUTABLE}" _launcher _launcher_version)
  if(NOT _runtime)   # not installed from a Debian package: the usual names
    if(PACOLL_MPI_FAMILY STREQUAL "openmpi")
      set(_runtime libopenmpi3)
    elseif(PACOLL_MPI_FAMILY STREQUAL "mpich")
      set(_runtime libmpich12)
    endif()
  endif()
  if(NOT _launcher)
    if(PACOLL_MPI_FAMILY STREQUAL "openmpi")
      set(_launcher openmpi-bin)
    elseif(PACOLL_MPI_FAMILY STREQUAL "mpich")
      set(_launcher mpich)
    endif()
  endif()
  set(_depends libc6)
  if(_runtime AND _runtime_version)
    list(APPEND _depends "${_runtime} (>= ${_runtime_version})")
  elseif(_runtime)
    list(APPEND _depends "${_runtime}")
  endif()
  string(REPLACE ";" ", " _depends "${_depends}")
  set(_conflicts "")
  foreach(_f openmpi mpich mpi)
    if(NOT _f STREQUAL PACOLL_MPI_FAMILY)
      list(APPEND _conflicts pacoll-${_f})
    endif()
  endforeach()
  string(REPLACE ";" ", " _conflicts "${_conflicts}")

  set(CPACK_DEBIAN_PACKAGE_NAME pacoll-${PACOLL_MPI_FAMILY})
  set(CPACK_DEBIAN_FILE_NAME ${_stem}.deb)
  set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE ${_arch})
  set(CPACK_DEBIAN_PACKAGE_DEPENDS "${_depends}")
  if(_launcher)
    set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "${_launcher}")
  endif()
  set(CPACK_DEBIAN_PACKAGE_CONFLICTS "${_conflicts}")
  set(CPACK_DEBIAN_PACKAGE_REPLACES "${_conflicts}")
  set(CPACK_DEBIAN_PACKAGE_PROVIDES pacoll)
  set(CPACK_DEBIAN_PACKAGE_SECTION science)
  set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
      "${CPACK_PACKAGE_DESCRIPTION_SUMMARY}\nlibpacoll (pacoll.h, pkg-config pacoll, CMake find_package(pacoll)),\nlibpacoll_preload.so for unchanged programs (bin/pacoll-run),\nand the pacoll-bench benchmark, built against ${PACOLL_MPI_FAMILY}.")
  set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "https://invalid/pacoll")
  message(STATUS "pacoll: cpack makes ${_stem}.tar.gz and ${_stem}.deb (Depends: ${_depends})")
else()
  message(STATUS "pacoll: cpack makes ${_stem}.tar.gz (no dpkg: no .deb)")
endif()
include(CPack)
