#!/usr/bin/env bash
# Installs what pacoll needs on Debian 12 (or Ubuntu), only what is missing:
# a C compiler, CMake, Open MPI, gfortran (the Fortran interposition tests),
# SimGrid (SMPI: simulated clusters), Python with matplotlib and pytest
# (pacoll-report and its tests).
# Safe to run again; does nothing when everything is there.
set -euo pipefail

need=()
have_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
for p in build-essential cmake pkg-config libopenmpi-dev openmpi-bin gfortran \
         libsimgrid-dev simgrid python3 python3-pip python3-venv python3-matplotlib \
         python3-pytest; do
  have_pkg "$p" || need+=("$p")
done
if [ ${#need[@]} -eq 0 ]; then
  echo "install-deps: everything is installed"
  exit 0
fi
echo "install-deps: installing ${need[*]}"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${need[@]}"
