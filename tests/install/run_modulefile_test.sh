#!/usr/bin/env bash
# The installed modulefile (share/modulefiles/pacoll/VERSION) under
# Environment Modules or Lmod: install the build tree into a scratch prefix,
# move the prefix, then in a clean shell `module use` + `module load pacoll`
# must set PATH, LD_LIBRARY_PATH, PKG_CONFIG_PATH, CMAKE_PREFIX_PATH and
# MANPATH to the moved prefix, `pacoll-run --version` and `pkg-config
# --modversion pacoll` must work by name, and `module unload` must take it
# all back.  Exits 77 (skipped) when neither is installed.
#
# usage: run_modulefile_test.sh BUILD_DIR
set -uo pipefail
BUILD=$1
init=""
for f in /usr/share/modules/init/bash /usr/share/lmod/lmod/init/bash; do
    [ -r "$f" ] && { init=$f; break; }
done
if [ -z "$init" ]; then
    echo "modulefile test: SKIPPED: neither Environment Modules nor Lmod is installed (scripts/install-deps.sh installs environment-modules)"
    exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$BUILD" --prefix "$work/p" >"$work/install.log" 2>&1 ||
    { cat "$work/install.log"; echo "modulefile test: FAIL cmake --install"; exit 1; }
mv "$work/p" "$work/moved"
p=$work/moved
version=$(sed -nE 's/^Version: //p' "$BUILD/dev-files/pacoll.pc")
[ -f "$p/share/modulefiles/pacoll/$version" ] || { echo "modulefile test: FAIL no share/modulefiles/pacoll/$version"; exit 1; }
libdir=$(sed -nE 's/^libdir=\$\{prefix\}\/(.*)$/\1/p' "$BUILD/dev-files/pacoll.pc")

env -i PATH=/usr/bin:/bin HOME="${HOME:-/root}" P="$p" LIBDIR="$libdir" VERSION="$version" INIT="$init" \
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 bash -c '
set -u
fails=0
check() { if eval "$2"; then echo "modulefile test: ok $1"; else echo "modulefile test: FAIL $1"; fails=$((fails + 1)); fi; }
. "$INIT"
module use "$P/share/modulefiles"
module load pacoll || { echo "modulefile test: FAIL module load pacoll"; exit 1; }
echo "module: $(module -t list 2>&1 | tr "\n" " ")"
check "PATH starts with the prefix bin" "case \$PATH in \$P/bin:*) true;; *) false;; esac"
check "LD_LIBRARY_PATH has $LIBDIR" "case :\${LD_LIBRARY_PATH:-}: in *:\$P/\$LIBDIR:*) true;; *) false;; esac"
check "PKG_CONFIG_PATH has $LIBDIR/pkgconfig" "case :\${PKG_CONFIG_PATH:-}: in *:\$P/\$LIBDIR/pkgconfig:*) true;; *) false;; esac"
check "CMAKE_PREFIX_PATH has the prefix" "case :\${CMAKE_PREFIX_PATH:-}: in *:\$P:*) true;; *) false;; esac"
check "MANPATH has share/man" "case :\${MANPATH:-}: in *:\$P/share/man:*) true;; *) false;; esac"
check "pacoll-run --version by name" "pacoll-run --version | grep -q \"pacoll \$VERSION\""
check "pacoll-info --version by name" "pacoll-info --version | grep -qx \"pacoll-info (pacoll) \$VERSION\""
check "pkg-config --modversion pacoll" "[ \"\$(pkg-config --modversion pacoll)\" = \"\$VERSION\" ]"
module unload pacoll
check "unload takes PATH back" "case \$PATH in *\$P*) false;; *) true;; esac"
check "unload takes PKG_CONFIG_PATH back" "case \${PKG_CONFIG_PATH:-} in *\$P*) false;; *) true;; esac"
exit $((fails > 0))
'
rc=$?
if [ $rc -eq 0 ]; then
    echo "modulefile test: module load pacoll ($init) set the environment, the tools ran"
    exit 0
fi
echo "modulefile test: FAIL"
exit 1
