# Checks what the two shared libraries export (cmake -P script): why.
#
# The library builds with hidden visibility, so a wrapper that forgets its
# visibility("default") silently stops intercepting; and libpacoll.so, which
# programs link to call pacoll_* directly, must not define the MPI_* names, or
# it would shadow the MPI library's own collectives.
#
# usage: cmake -DNM=nm -DPRELOAD=libpacoll_preload.so -DLIBRARY=libpacoll.so
#              [-DCOUNT_C=ON] [-DPERSISTENT=ON] -P check_symbols.cmake
# COUNT_C: the build interposes the large-count forms (MPI_<coll>_c).
# PERSISTENT: ... and the persistent ones (MPI_<coll>_init, MPI_Start,
# MPI_Startall, MPI_Request_free).
cmake_minimum_required(VERSION 3.18)

foreach(var NM PRELOAD LIBRARY)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "check_symbols: -D${var}=... is required")
  endif()
endforeach()

# The names (one per line) of the functions a shared library exports.
function(exported_functions lib out)
  execute_process(COMMAND ${NM} -D --defined-only ${lib}
                  OUTPUT_VARIABLE text RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "check_symbols: ${NM} -D ${lib} failed: ${err}")
  endif()
  string(REGEX MATCHALL "[0-9a-fA-F]+ [TtWi] [A-Za-z0-9_]+" lines "${text}")
  set(names)
  foreach(line IN LISTS lines)
    string(REGEX REPLACE "^[0-9a-fA-F]+ [A-Za-z] " "" name "${line}")
    list(APPEND names ${name})
  endforeach()
  set(${out} ${names} PARENT_SCOPE)
endfunction()

set(c_names MPI_Alltoall MPI_Alltoallv MPI_Allgather MPI_Gather
    MPI_Ialltoall MPI_Ialltoallv MPI_Iallgather MPI_Igather)
if(COUNT_C)
  list(APPEND c_names MPI_Alltoall_c MPI_Alltoallv_c MPI_Allgather_c MPI_Gather_c)
endif()
if(PERSISTENT)
  list(APPEND c_names MPI_Alltoall_init MPI_Alltoallv_init MPI_Allgather_init MPI_Gather_init
       MPI_Start MPI_Startall MPI_Request_free)
endif()
# the arrival profiler's wrappers (src/interpose/profile_wrappers.c)
list(APPEND c_names MPI_Init MPI_Init_thread MPI_Barrier MPI_Bcast MPI_Reduce MPI_Allreduce
     MPI_Gatherv MPI_Scatter MPI_Scatterv MPI_Allgatherv MPI_Alltoallw MPI_Reduce_scatter
     MPI_Reduce_scatter_block MPI_Scan MPI_Exscan)
# the communicator calls that carry info hints (api/hints.c)
list(APPEND c_names MPI_Comm_set_info MPI_Comm_dup_with_info MPI_Comm_split_type MPI_Comm_get_info)
set(fortran_names)
foreach(coll alltoall alltoallv allgather gather finalize comm_set_info comm_dup_with_info
        comm_split_type comm_get_info)
  string(TOUPPER ${coll} upper)
  list(APPEND fortran_names mpi_${coll} mpi_${coll}_ mpi_${coll}__ MPI_${upper}
       mpi_${coll}_f08_)
endforeach()

set(failures 0)
exported_functions(${PRELOAD} preload_names)
foreach(name IN LISTS c_names fortran_names ITEMS MPI_Finalize pacoll_alltoall)
  if(NOT name IN_LIST preload_names)
    message(SEND_ERROR "check_symbols: ${PRELOAD} does not export ${name}")
    math(EXPR failures "${failures} + 1")
  endif()
endforeach()

# ... and no other MPI name: docs/INTERPOSE.md lists exactly these, and a
# name it does not list would silently replace the MPI library's own.
foreach(name IN LISTS preload_names)
  if(name MATCHES "^(MPI|mpi|PMPI|pmpi)_" AND NOT name IN_LIST c_names AND
     NOT name IN_LIST fortran_names AND NOT name STREQUAL "MPI_Finalize")
    message(SEND_ERROR "check_symbols: ${PRELOAD} exports ${name}, which docs/INTERPOSE.md "
                       "does not list")
    math(EXPR failures "${failures} + 1")
  endif()
endforeach()

exported_functions(${LIBRARY} library_names)
foreach(name IN LISTS c_names fortran_names)
  if(name IN_LIST library_names)
    message(SEND_ERROR "check_symbols: ${LIBRARY} exports ${name}: it would shadow MPI's")
    math(EXPR failures "${failures} + 1")
  endif()
endforeach()
if(NOT pacoll_alltoall IN_LIST library_names)
  message(SEND_ERROR "check_symbols: ${LIBRARY} does not export pacoll_alltoall")
  math(EXPR failures "${failures} + 1")
endif()

if(failures EQUAL 0)
  message(STATUS "check_symbols: OK")
endif()
