#!/usr/bin/env bash
# Installs the build tree into a scratch prefix, then builds a user's
# program against it twice (find_package, pkg-config) and runs both.
# usage: run_install_test.sh BUILD_DIR SOURCE_DIR MPIEXEC [mpiexec flags...]
set -euo pipefail
build=$1 src=$2 mpiexec=$3
shift 3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" >/dev/null
for f in include/pacoll.h lib/libpacoll.so lib/libpacoll.a lib/libpacoll_preload.so \
         bin/pacoll-bench lib/pkgconfig/pacoll.pc lib/cmake/pacoll/pacollConfig.cmake \
         share/pacoll/rules.json; do
  [ -e "$work/prefix/$f" ] || { echo "install: missing $f"; exit 1; }
done
cmake -S "$src/consumer" -B "$work/cm" -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_C_COMPILER=mpicc >/dev/null
cmake --build "$work/cm" >/dev/null
LD_LIBRARY_PATH="$work/prefix/lib" "$mpiexec" "$@" -n 2 "$work/cm/consumer"
PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig" mpicc "$src/consumer/main.c" -o "$work/pc" \
  $(PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig" pkg-config --cflags --libs pacoll)
LD_LIBRARY_PATH="$work/prefix/lib" "$mpiexec" "$@" -n 2 "$work/pc"
echo "install test: find_package and pkg-config consumers built and ran"
