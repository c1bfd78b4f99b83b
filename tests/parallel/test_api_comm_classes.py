"""The class-form communication ops of ops/comm_class_ops.py (Send, Receive, NeighborExchange,
BatchISendIRecv, ReduceScatterV, AlltoAllVC) on 3 real MPI ranks against NumPy, and their errors
without init()."""

import numpy as np
import pytest

import spore as ms
from spore import ops

from .mpi import mpirun, ok, rank_results


def test_comm_class_ops_on_three_ranks():
    results = rank_results(ok(mpirun(3, "api_comm_classes.py", timeout=240)).stdout)
    assert sorted(r["rank"] for r in results) == [0, 1, 2]
    for r in results:
        assert set(r["errors"]) == {"send_receive", "neighbor_exchange", "batch_isend_irecv", "reduce_scatter_v",
                                    "all_to_all_vc_False", "all_to_all_vc_True", "grad_refused_reduce_scatter_v",
                                    "grad_refused_all_to_all_vc"}, r
        bad = {k: v for k, v in r["errors"].items() if v > 1e-6}
        assert not bad, f"rank {r['rank']}: {bad}"


def test_comm_class_ops_say_communication_is_not_initialised():
    x = ms.Tensor(np.zeros(2, np.float32))
    for call in (lambda: ops.Send(0, 1)(x), lambda: ops.Receive(0, 0, (2,), ms.float32)(),
                 lambda: ops.AlltoAllVC()(x, [2]), lambda: ops.ReduceScatterV()(x, [2])):
        with pytest.raises(RuntimeError, match="not initialised"):
            call()
    with pytest.raises(ValueError, match="op_types"):
        ops.BatchISendIRecv(("send",), (1,))
    with pytest.raises(ValueError, match="one shape per rank"):
        ops.NeighborExchange([1], [0], [], [[2]], ms.float32)
