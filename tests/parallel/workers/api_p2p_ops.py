"""send/recv, isend/irecv, P2POp, reduce, scatter_tensor and the object-list forms on N real ranks.

Every rank knows every rank's data (seeded by rank), so it computes what it should receive itself.
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


err, checks = {}, {}
nxt, prv = (rank + 1) % n, (rank - 1) % n
assert ops.is_initialized()

# blocking ring: rank 0 sends first, the others receive first (no deadlock whatever MPI buffers)
buf = ms.Tensor(np.zeros((2, 3), np.float32))
if rank == 0:
    assert ops.send(ms.Tensor(data(rank, 1)), nxt, tag=3) == 0
    assert ops.recv(buf, prv, tag=3) == 0
else:
    assert ops.recv(buf, prv, tag=3) == 0
    assert ops.send(ms.Tensor(data(rank, 1)), nxt, tag=3) == 0
err["send_recv"] = float(np.abs(buf.asnumpy() - data(prv, 1)).max())

# non-blocking ring, two tags in flight at once (received in the opposite order to the sends)
a, b = ms.Tensor(np.zeros((2, 3), np.float32)), ms.Tensor(np.zeros((4,), np.float32))
hs = [ops.isend(ms.Tensor(data(rank, 2)), nxt, tag=1), ops.isend(ms.Tensor(data(rank, 3, (4,))), nxt, tag=2)]
hr = [ops.irecv(b, prv, tag=2), ops.irecv(a, prv, tag=1)]
for h in hs + hr:
    h.wait()
err["isend_irecv"] = float(max(np.abs(a.asnumpy() - data(prv, 2)).max(),
                               np.abs(b.asnumpy() - data(prv, 3, (4,))).max()))

# P2POp: deferred isend/irecv
c = ms.Tensor(np.zeros((2, 3), np.float32))
ops_ = [ops.P2POp(ops.isend, ms.Tensor(data(rank, 4)), nxt), ops.P2POp("irecv", c, prv)]
for h in [p.run() for p in ops_]:
    h.wait()
err["P2POp"] = float(np.abs(c.asnumpy() - data(prv, 4)).max())

# reduce to rank 1: only rank 1's tensor changes
for op, fn in (("sum", np.sum), ("max", np.max)):
    t = ms.Tensor(data(rank, 5))
    assert ops.reduce(t, 1, op) is None
    want = fn(np.stack([data(r, 5) for r in range(n)]), 0) if rank == 1 else data(rank, 5)
    err[f"reduce_{op}"] = float(np.abs(t.asnumpy() - want).max())
h = ops.reduce(ms.Tensor(data(rank, 5)), 0, async_op=True)
checks["reduce_async_handle"] = h.wait() is True

# scatter_tensor from the last rank
out = ms.Tensor(np.zeros((2, 3), np.float32))
full = np.concatenate([data(r, 6) for r in range(n)])      # only the root's copy is read
ops.scatter_tensor(out, ms.Tensor(full if rank == n - 1 else np.zeros_like(full)), src=n - 1)
err["scatter_tensor"] = float(np.abs(out.asnumpy() - data(rank, 6)).max())

# reduce_scatter family: rank i gets the reduction of every rank's i-th slice
big = [data(r, 7, (n * 2, 3)) for r in range(n)]
o = ms.Tensor(np.zeros((2, 3), np.float32))
ops.reduce_scatter_tensor(o, ms.Tensor(big[rank]))
err["reduce_scatter_tensor"] = float(np.abs(o.asnumpy() - sum(big)[2 * rank:2 * rank + 2]).max())
o = ms.Tensor(np.zeros((2, 3), np.float32))
ops.reduce_scatter(o, [ms.Tensor(data(rank, 8 + i)) for i in range(n)], op="max")
err["reduce_scatter"] = float(np.abs(o.asnumpy() - np.max([data(r, 8 + rank) for r in range(n)], 0)).max())
sizes = [r + 1 for r in range(n)]                            # uneven: rank i gets i + 1 rows
tall = [data(r, 20, (sum(sizes), 2)) for r in range(n)]
o = ms.Tensor(np.zeros((sizes[rank], 2), np.float32))
ops.reduce_scatter_tensor_uneven(o, ms.Tensor(tall[rank]), sizes)
lo = sum(sizes[:rank])
err["reduce_scatter_tensor_uneven"] = float(np.abs(o.asnumpy() - sum(tall)[lo:lo + sizes[rank]]).max())

# the class form: dest_rank 2 gets the product, the others a shape-[1] placeholder
r = ops.Reduce(2, "prod")(ms.Tensor(data(rank, 9)))
want = np.prod(np.stack([data(q, 9) for q in range(n)]), 0) if rank == 2 else np.zeros(1, np.float32)
err["Reduce_prod"] = float(np.abs(r.asnumpy() - want).max()) if r.shape == want.shape else 1e9

# objects
if rank == 0:
    ops.send_object_list([{"a": 1}, "two", [3.0]], n - 1)
if rank == n - 1:
    got = [None, None, None]
    ops.recv_object_list(got, 0)
    checks["object_list"] = got == [{"a": 1}, "two", [3.0]]
mine = [None]
ops.scatter_object_list(mine, [{"to": r} for r in range(n)] if rank == 0 else None, src=0)
checks["scatter_object_list"] = mine[0] == {"to": rank}

print("RESULT " + json.dumps({"rank": rank, "errors": err, "checks": checks}), flush=True)
