#!/bin/sh
# A host whose /dev/shm is small (containers often get 64 MB): a tmpfs of
# SIZE mounted over /dev/shm in a private mount namespace, where Open MPI's
# osc/sm backs pacoll's shared segments (osc_sm_backing_directory), then the
# command inside it.  Needs root and unshare; says so and reports a skip
# (ctest SKIP_REGULAR_EXPRESSION) where either is missing.
#   small_shm.sh SIZE command...
size=$1
shift
if ! command -v unshare >/dev/null 2>&1; then
  echo "small_shm: SKIP: no unshare on this machine"
  exit 0
fi
if ! unshare -m true 2>/dev/null; then
  echo "small_shm: SKIP: unshare -m is not permitted here (needs root or CAP_SYS_ADMIN)"
  exit 0
fi
exec unshare -m sh -c 'mount -t tmpfs -o size="$0" tmpfs /dev/shm || {
  echo "small_shm: SKIP: could not mount a tmpfs over /dev/shm"; exit 0; }
echo "small_shm: /dev/shm is now $(df -h /dev/shm | tail -1)"
exec "$@"' "$size" "$@"
