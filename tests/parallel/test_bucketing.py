"""Gradient buckets: several small buckets started during the backward pass give exactly the
parameters of one bucket reduced after it; fp16 and top-k compression stay close (their drift is
bounded here and reported by the bench)."""

from .mpi import mpirun, ok, rank_results


def test_bucketed_overlapped_reduction_equals_one_bucket_after_the_backward():
    proc = ok(mpirun(2, "bucketing.py", timeout=240))
    results = rank_results(proc.stdout)
    assert len(results) == 2
    for r in results:
        assert r["buckets_small"] >= 3 and r["buckets_big"] == 1
        assert r["early_small"] == r["buckets_small"], "every bucket should start during the backward pass"
        assert r["early_big"] == 0
        assert r["diff_bucketed"] < 1e-6
        assert r["drift_fp16"] < 1e-2
        assert r["drift_topk"] < 1.0
