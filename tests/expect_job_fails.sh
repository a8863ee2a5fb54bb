#!/bin/sh
# Runs an MPI job that must fail, and fail promptly: it passes when the job
# exits non-zero within SECONDS (not killed by the limit) and its output
# matches REGEX (grep -E).
#   expect_job_fails.sh SECONDS REGEX command...
limit=$1 regex=$2
shift 2
out=$(mktemp)
timeout -k 5 "$limit" "$@" >"$out" 2>&1
rc=$?
cat "$out"
if [ "$rc" -eq 0 ]; then
  echo "expect_job_fails: FAIL: the job exited 0"
elif [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
  echo "expect_job_fails: FAIL: the job was still running after $limit s"
elif ! grep -Eq "$regex" "$out"; then
  echo "expect_job_fails: FAIL: no line matches /$regex/"
else
  echo "expect_job_fails: PASS (exit $rc)"
fi
rm -f "$out"
