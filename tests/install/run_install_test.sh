#!/usr/bin/env bash
# Installs the build tree into a scratch prefix, MOVES the prefix (mv) to
# another folder, then runs every installed tool from a clean environment
# (installed_checks.sh: pacoll-bench --list and a 2-rank run, pacoll-run with
# an unchanged C and Fortran program, programs built with pkg-config and with
# find_package), none with LD_LIBRARY_PATH.
#
# usage: run_install_test.sh [--cc MPICC] [--fc MPIF90] BUILD_DIR SOURCE_DIR MPIEXEC [mpiexec flags...]
#   SOURCE_DIR is tests/install of the source tree; --fc '' skips Fortran.
set -uo pipefail
. "$(dirname "$0")/installed_checks.sh"
ic_parse_args "$@" || exit 2

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$BUILD" --prefix "$work/prefix" >"$work/install.log" 2>&1 ||
    { cat "$work/install.log"; echo "install test: cmake --install failed"; exit 1; }
missing=0
for f in include/pacoll.h lib/libpacoll.so lib/libpacoll.a lib/libpacoll_preload.so \
         bin/pacoll-bench bin/pacoll-run lib/pkgconfig/pacoll.pc lib/cmake/pacoll/pacollConfig.cmake; do
    [ -e "$work/prefix/$f" ] || { echo "install: missing $f"; missing=1; }
done
# the rules are built in; an installed copy nobody reads must not exist
[ ! -e "$work/prefix/share/pacoll/rules.json" ] || { echo "install: share/pacoll/rules.json installed"; missing=1; }
[ "$missing" -eq 0 ] || exit 1

# Relocated: nothing may still point at the prefix it was installed to.
mkdir -p "$work/elsewhere"
mv "$work/prefix" "$work/elsewhere/pacoll"
echo "install test: installed to $work/prefix, moved to $work/elsewhere/pacoll"
if installed_checks "$work/elsewhere/pacoll" "$work/checks"; then
    echo "install test: the moved prefix's tools, pkg-config and find_package consumers built and ran"
    exit 0
fi
echo "install test: FAILED"
exit 1
