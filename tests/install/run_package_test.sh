#!/usr/bin/env bash
# Builds the packages of a build tree with cpack (.tar.gz and the two .deb
# files), checks their names, metadata and contents, runs lintian on the
# .deb files when it is installed (no error allowed; warnings are printed),
# unpacks both .deb files with `dpkg-deb -x` into a scratch root (no dpkg
# database touched, nothing installed) and runs the installed tools from
# ROOT/usr with no environment variable set (installed_checks.sh); the
# .tar.gz is unpacked too and its benchmark run.
#
# usage: run_package_test.sh --family F [--cc MPICC] [--fc MPIF90]
#                            BUILD_DIR SOURCE_DIR MPIEXEC [mpiexec flags...]
#   F: the MPI family in the package names (openmpi, mpich).  The runtime
#   .deb must depend on the Debian package that holds the MPI library its
#   libpacoll.so is linked to (ldd, dpkg -S: libopenmpi3, libmpich12), the
#   -dev one on the runtime one of the same version and on the package that
#   holds the MPI's mpi.h.  Built against an MPI no Debian package holds (a
#   PyPI wheel), neither names an MPI package and both descriptions say so.
set -uo pipefail
# Fields are captured before grep reads them: grep -q stops at its first
# match, dpkg-deb (one write a line) then dies of SIGPIPE, and pipefail
# would turn a match into a failed check.
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
triplet=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch)
deb="$work/pkg/pacoll-${family}_${version}_$arch.deb"
dev="$work/pkg/pacoll-$family-dev_${version}_$arch.deb"
tgz="$work/pkg/pacoll-$version-$family-$arch.tar.gz"
ls -l "$work/pkg" | grep -E '\.(deb|tar\.gz)$'
for f in "$deb" "$dev" "$tgz"; do
    [ -f "$f" ] || fail "no $(basename "$f")"
done

# ---- metadata
for d in "$deb" "$dev"; do
    dpkg-deb -f "$d" Package Version Architecture Maintainer Depends Recommends Conflicts Section
    echo
    grep -q 'invalid' <<<"$(dpkg-deb -f "$d" Maintainer)" && fail "$(basename "$d"): placeholder Maintainer"
    grep -q 'invalid' <<<"$(dpkg-deb -f "$d" Homepage)" && fail "$(basename "$d"): placeholder Homepage"
    # the synopsis is not repeated as the long description's first line
    synopsis=$(dpkg-deb -f "$d" Description | head -1)
    second=$(dpkg-deb -f "$d" Description | sed -n 2p | sed 's/^ //')
    [ "$synopsis" != "$second" ] || fail "$(basename "$d"): the description repeats its synopsis"
done
[ "$(dpkg-deb -f "$deb" Package)" = "pacoll-$family" ] || fail "package name is not pacoll-$family"
[ "$(dpkg-deb -f "$dev" Package)" = "pacoll-$family-dev" ] || fail "package name is not pacoll-$family-dev"
grep -Eq "(^|, )pacoll-$family \(= $version\)" <<<"$(dpkg-deb -f "$dev" Depends)" ||
    fail "pacoll-$family-dev does not depend on pacoll-$family (= $version)"
mpidev=$(dpkg-query -S "$(readlink -f "$(echo '#include <mpi.h>' | "$CC_MPI" -x c -E -M - 2>/dev/null |
         tr ' \\' '\n\n' | grep '/mpi\.h$' | head -1)")" 2>/dev/null | head -1 | cut -d: -f1)
echo "package test: mpi.h of $CC_MPI is in package ${mpidev:-?}"
# An MPI outside dpkg (a PyPI wheel): no Debian MPI package may be named,
# and the descriptions say which library was used.
nodpkg_mpi() { # DEB
    if grep -Eq '(libopenmpi|libmpich|openmpi-bin|(^|[ ,])mpich( |,|$))' <<<"$(dpkg-deb -f "$1" Depends Recommends)"; then
        fail "$(basename "$1") names a Debian MPI package, not the MPI it was built against"
    fi
    grep -q 'that no Debian package provides' <<<"$(dpkg-deb -f "$1" Description)" ||
        fail "$(basename "$1"): the description does not say its MPI is outside dpkg"
}
if [ -n "$mpidev" ]; then
    grep -Eq "(^|, )$mpidev( |,|$)" <<<"$(dpkg-deb -f "$dev" Depends)" || fail "pacoll-$family-dev does not depend on $mpidev"
else
    nodpkg_mpi "$dev"
fi

# ---- contents: every file under /usr, libraries in the multiarch folder,
# the split between runtime and -dev, docs and man pages
dpkg-deb -c "$deb" | awk '{print $6}' | sed 's|^\./|/|' >"$work/deb.list"
dpkg-deb -c "$dev" | awk '{print $6}' | sed 's|^\./|/|' >"$work/dev.list"
if grep -Ev '^/(usr(/.*)?)?$' "$work/deb.list" "$work/dev.list"; then fail "files outside /usr"; fi
if grep -E '^/usr/lib/[^/]+$' "$work/deb.list" "$work/dev.list"; then fail "files in /usr/lib, not /usr/lib/$triplet"; fi
has() { # LIST PATH...: each path is in the list
    local l=$1 p
    shift
    for p in "$@"; do grep -qx -- "$p" "$work/$l.list" || { echo "$l: no $p"; return 1; }; done
}
hasnt() { # LIST REGEX: no path of the list matches
    if grep -E -- "$2" "$work/$1.list"; then echo "$1: holds the above"; return 1; fi
}
L=/usr/lib/$triplet
has deb /usr/bin/pacoll-run /usr/bin/pacoll-bench /usr/bin/pacoll-tune /usr/bin/pacoll-info \
    $L/libpacoll.so.0 "$L/libpacoll.so.$version" $L/libpacoll_preload.so \
    /usr/share/doc/pacoll-$family/copyright /usr/share/doc/pacoll-$family/changelog.gz \
    /usr/share/doc/pacoll-$family/README.md \
    /usr/share/man/man1/pacoll-run.1.gz /usr/share/man/man1/pacoll-bench.1.gz \
    /usr/share/man/man1/pacoll-tune.1.gz /usr/share/man/man1/pacoll-info.1.gz || fail "the runtime package's files"
hasnt deb '^/usr/include|\.a$|/libpacoll\.so$|/pkgconfig|/cmake/' || fail "development files in pacoll-$family"
has dev /usr/include/pacoll.h /usr/include/pacoll_version.h $L/libpacoll.a $L/libpacoll.so \
    $L/pkgconfig/pacoll.pc $L/cmake/pacoll/pacollConfig.cmake $L/cmake/pacoll/pacollTargets.cmake \
    /usr/share/doc/pacoll-$family-dev/copyright || fail "the -dev package's files"
hasnt dev '^/usr/bin/|\.so\.' || fail "runtime files in pacoll-$family-dev"
echo "package test: contents: multiarch $L, runtime and -dev split, docs and man pages"

# the Debian copyright file, machine-readable, BSD-3-Clause
dpkg-deb --fsys-tarfile "$deb" | tar -xO ./usr/share/doc/pacoll-$family/copyright >"$work/copyright"
expect "$work/copyright" '^Format: https://www\.debian\.org/doc/packaging-manuals/copyright-format/1\.0/$' \
    '^License: BSD-3-Clause$' '^Copyright: .*the pacoll authors' || fail "copyright"
dpkg-deb --fsys-tarfile "$deb" | tar -xO ./usr/share/doc/pacoll-$family/changelog.gz | gzip -dc >"$work/changelog"
expect "$work/changelog" "^pacoll-$family \\($version\\) " || fail "changelog.gz has no entry for $version"

# ---- lintian, when installed: no error; warnings are printed
if command -v lintian >/dev/null 2>&1; then
    # An MPI outside dpkg is found through the RUNPATH its wrapper links
    # with (the wheel's lib/): expected there, an error for a Debian MPI.
    lintian_extra=()
    [ -n "$mpidev" ] || lintian_extra=(--suppress-tags custom-library-search-path)
    lintian --fail-on error "${lintian_extra[@]}" "$deb" "$dev" >"$work/lintian.txt" 2>&1
    rc=$?
    grep -v 'running with root privileges' "$work/lintian.txt" | sed 's/^/    lintian: /'
    if [ $rc -ne 0 ] || grep -q '^E: ' "$work/lintian.txt"; then fail "lintian reports errors"; fi
    echo "package test: lintian: no errors ($(grep -c '^W: ' "$work/lintian.txt") warnings)"
else
    echo "package test: lintian is not installed: not run (scripts/install-deps.sh installs it)"
fi

# ---- unpacked, not installed: the tools must run from wherever they are
dpkg-deb -x "$deb" "$work/root" || fail "dpkg-deb -x"
dpkg-deb -x "$dev" "$work/root" || fail "dpkg-deb -x (dev)"
echo "package test: $(basename "$deb") and $(basename "$dev") unpacked into $work/root"
# Depends names the package of the MPI library libpacoll.so loads
mpilib=$(ldd "$work/root$L/libpacoll.so.0" | awk '/libmpi(ch)?\.so/ {print $3; exit}')
[ -n "$mpilib" ] || fail "ldd libpacoll.so shows no MPI library"
runtime=$(dpkg-query -S "$(readlink -f "$mpilib")" 2>/dev/null | head -1 | cut -d: -f1)
echo "package test: libpacoll.so loads $mpilib, of package ${runtime:-?}"
if [ -n "$runtime" ]; then
    grep -Eq "(^|, )$runtime( |,|$)" <<<"$(dpkg-deb -f "$deb" Depends)" || fail "Depends does not name $runtime"
else
    nodpkg_mpi "$deb"
fi
# ... and of UCX's, where it links UCX (the ucx transport)
ucplib=$(ldd "$work/root$L/libpacoll.so.0" | awk '/libucp\.so/ {print $3; exit}')
if [ -n "$ucplib" ]; then
    ucxpkg=$(dpkg-query -S "$(readlink -f "$ucplib")" 2>/dev/null | head -1 | cut -d: -f1)
    echo "package test: libpacoll.so loads $ucplib, of package ${ucxpkg:-?}"
    [ -z "$ucxpkg" ] || grep -Eq "(^|, )$ucxpkg( |,|$)" <<<"$(dpkg-deb -f "$deb" Depends)" ||
        fail "Depends does not name $ucxpkg"
fi
IC_SYSTEM_LAYOUT=1 installed_checks "$work/root/usr" "$work/checks-deb" || fail "the unpacked .deb's tools"

mkdir -p "$work/tgz"
tar -xzf "$tgz" -C "$work/tgz" || fail "tar -xzf"
top="$work/tgz/pacoll-$version-$family-$arch"
[ -x "$top/bin/pacoll-bench" ] || fail "no bin/pacoll-bench in the .tar.gz"
[ -f "$top/share/doc/pacoll/LICENSE" ] || fail "no share/doc/pacoll/LICENSE in the .tar.gz"
_ic_root=$top _ic_work="$work/checks-tgz" _ic_failed=0
mkdir -p "$_ic_work"
step ".tar.gz: pacoll-bench --list" _list_once
step ".tar.gz: pacoll-bench, 2 ranks" _bench_2
step ".tar.gz: pacoll-run --version" clean_run "$top/bin/pacoll-run" --version
[ "$_ic_failed" -eq 0 ] || fail "the unpacked .tar.gz's tools"
echo "package test: $(basename "$deb"), $(basename "$dev") and $(basename "$tgz") built, unpacked and ran"
