"""Send/Receive, NeighborExchange, BatchISendIRecv, ReduceScatterV and AlltoAllVC on N real ranks.

Every rank knows every rank's data (seeded by rank), so it computes what it should receive itself.
Prints one line ``RESULT <json>`` with the largest absolute error of each check.
"""

import json

import numpy as np

import spore as ms
from spore import ops
from spore.communication import get_group_size, get_rank, init

init()
rank, n = get_rank(), get_group_size()
nxt, prv = (rank + 1) % n, (rank - 1) % n


def data(r, salt, shape=(2, 3)):
    return np.random.default_rng(100 * salt + r).standard_normal(shape).astype(np.float32)


err = {}

# Send/Receive around the ring: rank 0 sends first, the others receive first
recv = ops.Receive(sr_tag=5, src_rank=prv, shape=(2, 3), dtype=ms.float32)
x = ms.Tensor(data(rank, 1))
if rank == 0:
    assert ops.Send(5, nxt)(x) is x
    got = recv()
else:
    got = recv()
    ops.Send(5, nxt)(x)
err["send_receive"] = float(np.abs(got.asnumpy() - data(prv, 1)).max())

# NeighborExchange: send to both neighbours, receive from both (shapes differ by direction)
ne = ops.NeighborExchange(send_rank_ids=[nxt, prv], recv_rank_ids=[prv, nxt], recv_shapes=([2, 3], [4]),
                          send_shapes=([2, 3], [4]), recv_type=ms.float32)
a, b = ne((ms.Tensor(data(rank, 2)), ms.Tensor(data(rank, 3, (4,)))))
err["neighbor_exchange"] = float(max(np.abs(a.asnumpy() - data(prv, 2)).max(),
                                     np.abs(b.asnumpy() - data(nxt, 3, (4,))).max()))

# BatchISendIRecv: isend to next, irecv from previous
bi = ops.BatchISendIRecv(("isend", "irecv"), (nxt, prv), receive_shapes=([3],), receive_dtypes=(ms.float32,))
placeholder, r = bi((ms.Tensor(data(rank, 4, (3,))),))
err["batch_isend_irecv"] = float(np.abs(r.asnumpy() - data(prv, 4, (3,))).max() + abs(int(placeholder.asnumpy())))

# ReduceScatterV: uneven slices 1, 2, ..., n rows
sizes = list(range(1, n + 1))
rows = sum(sizes)
out = ops.ReduceScatterV("sum")(ms.Tensor(data(rank, 5, (rows, 2))), sizes)
total = np.sum([data(r_, 5, (rows, 2)) for r_ in range(n)], 0)
start = sum(sizes[:rank])
err["reduce_scatter_v"] = float(np.abs(out.asnumpy() - total[start:start + sizes[rank]]).max())

# AlltoAllVC: rank i sends (i + j + 1) blocks of 2 to rank j
m = np.array([[i + j + 1 for j in range(n)] for i in range(n)])
for transpose in (False, True):
    mm = m.T if transpose else m
    send_n = int(mm[rank].sum()) * 2
    xs = {r_: data(r_, 6, (int(mm[r_].sum()) * 2,)) for r_ in range(n)}
    got = ops.AlltoAllVC(block_size=2, transpose=transpose)(ms.Tensor(xs[rank]), ms.Tensor(m.reshape(-1)))
    want = []
    for src in range(n):
        off = int(mm[src, :rank].sum()) * 2
        want.append(xs[src][off:off + int(mm[src, rank]) * 2])
    err[f"all_to_all_vc_{transpose}"] = float(np.abs(got.asnumpy() - np.concatenate(want)).max())

# a gradient through the uneven exchanges is refused (a GradError naming the op), never a silent zero
from spore.errors import GradError  # noqa: E402


def _refused(fn, name):
    try:
        ms.grad(fn)(ms.Tensor(data(rank, 7, (rows, 2))))
    except GradError as e:
        return 0.0 if name in str(e) else 1.0
    return 1.0


err["grad_refused_reduce_scatter_v"] = _refused(lambda t: ops.ReduceScatterV("sum")(t * 2, sizes).sum(),
                                                "ReduceScatterV")
err["grad_refused_all_to_all_vc"] = _refused(
    lambda t: ops.AlltoAllVC()(t.reshape(-1)[:int(m[rank].sum())] * 1, ms.Tensor(m.reshape(-1))).sum(), "AlltoAllVC")

print("RESULT " + json.dumps({"rank": rank, "errors": err}), flush=True)
