# PACOLL_MPI_FAMILY: openmpi, mpich, smpi or mpi (another MPI), from mpi.h
# (OMPI_MAJOR_VERSION / MPICH_VERSION), else the library's version string or
# the compiler wrapper's real name.  It names the packages
# (cmake/package.cmake) and is recorded in pacoll.pc and pacollConfig.cmake.
set(PACOLL_MPI_FAMILY mpi)
if(PACOLL_SMPI)
  set(PACOLL_MPI_FAMILY smpi)
else()
  set(_mpi_h "")
  foreach(_d ${MPI_C_HEADER_DIR} ${MPI_C_INCLUDE_DIRS})
    if(EXISTS "${_d}/mpi.h")
      file(STRINGS "${_d}/mpi.h" _mpi_h REGEX "#[ \t]*define[ \t]+(OMPI_MAJOR_VERSION|MPICH_VERSION)[ \t]")
      break()
    endif()
  endforeach()
  if(MPI_C_COMPILER)
    get_filename_component(_mpicc_real "${MPI_C_COMPILER}" REALPATH)
  else()
    set(_mpicc_real "")
  endif()
  if(_mpi_h MATCHES "OMPI_MAJOR_VERSION" OR MPI_C_LIBRARY_VERSION_STRING MATCHES "Open MPI"
     OR _mpicc_real MATCHES "openmpi")
    set(PACOLL_MPI_FAMILY openmpi)
  elseif(_mpi_h MATCHES "MPICH_VERSION" OR MPI_C_LIBRARY_VERSION_STRING MATCHES "MPICH"
         OR _mpicc_real MATCHES "mpich")
    set(PACOLL_MPI_FAMILY mpich)
  endif()
endif()
message(STATUS "pacoll: MPI family ${PACOLL_MPI_FAMILY} (${MPI_C_COMPILER})")

# MPICH's mpi.h declares PMPI_Waitall(..., MPI_Status array_of_statuses[]):
# GCC >= 11 then takes MPI_STATUSES_IGNORE, (MPI_Status *)1, for a region of
# size 0 and warns (-Wstringop-overflow) at every call that passes it.
if(PACOLL_MPI_FAMILY STREQUAL "mpich" AND CMAKE_C_COMPILER_ID STREQUAL "GNU")
  add_compile_options($<$<COMPILE_LANGUAGE:C>:-Wno-stringop-overflow>)
endif()
