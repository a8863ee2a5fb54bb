#!/bin/sh
# Runs an MPI job that must succeed promptly: it passes when the job exits 0
# within SECONDS (not killed by the limit) and its output matches every
# REGEX (grep -E; separated by '@@', which CMake lists leave alone).
#   expect_job_ok.sh SECONDS 'REGEX@@REGEX...' command...
limit=$1 regexes=$2
shift 2
out=$(mktemp)
timeout -k 5 "$limit" "$@" >"$out" 2>&1
rc=$?
cat "$out"
verdict=PASS
if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
  verdict="FAIL: the job was still running after $limit s"
elif [ "$rc" -ne 0 ]; then
  verdict="FAIL: the job exited $rc"
else
  rest=$regexes
  while [ -n "$rest" ]; do
    re=${rest%%@@*}
    case $rest in *@@*) rest=${rest#*@@} ;; *) rest= ;; esac
    if [ -n "$re" ] && ! grep -Eq -- "$re" "$out"; then
      verdict="FAIL: no line matches /$re/"
      break
    fi
  done
fi
echo "expect_job_ok: $verdict"
rm -f "$out"
