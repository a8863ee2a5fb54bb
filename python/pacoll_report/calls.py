"""Per-call arrival and exit times from an SMPI Paje trace of pacoll-bench.

pacoll-bench times the mean over its calls; a pattern that repeats every
few calls (a flow-control round trip every third gather, say) hides in
that mean.  Run the benchmark under smpirun with

    -trace -trace-file T.paje --cfg=tracing/precision:10
    --cfg=tracing/smpi/computing:yes

(the last makes the benchmark's injected arrival delays visible;
``--cfg=tracing/smpi/internals:yes`` adds the peers' internal messages),
then ``sim/trace-calls T.paje``: one line per timed call, from the
benchmark's own barrier before each call (a rank's arrival is the end of
its barrier, its exit the start of the next barrier or of the final
reduction).  docs/MULTIPORT.md, "Where gather's time goes (simulated)", has a use.
"""

import argparse
import collections
import sys


def read_states(path):
    """Per rank (0-based): its top-level MPI states, (name, start, end) in
    seconds, in order.  Nested states (a collective's internal calls) are
    left out."""
    names, stack = {}, collections.defaultdict(list)
    states = collections.defaultdict(list)
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            if not line or line[0] in "%#":
                continue
            p = line.split()
            if len(p) < 4:
                continue
            if p[0] == "5":  # PajeDefineEntityValue: id, type, "name"
                names[p[1]] = p[3].strip('"')
            elif p[0] == "12":  # PajePushState: time, type, container, value
                stack[p[3]].append((float(p[1]), names.get(p[4], p[4])))
            elif p[0] == "13" and stack[p[3]]:  # PajePopState: time, type, container
                t0, v = stack[p[3]].pop()
                if not stack[p[3]]:
                    states[int(p[3]) - 1].append((v, t0, float(p[1])))
    return {r: sorted(s, key=lambda x: x[1]) for r, s in states.items()}


def calls(states, last=None):
    """One dict per call that follows a barrier on every rank: each rank's
    arrival and exit (seconds), the last arrival, the last exit and which
    rank arrived last.  last: only the last N calls (the timed ones)."""
    ranks = sorted(states)
    if not ranks:
        return []
    bars = {r: [i for i, s in enumerate(states[r]) if s[0] == "PMPI_Barrier"] for r in ranks}
    n = min(len(b) for b in bars.values())
    out = []
    for k in range(n):
        arr, ext = {}, {}
        for r in ranks:
            i = bars[r][k]
            arr[r] = states[r][i][2]
            j = i + 1
            # the benchmark's injected delay (--mif, --late), traced with
            # --cfg=tracing/smpi/computing:yes: the rank arrives after it
            if j < len(states[r]) and states[r][j][0] == "computing" and \
                    states[r][j][1] - arr[r] < 1e-7:
                arr[r] = states[r][j][2]
                j += 1
            while j < len(states[r]) and states[r][j][0] not in ("PMPI_Barrier", "PMPI_Allreduce"):
                j += 1
            if j == len(states[r]):
                break
            ext[r] = states[r][j][1]
        if len(ext) < len(ranks):
            continue
        la, le = max(arr.values()), max(ext.values())
        out.append({
            "arrive": arr, "exit": ext,
            "last_arrival": la, "last_exit": le,
            "completion": le - la,
            "skew": la - min(arr.values()),
            "last_rank": max(ranks, key=lambda r: (arr[r], r)),
        })
    return out[-last:] if last else out


def main(argv=None):
    ap = argparse.ArgumentParser(prog="sim/trace-calls", description=__doc__.split("\n\n")[0])
    ap.add_argument("trace", help="the Paje file smpirun -trace wrote")
    ap.add_argument("--last", type=int, default=0, help="only the last N calls (--iters)")
    ap.add_argument("--rank", type=int, default=None,
                    help="also this rank's arrival and exit (a gather's root, say)")
    a = ap.parse_args(argv)
    cs = calls(read_states(a.trace), a.last or None)
    if not cs:
        print("sim/trace-calls: no call between barriers found in " + a.trace, file=sys.stderr)
        return 1
    head = "call  completion_us  skew_us  last_rank"
    if a.rank is not None:
        head += "  rank%d_arrive_us  rank%d_exit_us (after the last arrival)" % (a.rank, a.rank)
    print(head)
    for i, c in enumerate(cs):
        line = "%4d  %13.3f  %7.3f  %9d" % (i, c["completion"] * 1e6, c["skew"] * 1e6, c["last_rank"])
        if a.rank is not None and a.rank in c["arrive"]:
            line += "  %15.3f  %13.3f" % ((c["arrive"][a.rank] - c["last_arrival"]) * 1e6,
                                          (c["exit"][a.rank] - c["last_arrival"]) * 1e6)
        print(line)
    mean = sum(c["completion"] for c in cs) / len(cs)
    print("mean completion %.3f us over %d calls" % (mean * 1e6, len(cs)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
