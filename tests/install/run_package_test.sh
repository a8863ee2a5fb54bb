#!/usr/bin/env bash
# Builds the packages of a build tree with cpack (.tar.gz and .deb), checks
# their names and the .deb's metadata, unpacks the .deb with `dpkg-deb -x`
# into a scratch root (no dpkg database touched, nothing installed) and runs
# the installed tools from ROOT/usr with no environment variable set
# (installed_checks.sh); the .tar.gz is unpacked too and its benchmark run.
#
# usage: run_package_test.sh --family F [--cc MPICC] [--fc MPIF90]
#                            BUILD_DIR SOURCE_DIR MPIEXEC [mpiexec flags...]
#   F: the MPI family in the file names (openmpi, mpich).  The .deb must
#   depend on the Debian package that holds the MPI library its libpacoll.so
#   is linked to (ldd, dpkg -S: libopenmpi3, libmpich12).
set -uo pipefail
. "$(dirname "$0")/installed_checks.sh"
ic_parse_args "$@" || exit 2
family=$FAMILY
[ -n "$family" ] || { echo "package test: FAIL --family is required"; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "package test: FAIL $*"; exit 1; }

(cd "$work" && cpack --config "$BUILD/CPackConfig.cmake" -G "TGZ;DEB" -B "$work/pkg") >"$work/cpack.log" 2>&1 ||
    { cat "$work/cpack.log"; fail "cpack"; }
version=$(sed -nE 's/^set\(CPACK_PACKAGE_VERSION "([^"]+)"\)/\1/p' "$BUILD/CPackConfig.cmake")
arch=$(dpkg --print-architecture)
deb="$work/pkg/pacoll-$version-$family-$arch.deb"
tgz="$work/pkg/pacoll-$version-$family-$arch.tar.gz"
ls -l "$work/pkg" | grep -E '\.(deb|tar\.gz)$'
[ -f "$deb" ] || fail "no $(basename "$deb")"
[ -f "$tgz" ] || fail "no $(basename "$tgz")"

# the .deb's metadata: named after the MPI, depends on its runtime
dpkg-deb -f "$deb" Package Version Architecture Depends Recommends Conflicts
[ "$(dpkg-deb -f "$deb" Package)" = "pacoll-$family" ] || fail "package name is not pacoll-$family"
# every file under /usr
if dpkg-deb -c "$deb" | awk '{print $6}' | grep -Ev '^\./(usr(/.*)?)?$'; then
    fail "files outside /usr"
fi

# unpacked, not installed: the tools must run from wherever they are
dpkg-deb -x "$deb" "$work/root" || fail "dpkg-deb -x"
echo "package test: $(basename "$deb") unpacked into $work/root"
# Depends names the package of the MPI library libpacoll.so loads
mpilib=$(ldd "$(ls "$work"/root/usr/lib*/libpacoll.so.? | head -1)" | awk '/libmpi(ch)?\.so/ {print $3; exit}')
[ -n "$mpilib" ] || fail "ldd libpacoll.so shows no MPI library"
runtime=$(dpkg-query -S "$(readlink -f "$mpilib")" 2>/dev/null | head -1 | cut -d: -f1)
echo "package test: libpacoll.so loads $mpilib, of package ${runtime:-?}"
[ -n "$runtime" ] || fail "no Debian package holds $mpilib"
dpkg-deb -f "$deb" Depends | grep -Eq "(^|, )$runtime( |,|$)" || fail "Depends does not name $runtime"
installed_checks "$work/root/usr" "$work/checks-deb" || fail "the unpacked .deb's tools"

mkdir -p "$work/tgz"
tar -xzf "$tgz" -C "$work/tgz" || fail "tar -xzf"
top="$work/tgz/pacoll-$version-$family-$arch"
[ -x "$top/bin/pacoll-bench" ] || fail "no bin/pacoll-bench in the .tar.gz"
_ic_root=$top _ic_work="$work/checks-tgz" _ic_failed=0
mkdir -p "$_ic_work"
step ".tar.gz: pacoll-bench --list" _list_once
step ".tar.gz: pacoll-bench, 2 ranks" _bench_2
step ".tar.gz: pacoll-run --version" clean_run "$top/bin/pacoll-run" --version
[ "$_ic_failed" -eq 0 ] || fail "the unpacked .tar.gz's tools"
echo "package test: $(basename "$deb") and $(basename "$tgz") built, unpacked and ran"
