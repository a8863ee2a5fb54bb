"""sim/trace-calls (pacoll_report.calls): per-call completion from a Paje
trace, on a small trace written by hand."""
from pacoll_report import calls

# Two ranks, two calls.  Call 0: rank 1 arrives last (t = 3 us), rank 0
# leaves at 7 us: completion 4 us.  Call 1: rank 0 arrives last (12 us),
# leaves at 13 us: completion 1 us.  A nested state (the root's internal
# receive) must not count as a top-level call.
TRACE = """%EventDef PajePushState 12
%EndEventDef
#comment
5 6 2 PMPI_Barrier "0 0 1"
5 7 2 PMPI_Recv "1 0 0"
5 8 2 PMPI_Allreduce "1 1 0"
12 0.000000 2 1 6
13 0.000002 2 1
12 0.000002 2 1 7
12 0.000003 2 1 7
13 0.000004 2 1
13 0.000007 2 1
12 0.000007 2 1 6
13 0.000012 2 1
12 0.000013 2 1 8
13 0.000014 2 1
12 0.000000 2 2 6
13 0.000003 2 2
12 0.000004 2 2 6
13 0.000011 2 2
12 0.000011 2 2 8
13 0.000014 2 2
"""


def test_calls_from_a_trace(tmp_path):
    p = tmp_path / "t.paje"
    p.write_text(TRACE)
    st = calls.read_states(str(p))
    assert [s[0] for s in st[0]] == ["PMPI_Barrier", "PMPI_Recv", "PMPI_Barrier", "PMPI_Allreduce"]
    cs = calls.calls(st)
    assert len(cs) == 2
    assert abs(cs[0]["completion"] - 4e-6) < 1e-12
    assert cs[0]["last_rank"] == 1
    assert abs(cs[0]["skew"] - 1e-6) < 1e-12
    assert abs(cs[1]["completion"] - 1e-6) < 1e-12
    assert cs[1]["last_rank"] == 0
    assert calls.calls(st, last=1) == cs[1:]


def test_cli_says_when_there_is_no_call(tmp_path, capsys):
    p = tmp_path / "empty.paje"
    p.write_text("%EventDef PajePushState 12\n%EndEventDef\n")
    assert calls.main([str(p)]) == 1
    p.write_text(TRACE)
    assert calls.main([str(p), "--rank", "0"]) == 0
    out = capsys.readouterr().out
    assert "mean completion 2.500 us over 2 calls" in out
