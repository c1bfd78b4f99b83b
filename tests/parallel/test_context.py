"""The parallel context, communication API and reducer in one process (no launcher): MindSpore's
names and defaults, refusals that name what is wrong, a world of one rank."""

import numpy as np
import pytest

import spore as ms
from spore import communication as comm
from spore import nn, ops
from spore.parallel import ParallelMode


@pytest.fixture(autouse=True)
def _reset():
    ms.reset_auto_parallel_context()
    yield
    ms.reset_auto_parallel_context()


def test_context_defaults_and_round_trip():
    assert ms.get_auto_parallel_context("parallel_mode") == ParallelMode.STAND_ALONE
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True,
                                 comm_fusion={"allreduce": {"mode": "size", "config": 4}})
    assert ms.get_auto_parallel_context("parallel_mode") == "data_parallel"
    assert ms.get_auto_parallel_context("gradients_mean") is True
    ms.reset_auto_parallel_context()
    assert ms.get_auto_parallel_context("gradients_mean") is False


@pytest.mark.parametrize("kwargs, message", [
    ({"parallel_mode": "pipeline"}, "parallel_mode must be one of"),
    ({"parallel_mode": ParallelMode.SEMI_AUTO_PARALLEL}, "not supported by Spore"),
    ({"gradients_mean": 1}, "gradients_mean must be a bool"),
    ({"device_num": 0}, "device_num must be an int >= 1"),
    ({"comm_fusion": {"allreduce": {"config": -1}}}, "comm_fusion must look like"),
    ({"grad_compression": "zip"}, "grad_compression must be one of"),
    ({"bucket": 3}, "unknown key 'bucket'"),
])
def test_bad_context_values_are_refused_by_name(kwargs, message):
    with pytest.raises((ValueError, TypeError), match=message):
        ms.set_auto_parallel_context(**kwargs)


def test_one_process_world_without_a_launcher():
    comm.init()
    assert (comm.get_rank(), comm.get_group_size(), comm.get_local_rank()) == (0, 1, 0)
    x = ms.Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    assert np.array_equal(ops.AllReduce()(x).asnumpy(), x.asnumpy())
    assert np.array_equal(ops.AllGather()(x).asnumpy(), x.asnumpy())
    assert np.array_equal(ops.Broadcast(0)((x,))[0].asnumpy(), x.asnumpy())
    with pytest.raises(ValueError, match="does not exist"):
        comm.get_rank("no_such_group")
    with pytest.raises(ValueError, match="backend_name must be one of"):
        comm.init("gloo")
    with pytest.raises(ValueError, match=r"rank_ids must be distinct ranks in \[0, 1\), got \[1\]"):
        comm.create_group("g", [1])
    comm.release()


def test_reducer_buckets_follow_the_backward_order_and_the_size_limit():
    net = nn.SequentialCell(nn.Dense(100, 100), nn.Dense(100, 100), nn.Dense(100, 10))
    params = net.trainable_params()
    reducer = nn.DistributedGradReducer(params, bucket_size_mb=50_000 / 2**20)
    buckets = reducer.buckets
    assert [n for b in buckets for n in b] == [p.name for p in reversed(params)]   # last layer first
    assert all(sum(int(np.prod(p.shape)) for p in params if p.name in b) * 4 <= 50_000 or len(b) == 1
               for b in buckets)
    assert len(buckets) >= 2
    with pytest.raises(ValueError, match="compression must be None, 'fp16' or 'topk'"):
        nn.DistributedGradReducer(params, compression="gzip")


def test_sharding_needs_data_parallel_on_several_ranks():
    import spore.dataset as ds

    ms.set_auto_parallel_context(parallel_mode=ParallelMode.DATA_PARALLEL)
    data = ds.NumpySlicesDataset({"i": np.arange(10, dtype=np.int32)}, shuffle=False)
    assert [int(r["i"]) for r in data.create_dict_iterator(output_numpy=True)] == list(range(10))  # one rank


def test_collective_shape_rules_name_the_problem():
    from spore.errors import ShapeError

    with pytest.raises(ShapeError, match="AllGather"):
        ops.AllGather()(ms.Tensor(np.float32(1.0)))
    with pytest.raises(ValueError, match="op must be ReduceOp"):
        ops.AllReduce("mean")
