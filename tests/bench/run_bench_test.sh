#!/bin/sh
# Runs one pacoll-bench command line and checks what it did (tests/bench).
#
#   run_bench_test.sh [--rc N] [--expect REGEX] [--json FILE --python PY] -- COMMAND...
#
#   --rc N          the exit status COMMAND must return (default 0)
#   --expect REGEX  an extended regular expression its output (stdout and
#                   stderr) must contain on one line; may be given again
#   --json FILE     FILE (removed first, so a stale one cannot pass) must be
#                   written and parse as JSON, with the keys "schema",
#                   "settings"."vdist_params" and "settings"."mode"; where
#                   "auto" ran, every size must say which algorithm it ran
#                   ("ran", not "auto"); PY is the Python 3 interpreter
# Prints COMMAND's output, then "bench-test: PASS" (exit 0) or the reasons
# it failed (exit 1).
set -u
want_rc=0 expect= json= py=python3
while [ $# -gt 0 ]; do
    case $1 in
    --rc) want_rc=$2; shift 2 ;;
    --expect) expect="$expect$2
"; shift 2 ;;
    --json) json=$2; shift 2 ;;
    --python) py=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "run_bench_test.sh: unknown argument '$1'" >&2; exit 2 ;;
    esac
done
[ $# -gt 0 ] || { echo "run_bench_test.sh: no command" >&2; exit 2; }

out=$(mktemp "${TMPDIR:-/tmp}/pacoll-bench-test.XXXXXX") || exit 2
trap 'rm -f "$out"' EXIT
[ -n "$json" ] && rm -f "$json"

"$@" >"$out" 2>&1
rc=$?
cat "$out"
fail=0
if [ "$rc" -ne "$want_rc" ]; then
    echo "bench-test: FAIL: exit status $rc, expected $want_rc"
    fail=1
fi
while IFS= read -r re; do
    [ -n "$re" ] || continue
    if ! grep -Eq -- "$re" "$out"; then
        echo "bench-test: FAIL: the output does not contain /$re/"
        fail=1
    fi
done <<EOF_EXPECT
$expect
EOF_EXPECT
if [ -n "$json" ]; then
    if [ ! -s "$json" ]; then
        echo "bench-test: FAIL: --json $json was not written"
        fail=1
    elif ! "$py" -c 'import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "pacoll-bench/1", "schema"
assert isinstance(d["settings"]["vdist_params"], dict), "settings.vdist_params"
assert d["settings"]["mode"] in ("loop", "barrier"), "settings.mode"
chose = []
for r in d["results"]:
    for a in r["algos"]:
        if a["name"] == "auto":
            assert a["ran"] and a["ran"] != "auto", "auto ran nothing at %d B" % r["bytes"]
            chose.append("%d:%s" % (r["bytes"], a["ran"]))
print("bench-test: %s parses: mode %s, vdist %s %s, %d sizes%s" % (sys.argv[1],
      d["settings"]["mode"], d["settings"]["vdist"], d["settings"]["vdist_params"],
      len(d["results"]), "; auto ran " + " ".join(chose) if chose else ""))' "$json"; then
        echo "bench-test: FAIL: $json is not valid pacoll-bench JSON"
        fail=1
    fi
fi
[ $fail -eq 0 ] && echo "bench-test: PASS"
exit $fail
