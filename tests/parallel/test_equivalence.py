"""N ranks with per-rank batch B end with the same parameters as one process with batch N*B.

Tolerance: 1e-5 relative to each parameter's largest entry (float32; the only difference is the
order in which the ranks' gradient halves are summed). Ranks are seeded differently on purpose, so
the check also covers the start-up broadcast of rank 0's parameters.
"""

import numpy as np
import pytest

from .mpi import mpirun, ok, single

RTOL = 1e-5


def _params(path):
    data = np.load(path)
    return {k: data[k] for k in data if not k.startswith("__")}


def _max_rel(a, b):
    assert a.keys() == b.keys()
    return max(float(np.abs(a[k] - b[k]).max() / (np.abs(a[k]).max() + 1e-12)) for k in a)


@pytest.mark.parametrize("mode", ["pynative", "graph"])
@pytest.mark.parametrize("net", ["mlp", "cnn"])
def test_two_ranks_equal_one_process_with_the_global_batch(tmp_path, net, mode):
    one, two = tmp_path / "one.npz", tmp_path / "two.npz"
    ok(single("equivalence.py", net, mode, "8", "3", str(one)))
    ok(mpirun(2, "equivalence.py", net, mode, "8", "3", str(two), "0.001"))  # tiny buckets: several per step
    assert _max_rel(_params(one), _params(two)) < RTOL


@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_batchnorm_statistics_are_per_rank_and_sync_batchnorm_makes_them_global(tmp_path, mode):
    """nn.BatchNorm1d normalises with each rank's own half batch (as in MindSpore), so 2 ranks differ
    from 1 process; nn.SyncBatchNorm all-reduces the statistics and matches it."""
    for net, equal in (("bn", False), ("syncbn", True)):
        one, two = tmp_path / f"{net}1.npz", tmp_path / f"{net}2.npz"
        ok(single("equivalence.py", net, mode, "8", "3", str(one)))
        ok(mpirun(2, "equivalence.py", net, mode, "8", "3", str(two)))
        err = _max_rel(_params(one), _params(two))
        assert (err < RTOL) == equal, (net, err)


def test_three_ranks_equal_one_process(tmp_path):
    one, three = tmp_path / "one.npz", tmp_path / "three.npz"
    ok(single("equivalence.py", "mlp", "pynative", "12", "2", str(one)))
    ok(mpirun(3, "equivalence.py", "mlp", "pynative", "12", "2", str(three)))
    assert _max_rel(_params(one), _params(three)) < RTOL
