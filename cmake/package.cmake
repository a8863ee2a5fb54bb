# Packages (included by CMakeLists.txt): `cpack` in a build folder makes
#
#   pacoll-VERSION-FAMILY-ARCH.tar.gz     the install tree (components runtime
#                                         and dev), relocatable: unpack anywhere
#   pacoll-FAMILY_VERSION_ARCH.deb        runtime: libraries, preload library,
#                                         tools, man pages, docs (deb_runtime)
#   pacoll-FAMILY-dev_VERSION_ARCH.deb    header, static library, CMake package,
#                                         pkg-config file (deb_dev)
#
# FAMILY is the MPI the build used (openmpi, mpich: cmake/mpi_family.cmake),
# since libpacoll is bound to one MPI's ABI.  The .deb files install under
# /usr with the multiarch library folder (cmake/install.cmake).  The runtime
# package depends on the Debian package that holds that MPI's library
# (libopenmpi3, libmpich12: asked of dpkg at configure time) at least at the
# version built against, and recommends the one holding its launcher
# (openmpi-bin, mpich); the -dev package depends on its runtime package of
# the same version and on the package holding the MPI's mpi.h
# (libopenmpi-dev, libmpich-dev).  An MPI outside dpkg (a PyPI wheel, a
# module) gets no MPI dependency at all; the descriptions name its library.
# Both conflict with the other families' packages (same file names).
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
set(CPACK_PACKAGE_VENDOR "the pacoll authors")
set(CPACK_PACKAGE_CONTACT "${PACOLL_MAINTAINER}")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_RESOURCE_FILE_LICENSE ${CMAKE_SOURCE_DIR}/LICENSE)
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "arrival-pattern-aware MPI collectives for ${PACOLL_MPI_FAMILY}")
set(CPACK_PACKAGE_FILE_NAME ${_stem})
set(CPACK_PACKAGE_CHECKSUM SHA256)
set(CPACK_GENERATOR TGZ)
set(CPACK_SOURCE_GENERATOR "")
set(CPACK_STRIP_FILES ON)
# The .tar.gz is the plain install (components runtime and dev, in one
# archive); the .deb files are the deb_* components, one package each, under
# /usr: chosen per generator when cpack runs (package_config.cmake.in).
set(CPACK_ARCHIVE_COMPONENT_INSTALL OFF)
set(CPACK_DEB_COMPONENT_INSTALL ON)
configure_file(${CMAKE_SOURCE_DIR}/cmake/package_config.cmake.in
               ${CMAKE_BINARY_DIR}/CPackProjectConfig.cmake @ONLY)
set(CPACK_PROJECT_CONFIG_FILE ${CMAKE_BINARY_DIR}/CPackProjectConfig.cmake)

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
  set(_mpih "")
  foreach(_d ${MPI_C_HEADER_DIR} ${MPI_C_INCLUDE_DIRS})
    if(EXISTS "${_d}/mpi.h")
      set(_mpih "${_d}/mpi.h")
      break()
    endif()
  endforeach()
  pacoll_deb_owner("${_mpilib}" _runtime _runtime_version)
  pacoll_deb_owner("${MPIEXEC_EXECUTABLE}" _launcher _launcher_version)
  pacoll_deb_owner("${_mpih}" _mpidev _mpidev_version)
  # An MPI no Debian package holds (a PyPI wheel, a module, a build of its
  # own): no MPI in Depends, since a Debian MPI package would be another
  # library than the one linked against; the description names the one used.
  set(_mpi_note "")
  if(NOT _runtime)
    set(_launcher "")
    set(_mpidev "")
    set(_mpi_note "
.
Built against an MPI library that no Debian package provides
(${_mpilib}); the packages do not depend on an MPI package. The
programs and libraries look for it there (RUNPATH).")
    message(STATUS "pacoll: ${_mpilib} is in no Debian package: the .deb files name no MPI dependency")
  endif()
  set(_depends libc6)
  if(_runtime AND _runtime_version)
    list(APPEND _depends "${_runtime} (>= ${_runtime_version})")
  elseif(_runtime)
    list(APPEND _depends "${_runtime}")
  endif()
  if(PACOLL_HAVE_UCX) # (the ucx transport links libucp: Debian's libucx0)
    list(APPEND _depends libucx0)
  endif()
  string(REPLACE ";" ", " _depends "${_depends}")
  set(_dev_depends "${PACOLL_DEB_NAME} (= ${PROJECT_VERSION})")
  if(_mpidev)
    string(APPEND _dev_depends ", ${_mpidev}")
  endif()
  set(_conflicts "")
  set(_dev_conflicts "")
  foreach(_f openmpi mpich mpi)
    if(NOT _f STREQUAL PACOLL_MPI_FAMILY)
      list(APPEND _conflicts pacoll-${_f})
      list(APPEND _dev_conflicts pacoll-${_f}-dev)
    endif()
  endforeach()
  string(REPLACE ";" ", " _conflicts "${_conflicts}")
  string(REPLACE ";" ", " _dev_conflicts "${_dev_conflicts}")

  set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
  set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE ${_arch})
  set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${PACOLL_MAINTAINER}")
  set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
  # no Homepage: the project publishes none yet
  set(CPACK_DEBIAN_DEB_RUNTIME_PACKAGE_NAME ${PACOLL_DEB_NAME})
  set(CPACK_DEBIAN_DEB_RUNTIME_PACKAGE_DEPENDS "${_depends}")
  if(_launcher)
    set(CPACK_DEBIAN_DEB_RUNTIME_PACKAGE_RECOMMENDS "${_launcher}")
  endif()
  set(CPACK_DEBIAN_DEB_RUNTIME_PACKAGE_CONFLICTS "${_conflicts}")
  set(CPACK_DEBIAN_DEB_RUNTIME_PACKAGE_REPLACES "${_conflicts}")
  set(CPACK_DEBIAN_DEB_RUNTIME_PACKAGE_PROVIDES pacoll)
  set(CPACK_DEBIAN_DEB_RUNTIME_PACKAGE_SECTION science)
  # libpacoll.so.0's shlibs entry for packages built against it, and the
  # loader cache refreshed when the shared libraries come and go
  set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
  set(CPACK_DEBIAN_DEB_RUNTIME_PACKAGE_CONTROL_EXTRA ${CMAKE_SOURCE_DIR}/packaging/debian/triggers)
  set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
  # the first line is the synopsis (cmake/package_config.cmake.in keeps
  # CPack from putting the summary before it a second time)
  set(CPACK_COMPONENT_DEB_RUNTIME_DESCRIPTION
      "arrival-pattern-aware MPI collectives for ${PACOLL_MPI_FAMILY}
pacoll provides alltoall, alltoallv, allgather and gather algorithms for
multi-core clusters (RDMA-style one-sided, shared-memory and
arrival-pattern-aware), on top of the MPI library they were built with.
.
This package holds libpacoll, the preload library that gives unchanged MPI
programs pacoll's collectives through pacoll-run, and the tools
pacoll-bench, pacoll-tune and pacoll-info, built against ${PACOLL_MPI_FAMILY}.${_mpi_note}")
  set(CPACK_DEBIAN_DEB_DEV_PACKAGE_NAME ${PACOLL_DEB_NAME}-dev)
  set(CPACK_DEBIAN_DEB_DEV_PACKAGE_DEPENDS "${_dev_depends}")
  set(CPACK_DEBIAN_DEB_DEV_PACKAGE_CONFLICTS "${_dev_conflicts}")
  set(CPACK_DEBIAN_DEB_DEV_PACKAGE_REPLACES "${_dev_conflicts}")
  set(CPACK_DEBIAN_DEB_DEV_PACKAGE_SECTION libdevel)
  set(CPACK_COMPONENT_DEB_DEV_DESCRIPTION
      "arrival-pattern-aware MPI collectives for ${PACOLL_MPI_FAMILY} (development)
pacoll provides alltoall, alltoallv, allgather and gather algorithms for
multi-core clusters (RDMA-style one-sided, shared-memory and
arrival-pattern-aware), on top of the MPI library they were built with.
.
This package holds what programs calling pacoll_* need: pacoll.h, the
static library, pkg-config's pacoll.pc and CMake's find_package(pacoll),
built against ${PACOLL_MPI_FAMILY}.${_mpi_note}")
  message(STATUS "pacoll: cpack makes ${_stem}.tar.gz, ${PACOLL_DEB_NAME}_${PROJECT_VERSION}_${_arch}.deb "
                 "(Depends: ${_depends}) and ${PACOLL_DEB_NAME}-dev (Depends: ${_dev_depends})")
else()
  message(STATUS "pacoll: cpack makes ${_stem}.tar.gz (no dpkg: no .deb)")
endif()
include(CPack)
