# Licence, docs and man pages (included by cmake/install.cmake).
#
#   runtime      share/doc/pacoll/: LICENSE, README.md, CHANGELOG.md
#   deb_runtime  share/doc/pacoll-FAMILY/: copyright (Debian's machine-readable
#                format, from LICENSE), changelog.gz (Debian's format, from
#                CHANGELOG.md), README.md
#   deb_dev      share/doc/pacoll-FAMILY-dev/: copyright, changelog.gz
#   both runtime components: share/man/man1/pacoll-*.1.gz, made by help2man
#                from each installed tool's --help (not under ASan, whose
#                leak report would end the run, nor SMPI, whose programs
#                run only inside smpirun)

install(FILES LICENSE README.md CHANGELOG.md DESTINATION ${CMAKE_INSTALL_DOCDIR}
        COMPONENT runtime)

# ---- Debian: copyright and changelog.gz, made at configure time
set(_deb_doc ${CMAKE_BINARY_DIR}/deb-doc)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
             ${CMAKE_SOURCE_DIR}/LICENSE ${CMAKE_SOURCE_DIR}/CHANGELOG.md)
file(READ ${CMAKE_SOURCE_DIR}/LICENSE _lic)
# the licence's text after its copyright lines, one space in, "." for blank lines
string(REGEX REPLACE "^.*All rights reserved\\.\n\n" "" _lic "${_lic}")
string(REGEX REPLACE "\n+$" "" _lic "${_lic}")
string(REPLACE "\n\n" "\n.\n" _lic "${_lic}")
string(REPLACE "\n" "\n " _lic "${_lic}")
set(PACOLL_DEB_LICENSE_TEXT " ${_lic}")
configure_file(${CMAKE_SOURCE_DIR}/packaging/debian/copyright.in ${_deb_doc}/copyright @ONLY)

find_package(Python3 COMPONENTS Interpreter)
if(Python3_FOUND)
  execute_process(
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/packaging/debian/changelog.py
            --changelog ${CMAKE_SOURCE_DIR}/CHANGELOG.md --package ${PACOLL_DEB_NAME}
            --version ${PROJECT_VERSION} --maintainer "${PACOLL_MAINTAINER}"
            --out ${_deb_doc}/changelog.gz
    RESULT_VARIABLE _rc)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "packaging/debian/changelog.py failed: CHANGELOG.md has no section ${PROJECT_VERSION}?")
  endif()
  set(_deb_changelog ${_deb_doc}/changelog.gz)
else()
  set(_deb_changelog "")
  message(STATUS "pacoll: no python3: the .deb has no changelog.gz")
endif()
install(FILES ${_deb_doc}/copyright ${_deb_changelog} README.md
        DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/doc/${PACOLL_DEB_NAME}
        COMPONENT deb_runtime EXCLUDE_FROM_ALL)
install(FILES ${_deb_doc}/copyright ${_deb_changelog}
        DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/doc/${PACOLL_DEB_NAME}-dev
        COMPONENT deb_dev EXCLUDE_FROM_ALL)

# ---- man pages from --help
find_program(PACOLL_HELP2MAN help2man)
find_program(PACOLL_GZIP gzip)
set(PACOLL_MANPAGES "")
if(PACOLL_HELP2MAN AND PACOLL_GZIP AND NOT PACOLL_SMPI AND NOT PACOLL_ASAN)
  set(_man ${CMAKE_BINARY_DIR}/man)
  # tool, its one-line description
  set(_pages
    "pacoll-run|run an unchanged MPI program with pacoll's collectives (LD_PRELOAD)"
    "pacoll-bench|benchmark MPI collectives side by side, with arrival skew"
    "pacoll-tune|make pacoll's selection rules from measurements on this cluster"
    "pacoll-info|show pacoll's version, build, rules and choices for a job shape")
  foreach(_p IN LISTS _pages)
    string(REGEX REPLACE "\\|.*" "" _tool "${_p}")
    string(REGEX REPLACE "^[^|]*\\|" "" _desc "${_p}")
    if(_tool STREQUAL "pacoll-run")
      set(_exe ${CMAKE_BINARY_DIR}/bin/pacoll-run)
      set(_dep pacoll_preload)
    else()
      set(_exe $<TARGET_FILE:${_tool}>)
      set(_dep ${_tool})
    endif()
    # the MPI programs' --help runs MPI_Init as a singleton: Open MPI needs
    # leave to run as root
    add_custom_command(OUTPUT ${_man}/${_tool}.1.gz
      COMMAND ${CMAKE_COMMAND} -E make_directory ${_man}
      COMMAND ${CMAKE_COMMAND} -E env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
              ${PACOLL_HELP2MAN} --no-info --no-discard-stderr --section=1
              --version-string=${PROJECT_VERSION} --name=${_desc}
              --output=${_man}/${_tool}.1 ${_exe}
      COMMAND ${PACOLL_GZIP} -9nf ${_man}/${_tool}.1
      DEPENDS ${_dep} ${CMAKE_SOURCE_DIR}/tools/run/pacoll-run.in
      COMMENT "Man page ${_tool}.1 (help2man)" VERBATIM)
    list(APPEND PACOLL_MANPAGES ${_man}/${_tool}.1.gz)
  endforeach()
  add_custom_target(pacoll-manpages ALL DEPENDS ${PACOLL_MANPAGES})
  install(FILES ${PACOLL_MANPAGES} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1 COMPONENT runtime)
  install(FILES ${PACOLL_MANPAGES} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1
          COMPONENT deb_runtime EXCLUDE_FROM_ALL)
else()
  message(STATUS "pacoll: no man pages (they need help2man and gzip, and a build without ASan or SMPI)")
endif()

# ---- a modulefile (Environment Modules and Lmod read its Tcl), installed
# as share/modulefiles/pacoll/VERSION of the plain install: `module use
# PREFIX/share/modulefiles; module load pacoll`.  Not in the .deb, whose
# files are where the system looks already.
set(PACOLL_MODULEFILE_DIR ${CMAKE_INSTALL_DATAROOTDIR}/modulefiles)
string(REGEX MATCHALL "[^/]+" _parts "${PACOLL_MODULEFILE_DIR}/pacoll/${PROJECT_VERSION}")
list(LENGTH _parts PACOLL_MODULEFILE_UP)
configure_file(${CMAKE_SOURCE_DIR}/packaging/modulefile/pacoll.in
               ${CMAKE_BINARY_DIR}/modulefile/${PROJECT_VERSION} @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/modulefile/${PROJECT_VERSION}
        DESTINATION ${PACOLL_MODULEFILE_DIR}/pacoll COMPONENT runtime)
