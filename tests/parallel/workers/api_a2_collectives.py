"""The torch-style collectives (ops/comm_collective_ops.py) on N real ranks.

Every rank knows every rank's data (seeded by rank), so it computes with NumPy what it should get.
Prints one line ``RESULT <json>`` with the largest absolute error of each tensor check and the
outcome of each object check.
"""

import json

import numpy as np

import spore as ms
from spore import ops
from spore.communication import get_group_size, get_rank, init

init()
rank, n = get_rank(), get_group_size()


def data(r, salt, shape=(2, 3)):
    return np.random.default_rng(100 * salt + r).standard_normal(shape).astype(np.float32)


def e(got, want):
    return float(np.abs(np.asarray(got) - np.asarray(want)).max())


err, checks = {}, {}
every = lambda salt, shape=(2, 3): [data(r, salt, shape) for r in range(n)]  # noqa: E731

for op, fn in (("sum", np.sum), ("max", np.max), ("min", np.min), ("prod", np.prod)):
    t = ms.Tensor(data(rank, 1))
    assert ops.all_reduce(t, op) is None
    err[f"all_reduce_{op}"] = e(t.asnumpy(), fn(np.stack(every(1)), 0))
h = ops.all_reduce(ms.Tensor(data(rank, 1)), async_op=True)
checks["async_handle"] = h.wait() is True and h.is_completed()

out = ms.Tensor(np.zeros((2 * n, 3), np.float32))
ops.all_gather_into_tensor(out, ms.Tensor(data(rank, 2)))
err["all_gather_into_tensor"] = e(out.asnumpy(), np.concatenate(every(2)))

sizes = [r + 1 for r in range(n)]
out = ms.Tensor(np.zeros((sum(sizes), 2), np.float32))
ops.all_gather_into_tensor_uneven(out, ms.Tensor(data(rank, 3, (sizes[rank], 2))), sizes)
err["all_gather_into_tensor_uneven"] = e(out.asnumpy(), np.concatenate([data(r, 3, (sizes[r], 2)) for r in range(n)]))

lst = [ms.Tensor(np.zeros((2, 3), np.float32)) for _ in range(n)]
ops.all_gather(lst, ms.Tensor(data(rank, 4)))
err["all_gather"] = max(e(t.asnumpy(), w) for t, w in zip(lst, every(4)))

objs = [None] * n
ops.all_gather_object(objs, {"rank": rank, "sq": rank * rank})
checks["all_gather_object"] = objs == [{"rank": r, "sq": r * r} for r in range(n)]

t = ms.Tensor(data(rank, 5))
ops.broadcast(t, n - 1)
err["broadcast"] = e(t.asnumpy(), data(n - 1, 5))

bl = ["x", 1, None] if rank == 1 else [None, None, None]
ops.broadcast_object_list(bl, src=1)
checks["broadcast_object_list"] = bl == ["x", 1, None]

ops.barrier()
ops.Barrier()()
checks["barrier"] = ops.barrier(async_op=True).wait()

out = ms.Tensor(np.full((2 * n, 3), -1.0, np.float32))
ops.gather_into_tensor(out, ms.Tensor(data(rank, 6)), dst=1)
err["gather_into_tensor"] = e(out.asnumpy(), np.concatenate(every(6)) if rank == 1 else np.full((2 * n, 3), -1.0))

gl = [None] * n if rank == 0 else None
ops.gather_object(("from", rank), gl, dst=0)
if rank == 0:
    checks["gather_object"] = gl == [("from", r) for r in range(n)]

# all_to_all: rank i sends a (j+1, i+1)-shaped block to rank j (shapes differ per pair)
blk = lambda src, dst: np.full((dst + 1, src + 1), 10 * src + dst, np.float32)  # noqa: E731
outs = [ms.Tensor(np.zeros((rank + 1, j + 1), np.float32)) for j in range(n)]
ops.all_to_all(outs, [ms.Tensor(blk(rank, j)) for j in range(n)])
err["all_to_all"] = max(e(o.asnumpy(), blk(j, rank)) for j, o in enumerate(outs))

x = data(rank, 7, (2 * n, 3))
out = ms.Tensor(np.zeros((2 * n, 3), np.float32))
ops.all_to_all_single(out, ms.Tensor(x))
err["all_to_all_single"] = e(out.asnumpy(), np.concatenate([d[2 * rank:2 * rank + 2] for d in every(7, (2 * n, 3))]))

# uneven: rank i sends (i + j + 1) rows to rank j
cnt = lambda i, j: i + j + 1  # noqa: E731
rows = lambda i: sum(cnt(i, j) for j in range(n))  # noqa: E731
x = data(rank, 8, (rows(rank), 2))
sout = [cnt(j, rank) for j in range(n)]
out = ms.Tensor(np.zeros((sum(sout), 2), np.float32))
ops.all_to_all_single(out, ms.Tensor(x), sout, [cnt(rank, j) for j in range(n)])
want = []
for j in range(n):
    src = data(j, 8, (rows(j), 2))
    lo = sum(cnt(j, k) for k in range(rank))
    want.append(src[lo:lo + cnt(j, rank)])
err["all_to_all_single_uneven"] = e(out.asnumpy(), np.concatenate(want))

nxt, prv = (rank + 1) % n, (rank - 1) % n
r = ms.Tensor(np.zeros((2, 3), np.float32))
hs = ops.batch_isend_irecv([ops.P2POp("isend", ms.Tensor(data(rank, 9)), nxt), ops.P2POp("irecv", r, prv)])
for h in hs:
    h.wait()
err["batch_isend_irecv"] = e(r.asnumpy(), data(prv, 9))

# all_to_all_v_c: rank i sends (i + j + 1) rows to rank j, as above, from one n x n matrix
mat = [cnt(i, j) for i in range(n) for j in range(n)]
out = ms.Tensor(np.zeros((sum(sout), 2), np.float32))
ops.all_to_all_v_c(out, ms.Tensor(x), mat)
err["all_to_all_v_c"] = e(out.asnumpy(), np.concatenate(want))

# class forms
y = ops.AlltoAll(n, 1, 0)(ms.Tensor(data(rank, 10, (2, 3 * n))))
cols = slice(3 * rank, 3 * rank + 3)
err["AlltoAll"] = e(y.asnumpy(), np.concatenate([data(j, 10, (2, 3 * n))[:, cols] for j in range(n)], 0))
flat = data(rank, 8, (rows(rank), 2)).reshape(-1)
y = ops.AlltoAllV(block_size=2)(ms.Tensor(flat), [cnt(rank, j) for j in range(n)], ms.Tensor(np.array(sout)))
err["AlltoAllV"] = e(y.asnumpy(), np.concatenate(want).reshape(-1))
y = ops.AllGatherV()(ms.Tensor(data(rank, 3, (sizes[rank], 2)).reshape(-1)), [2 * s for s in sizes])
err["AllGatherV"] = e(y.asnumpy(), np.concatenate([data(r, 3, (sizes[r], 2)).reshape(-1) for r in range(n)]))
y = ops.CollectiveGather(dest_rank=2)(ms.Tensor(data(rank, 11)))
err["CollectiveGather"] = e(y.asnumpy(), np.concatenate(every(11)) if rank == 2 else np.zeros((2 * n, 3)))
y = ops.CollectiveScatter(src_rank=1)(ms.Tensor(data(rank, 12, (2 * n, 3))))
err["CollectiveScatter"] = e(y.asnumpy(), data(1, 12, (2 * n, 3))[2 * rank:2 * rank + 2])

checks["get_backend"] = ops.get_backend() == "mpi"

print("RESULT " + json.dumps({"rank": rank, "errors": err, "checks": checks}), flush=True)
