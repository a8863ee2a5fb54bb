#!/bin/sh
# Open MPI's launcher agent for tests on one machine that has several
# "hosts": mpirun --mca plm_rsh_agent tests/fake_ssh.sh --hostfile F, where
# F names made-up hosts.  Each daemon starts here, with a session directory
# of its host's own, so each host's ranks are a host of their own to the
# MPI library (MPI_COMM_TYPE_SHARED) and to pacoll: shared memory among
# them, the remote transport between hosts.  (Open MPI 4's mpirun; the
# vader BTL must be left out, --mca btl self,tcp: its segments would meet.)
while [ $# -gt 0 ]; do
  case "$1" in -*) shift ;; *) break ;; esac
done
host=$1
shift
dir="${TMPDIR:-/tmp}/pacoll-fakehost-$(id -u)-$host"
mkdir -p "$dir"
OMPI_MCA_orte_tmpdir_base="$dir" exec sh -c "$*"
