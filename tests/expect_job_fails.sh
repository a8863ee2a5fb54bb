#!/bin/sh
# Runs an MPI job that must fail, and fail promptly: it passes when the job
# exits non-zero within SECONDS (not killed by the limit) and its output
# matches REGEX (grep -E).  With --any-status the exit status does not
# count (Open MPI's mpirun in recovery mode exits 0 after an MPI_Abort).
# Status 137 is the limit's SIGKILL only when the limit has passed: it is
# also mpirun's own status when a rank was killed.
#   expect_job_fails.sh [--any-status] SECONDS REGEX command...
any_status=0
if [ "$1" = "--any-status" ]; then
  any_status=1
  shift
fi
limit=$1 regex=$2
shift 2
out=$(mktemp)
start=$(date +%s)
timeout -k 5 "$limit" "$@" >"$out" 2>&1
rc=$?
took=$(($(date +%s) - start))
cat "$out"
if [ "$rc" -eq 0 ] && [ "$any_status" -eq 0 ]; then
  echo "expect_job_fails: FAIL: the job exited 0"
elif [ "$rc" -eq 124 ] || { [ "$rc" -eq 137 ] && [ "$took" -ge "$limit" ]; }; then
  echo "expect_job_fails: FAIL: the job was still running after $limit s"
elif ! grep -Eq "$regex" "$out"; then
  echo "expect_job_fails: FAIL: no line matches /$regex/"
else
  echo "expect_job_fails: PASS (exit $rc)"
fi
rm -f "$out"
