#!/bin/bash
# MPICH's own tests of the four collectives (test/mpi/coll of Debian's mpich
# source package), built against an MPI and run natively and under the
# preload library with defaults and with algorithms forced (docs/TESTING.md,
# "MPICH's own coll tests").  Each test must print "No Errors".
#
#   scripts/mpich-coll-tests.sh --mpicc MPICC --mpirun MPIRUN --preload LIB [--work DIR] [--every]
#
# --every: besides the defaults, every algorithm of every collective forced
# (variant k forces each collective's k-th algorithm, as pacoll-info beside
# LIB lists them, on nodes of 2 ranks), not three mixed sets.
#
# The source comes from `apt-get source mpich` (a deb-src line for the
# system's Debian suite is added for that one command, then removed).
set -euo pipefail
mpicc="" mpirun="" preload="" work="${TMPDIR:-/tmp}/pacoll-mpich-coll" every=0
while [ $# -gt 0 ]; do
  case "$1" in
    --mpicc) mpicc="$2"; shift 2 ;;
    --mpirun) mpirun="$2"; shift 2 ;;
    --preload) preload="$2"; shift 2 ;;
    --work) work="$2"; shift 2 ;;
    --every) every=1; shift ;;
    *) echo "usage: $0 --mpicc MPICC --mpirun MPIRUN --preload LIB [--work DIR] [--every]" >&2; exit 2 ;;
  esac
done
[ -n "$mpicc" ] && [ -n "$mpirun" ] && [ -n "$preload" ] || { echo "$0: --mpicc, --mpirun and --preload are needed" >&2; exit 2; }
mkdir -p "$work" && cd "$work"
if ! ls mpich-*/test/mpi/coll >/dev/null 2>&1; then
  suite=$(. /etc/os-release && echo "$VERSION_CODENAME")
  list=/etc/apt/sources.list.d/pacoll-deb-src.sources
  printf 'Types: deb-src\nURIs: http://deb.debian.org/debian\nSuites: %s\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' "$suite" > "$list"
  trap 'rm -f "$list"' EXIT
  apt-get update -o Dir::Etc::sourcelist="$list" -o Dir::Etc::sourceparts=- >/dev/null
  apt-get source --download-only mpich >/dev/null 2>&1
  rm -f "$list"
  tar xf mpich_*.orig.tar.* --wildcards 'mpich-*/test/mpi/coll' 'mpich-*/test/mpi/util' 'mpich-*/test/mpi/include'
fi
T=$(ls -d "$work"/mpich-*/test/mpi | head -1)
# the configure-made header, reduced to what these tests ask of it
cat > "$T/include/mpitestconf.h" <<'H'
#define HAVE_STDLIB_H 1
#define HAVE_STRING_H 1
#define HAVE_UNISTD_H 1
#define HAVE_STDARG_H 1
#define HAVE_STDINT_H 1
#define HAVE_INTTYPES_H 1
#define HAVE_SYS_TIME_H 1
#define HAVE_MATH_H 1
#define HAVE_LONG_DOUBLE 1
#define HAVE_LONG_LONG 1
#define HAVE_USLEEP 1
#define HAVE_SLEEP 1
#define THREAD_PACKAGE_NAME THREAD_PACKAGE_NONE
H
mkdir -p bin
for u in mtest mtest_common mtest_single dtypes; do
  "$mpicc" -c -I"$T/include" "$T/util/$u.c" -o "bin/$u.o"
done
# test:ranks; the persistent (p_*) and large-count ones where mpi.h has them
tests="alltoall1:4 alltoallv:4 alltoallv0:4 allgather2:4 allgather3:4 gather:4 gather2:4
       nonblocking:4 nonblocking2:4 nonblocking3:4 icalltoall:5 icallgather:5 icgather:5
       p_alltoall:4 p_alltoallv:4 p_allgather:4 p_gather:4 coll_large:4"
built=""
for tn in $tests; do
  t=${tn%:*}
  if "$mpicc" -I"$T/include" -o "bin/$t" "$T/coll/$t.c" bin/mtest.o bin/mtest_common.o \
       bin/mtest_single.o bin/dtypes.o -lm 2>/dev/null; then
    built="$built $tn"
  else
    echo "mpich-coll-tests: $t not built with this MPI (skipped)"
  fi
done
variants=("native" "preload")
if [ "$every" = 1 ]; then
  info="$(dirname "$preload")/pacoll-info"
  [ -x "$info" ] || { echo "$0: --every needs pacoll-info beside $preload" >&2; exit 2; }
  # "alltoall   native direct bruck ...": each collective's algorithms but native
  declare -A algos
  while read -r coll rest; do algos[$coll]="${rest#native }"; done < <("$info" | grep -E '^(alltoall|alltoallv|allgather|gather) ')
  most=0
  for c in "${!algos[@]}"; do n=$(wc -w <<<"${algos[$c]}"); [ "$n" -gt "$most" ] && most=$n; done
  for ((k = 0; k < most; k++)); do
    v="preload PACOLL_NODE_SIZE=2"
    for c in alltoall alltoallv allgather gather; do
      read -r -a a <<<"${algos[$c]}"
      v="$v PACOLL_${c^^}=${a[k % ${#a[@]}]}"
    done
    variants+=("$v")
  done
else
  variants+=(
    "preload PACOLL_ALLTOALL=direct PACOLL_ALLTOALLV=direct PACOLL_ALLGATHER=direct PACOLL_GATHER=direct"
    "preload PACOLL_ALLTOALL=bruck PACOLL_ALLTOALLV=sloav PACOLL_ALLGATHER=ring_rdma PACOLL_GATHER=binomial"
    "preload PACOLL_NODE_SIZE=2 PACOLL_ALLTOALL=pap_direct PACOLL_ALLTOALLV=sloavx PACOLL_ALLGATHER=smp_bruck PACOLL_GATHER=two_level")
fi
status=0
for v in "${variants[@]}"; do
  set -- $v; kind=$1; shift
  pass=0 fail="" start=$SECONDS
  for tn in $built; do
    t=${tn%:*} n=${tn#*:}
    if [ "$kind" = native ]; then
      out=$(timeout 120 $mpirun -np "$n" env "$@" "bin/$t" 2>&1 || true)
    else
      out=$(timeout 120 $mpirun -np "$n" env LD_PRELOAD="$preload" "$@" "bin/$t" 2>&1 || true)
    fi
    if echo "$out" | grep -q "No Errors"; then pass=$((pass + 1)); else fail="$fail $t"; status=1; fi
  done
  echo "mpich-coll-tests: $v: $pass passed, failed:${fail:- none} ($((SECONDS - start)) s)"
done
exit $status
