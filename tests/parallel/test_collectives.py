"""AllReduce (sum, max), AllGather, ReduceScatter and Broadcast, and their gradients, on 3 real MPI
ranks (an odd count, so no rank pairing hides an error), in PyNative and Graph mode, against NumPy;
and a sub-group made with create_group."""

from .mpi import mpirun, ok, rank_results


def test_collectives_and_their_gradients_match_numpy_on_three_ranks():
    proc = ok(mpirun(3, "collectives.py", timeout=240))
    results = rank_results(proc.stdout)
    assert sorted(r["rank"] for r in results) == [0, 1, 2]
    for r in results:
        errors = r["errors"]
        assert len([k for k in errors if k.startswith(("pynative:", "graph:"))]) == 20
        bad = {k: v for k, v in errors.items() if v > 1e-5}
        assert not bad, f"rank {r['rank']}: {bad}"
    assert "group:pair" in results[[r["rank"] for r in results].index(0)]["errors"]
    assert "Graph break" not in proc.stderr and "falls back" not in proc.stderr
