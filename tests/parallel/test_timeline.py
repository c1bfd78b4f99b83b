"""The Profiler under data parallelism: one trace per rank, merged into one timeline with a track
per rank, bucket all-reduces on their own thread track, handed over while the backward still runs.

Whether the communication thread actually *runs* beside the backward depends on the scheduler (on a
loaded 2-core machine it may start only when the backward is done), so what is asserted is the
design's promise: the backward hands early buckets over before its last op, and each reduction
starts no earlier than it was handed over."""

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
        assert all(c["args"]["issued_ts"] <= c["ts"] + 1.0 for c in comm), "a reduction started before it was issued"
        # an op that started after a bucket was handed over, and before that step's reductions were
        # all done, is backward work that the early hand-over let communication overlap. The step's
        # last reduction bounds the window, not the bucket's own: on a loaded machine the backward's
        # thread may be descheduled right after a hand-over while a small bucket's reduction finishes
        buckets = len({c["name"] for c in comm})
        by_issue = sorted(comm, key=lambda c: c["args"]["issued_ts"])
        steps = [by_issue[i:i + buckets] for i in range(0, len(by_issue), buckets)]
        assert len(steps) >= 3 and all(len({c["name"] for c in s}) == buckets for s in steps)
        for k, step_comm in enumerate(steps):
            end = max(c["ts"] + c["dur"] for c in step_comm)
            early = [c for c in step_comm if any(c["args"]["issued_ts"] < o["ts"] < end for o in ops)]
            assert early, f"rank {rank}, step {k}: no bucket was handed over before the backward's last op"
