"""The Profiler under data parallelism: one trace per rank, merged into one timeline with a track
per rank, bucket all-reduces on their own thread track, overlapping the backward's ops."""

import json

from .mpi import mpirun, ok


def test_merged_timeline_has_a_track_per_rank_and_communication_overlapping_compute(tmp_path):
    ok(mpirun(2, "profile.py", str(tmp_path), timeout=180))
    trace = json.loads((tmp_path / "timeline.json").read_text())
    events = trace["traceEvents"]
    names = {e["pid"]: e["args"]["name"] for e in events if e.get("ph") == "M"}
    assert names == {0: "rank 0", 1: "rank 1"}
    for rank in (0, 1):
        comm = [e for e in events if e["pid"] == rank and e.get("cat") == "communication"]
        ops = [e for e in events if e["pid"] == rank and e.get("cat") == "pynative"]
        assert len(comm) >= 3 * 3 and all(e["tid"] == 2 for e in comm)   # >= 3 buckets x 3 steps
        assert ops
        overlapped = [c for c in comm if any(o["ts"] < c["ts"] + c["dur"] and c["ts"] < o["ts"] + o["dur"]
                                             for o in ops)]
        assert overlapped, f"rank {rank}: no all-reduce ran while an op computed"
