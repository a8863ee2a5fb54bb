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
libdir=$(sed -nE 's/^libdir=\$\{prefix\}\/(.*)$/\1/p' "$BUILD/dev-files/pacoll.pc")
[ -n "$libdir" ] || { echo "install: no libdir in $BUILD/dev-files/pacoll.pc"; exit 1; }
for f in include/pacoll.h include/pacoll_version.h "$libdir/libpacoll.so" "$libdir/libpacoll.a" \
         "$libdir/libpacoll_preload.so" bin/pacoll-bench bin/pacoll-run bin/pacoll-info bin/pacoll-tune \
         "$libdir/pkgconfig/pacoll.pc" "$libdir/cmake/pacoll/pacollConfig.cmake" \
         share/doc/pacoll/LICENSE share/doc/pacoll/CHANGELOG.md share/doc/pacoll/README.md; do
    [ -e "$work/prefix/$f" ] || { echo "install: missing $f"; missing=1; }
done
# man pages, when help2man made them (cmake/docs.cmake)
if [ -d "$BUILD/man" ]; then
    for t in pacoll-run pacoll-bench pacoll-tune pacoll-info; do
        [ -e "$work/prefix/share/man/man1/$t.1.gz" ] || { echo "install: missing share/man/man1/$t.1.gz"; missing=1; }
    done
fi
# the packages' layout (deb_* components) stays out of a plain install
if [ "$libdir" = lib ] && [ -n "$(ls -d "$work"/prefix/lib/*-linux-gnu 2>/dev/null)" ]; then
    echo "install: a multiarch folder in a plain install: $(ls -d "$work"/prefix/lib/*-linux-gnu)"; missing=1
fi
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
