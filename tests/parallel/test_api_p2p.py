"""Point-to-point and rooted communication (ops/p2p_comm_ops.py: send/recv, isend/irecv, P2POp,
reduce, Reduce, scatter_tensor, reduce_scatter*, send/recv_object_list, scatter_object_list) on 3 real MPI ranks against
NumPy, and their errors without init()."""

import numpy as np
import pytest

from spore import Tensor, ops

from .mpi import mpirun, ok, rank_results


def test_p2p_and_rooted_ops_on_three_ranks():
    results = rank_results(ok(mpirun(3, "api_p2p_ops.py", timeout=240)).stdout)
    assert sorted(r["rank"] for r in results) == [0, 1, 2]
    for r in results:
        assert set(r["errors"]) == {"send_recv", "isend_irecv", "P2POp", "reduce_sum", "reduce_max",
                                    "scatter_tensor", "reduce_scatter_tensor", "reduce_scatter",
                                    "reduce_scatter_tensor_uneven", "Reduce_prod"}, r
        bad = {k: v for k, v in r["errors"].items() if v > 1e-6}
        assert not bad, f"rank {r['rank']}: {bad}"
        assert all(r["checks"].values()) and "scatter_object_list" in r["checks"], r
    assert results[[r["rank"] for r in results].index(2)]["checks"]["object_list"] is True


def test_p2p_ops_say_communication_is_not_initialised():
    x = Tensor(np.zeros(2, np.float32))
    for call in (lambda: ops.send(x, 1), lambda: ops.recv(x, 0), lambda: ops.reduce(x, 0),
                 lambda: ops.send_object_list([1], 1)):
        with pytest.raises(RuntimeError, match="not initialised"):
            call()
    with pytest.raises(TypeError, match="P2POp: op"):
        ops.P2POp("allreduce", x, 1)
