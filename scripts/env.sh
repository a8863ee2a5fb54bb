# Sourced by the project's scripts: settings every MPI run here needs.
# Open MPI refuses to run as root (CI and containers run as root) unless told.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# Open MPI's osc/rdma crashes in MPI_Compare_and_swap (SMPI-NOTES): use osc/ucx.
export OMPI_MCA_osc="^rdma"

# A Python that has what pacoll-report needs (matplotlib; pytest for its
# tests): the first python3 on PATH, else Debian's.
pacoll_python() {
  local py
  for py in python3 /usr/bin/python3; do
    if command -v "$py" >/dev/null 2>&1 && "$py" -c "import matplotlib, pytest" 2>/dev/null; then
      echo "$py"; return 0
    fi
  done
  echo python3
}

# Seconds in a duration such as 90s, 30m, 2h or 600; prog names the caller
# in the error (status 2) when it is not one.
pacoll_duration_secs() { # prog duration
  local secs
  case "$2" in
    *h) secs=$(( ${2%h} * 3600 )) ;;
    *m) secs=$(( ${2%m} * 60 )) ;;
    *s) secs=${2%s} ;;
    *) secs=$2 ;;
  esac 2>/dev/null
  if [[ "$secs" =~ ^[0-9]+$ ]] && [ "$secs" -gt 0 ]; then echo "$secs"; return 0; fi
  echo "$1: bad --duration $2" >&2
  return 2
}
