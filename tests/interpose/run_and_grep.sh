#!/bin/sh
# Runs a command and judges it by its exit code AND its output: why this
# exists.  ctest's PASS_REGULAR_EXPRESSION ignores the exit code, and a test
# of the interposition layer must prove two things at once: the program got
# the right values (its own "OK" line, exit code 0) and its collectives went
# through pacoll (the pacoll-stats lines printed at MPI_Finalize).
#
# usage: run_and_grep.sh [--require REGEX]... [--forbid REGEX]... -- COMMAND [ARG]...
#   --require REGEX  an extended regular expression some output line must match
#   --forbid REGEX   one no output line may match
# The command's stdout and stderr are shown as they are; the exit code is 0
# only when the command exited 0 and every pattern held.
set -u

usage() {
    echo "usage: $0 [--require REGEX]... [--forbid REGEX]... -- COMMAND [ARG]..." >&2
    exit 2
}

patterns=$(mktemp) || exit 2
output=$(mktemp) || exit 2
trap 'rm -f "$patterns" "$output"' EXIT INT TERM

while [ $# -gt 0 ]; do
    case "$1" in
    --require | --forbid)
        [ $# -ge 2 ] || usage
        printf '%s\t%s\n' "$1" "$2" >>"$patterns"
        shift 2
        ;;
    --)
        shift
        break
        ;;
    *) usage ;;
    esac
done
[ $# -gt 0 ] || usage

"$@" >"$output" 2>&1
status=$?
cat "$output"

failed=0
if [ "$status" -ne 0 ]; then
    echo "run_and_grep: FAIL: command exited with status $status" >&2
    failed=1
fi
while IFS="$(printf '\t')" read -r kind regex; do
    if grep -E -q -e "$regex" "$output"; then found=1; else found=0; fi
    if [ "$kind" = "--require" ] && [ "$found" -eq 0 ]; then
        echo "run_and_grep: FAIL: no output line matches: $regex" >&2
        failed=1
    elif [ "$kind" = "--forbid" ] && [ "$found" -eq 1 ]; then
        echo "run_and_grep: FAIL: an output line matches the forbidden: $regex" >&2
        failed=1
    fi
done <"$patterns"

[ "$failed" -eq 0 ] && echo "run_and_grep: PASS"
exit "$failed"
