"""Collective ops and their gradients on N ranks, against NumPy, in PyNative and Graph mode.

Every rank knows every rank's data (seeded by rank), so it computes the expected values itself.
Prints one line ``RESULT <json>`` with the largest absolute error of each check.
"""

import json

import numpy as np

import spore as ms
from spore import nn, ops
from spore.communication import create_group, get_group_size, get_rank, init

init()
rank, n = get_rank(), get_group_size()


def data(r, shape, salt):
    return np.random.default_rng(100 * salt + r).standard_normal(shape).astype(np.float32)


xs = [data(r, (n * 2, 3), 1) for r in range(n)]
ws = [data(r, (n * 2, 3), 2) for r in range(n)]
wg = [data(r, (n * n * 2, 3), 3) for r in range(n)]   # AllGather's output is n times longer
wr = [data(r, (2, 3), 4) for r in range(n)]           # ReduceScatter's output is n times shorter
x = ms.Tensor(xs[rank])
root = n - 1
sl = slice(2 * rank, 2 * rank + 2)

class Probe(nn.Cell):
    """``op(x)``, or with a weight ``sum(op(x) * weight)`` (a loss whose gradient is checked)."""

    def __init__(self, name, weight=None):
        super().__init__()
        self.name = name
        self.weight = weight
        self.sum_ = ops.AllReduce()
        self.max_ = ops.AllReduce(ops.ReduceOp.MAX)
        self.gather = ops.AllGather()
        self.scatter = ops.ReduceScatter()
        self.bcast = ops.Broadcast(root)

    def construct(self, t):
        if self.name == "AllReduce_sum":
            y = self.sum_(t)
        elif self.name == "AllReduce_max":
            y = self.max_(t)
        elif self.name == "AllGather":
            y = self.gather(t)
        elif self.name == "ReduceScatter":
            y = self.scatter(t)
        else:
            y = self.bcast((t,))[0]
        if self.weight is None:
            return y
        return (y * self.weight).sum()


cases = {
    "AllReduce_sum": (ws[rank], sum(xs), sum(ws)),
    "AllReduce_max": (ws[rank], np.max(xs, axis=0), sum(ws) * (xs[rank] == np.max(xs, axis=0))),
    "AllGather": (wg[rank], np.concatenate(xs), sum(wg)[rank * 2 * n:(rank + 1) * 2 * n]),
    "ReduceScatter": (wr[rank], sum(xs)[sl], np.concatenate(wr)),
    "Broadcast": (ws[rank], xs[root], sum(ws) * (rank == root)),
}

errors = {}
for mode_name, mode in (("pynative", ms.PYNATIVE_MODE), ("graph", ms.GRAPH_MODE)):
    ms.set_context(mode=mode)
    for name, (weight, want_y, want_dx) in cases.items():
        y = Probe(name)(x)
        g = ms.grad(Probe(name, ms.Tensor(weight)))(x)
        errors[f"{mode_name}:{name}:value"] = float(np.abs(y.asnumpy() - want_y).max())
        errors[f"{mode_name}:{name}:grad"] = float(np.abs(g.asnumpy() - want_dx).max())

ms.set_context(mode=ms.PYNATIVE_MODE)
if n >= 3:  # a sub-group of ranks 0 and 2: only they call create_group and reduce in it
    if rank in (0, 2):
        create_group("pair", [0, 2])
        y = ops.AllReduce(group="pair")(x)
        errors["group:pair"] = float(np.abs(y.asnumpy() - (xs[0] + xs[2])).max())
        errors["group:rank_in_pair"] = float(get_rank("pair") != (0 if rank == 0 else 1))
print("RESULT " + json.dumps({"rank": rank, "size": n, "errors": errors}), flush=True)
