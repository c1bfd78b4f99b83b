"""Torch-style collectives (ops/comm_collective_ops.py: all_reduce, all_gather*, broadcast*,
barrier/Barrier, gather_into_tensor, gather_object, all_to_all*, batch_isend_irecv) on 3 real MPI
ranks against NumPy, and their errors without init()."""

import numpy as np
import pytest

from spore import Tensor, ops

from .mpi import mpirun, ok, rank_results

TENSOR_CHECKS = {"all_reduce_sum", "all_reduce_max", "all_reduce_min", "all_reduce_prod", "all_gather_into_tensor",
                 "all_gather_into_tensor_uneven", "all_gather", "broadcast", "gather_into_tensor", "all_to_all",
                 "all_to_all_single", "all_to_all_single_uneven", "batch_isend_irecv",
                 "all_to_all_v_c", "AlltoAll", "AlltoAllV", "AllGatherV", "CollectiveGather", "CollectiveScatter"}


def test_collectives_on_three_ranks():
    results = rank_results(ok(mpirun(3, "api_a2_collectives.py", timeout=240)).stdout)
    assert sorted(r["rank"] for r in results) == [0, 1, 2]
    for r in results:
        assert set(r["errors"]) == TENSOR_CHECKS, r
        bad = {k: v for k, v in r["errors"].items() if v > 1e-6}
        assert not bad, f"rank {r['rank']}: {bad}"
        want = {"async_handle", "all_gather_object", "broadcast_object_list", "barrier", "get_backend"}
        assert want <= set(r["checks"]), r
        assert all(r["checks"].values()), r
    assert results[[r["rank"] for r in results].index(0)]["checks"]["gather_object"] is True


def test_collectives_say_communication_is_not_initialised():
    x = Tensor(np.zeros(2, np.float32))
    for call in (lambda: ops.all_reduce(x), lambda: ops.broadcast(x, 0), lambda: ops.barrier(),
                 lambda: ops.all_gather_object([None], 1), lambda: ops.Barrier()(),
                 lambda: ops.all_to_all_single(x, x)):
        with pytest.raises(RuntimeError, match="not initialised"):
            call()
    with pytest.raises(TypeError, match="batch_isend_irecv"):
        ops.batch_isend_irecv([])
    with pytest.raises(TypeError, match="Barrier: group"):
        ops.Barrier(3)
    for call in (lambda: ops.AlltoAll(2, 0, 0)(x), lambda: ops.AllGatherV()(x, [2]),
                 lambda: ops.CollectiveScatter()(x), lambda: ops.all_to_all_v_c(x, x, [2]),
                 lambda: ops.get_backend()):
        with pytest.raises(RuntimeError, match="not initialised"):
            call()
    with pytest.raises(ValueError, match="AlltoAllV: block_size"):
        ops.AlltoAllV(block_size=0)
    with pytest.raises(TypeError, match="CollectiveGather: dest_rank"):
        ops.CollectiveGather("0")
