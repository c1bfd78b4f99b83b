"""Graphs the visualizer tests draw: a real compiled Spore graph and synthetic ones of any size.

The real one exercises what the compiler emits today (Cell scopes, fused Dense/elementwise chains,
an `If` with branches, source locations); the synthetic ones pin the layout at sizes no example reaches.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

import spore as ms
from spore import nn
from spore.ops import functional as F


class Linear(nn.Cell):
    def __init__(self, n_in: int, n_out: int, act: bool = True):
        super().__init__()
        self.weight = ms.Parameter(ms.Tensor(np.full((n_in, n_out), 0.1, np.float32)), name="weight")
        self.bias = ms.Parameter(ms.Tensor(np.zeros((n_out,), np.float32)), name="bias")
        self.act = act

    def construct(self, x):
        y = F.matmul(x, self.weight) + self.bias
        if self.act:
            y = F.relu(y)
        return y


class Block(nn.Cell):
    def __init__(self, d: int):
        super().__init__()
        self.fc1 = Linear(d, d)
        self.fc2 = Linear(d, d, act=False)

    def construct(self, x):
        return F.relu(self.fc2(self.fc1(x)) * 0.5 + x)


class ResMLP(nn.Cell):
    def __init__(self):
        super().__init__()
        self.stem = Linear(8, 16)
        self.block1 = Block(16)
        self.block2 = Block(16)
        self.head = Linear(16, 4, act=False)

    def construct(self, x):
        x = self.block2(self.block1(self.stem(x)))
        if F.reduce_sum(x) > 0:
            x = F.exp(x * -1.0)
        else:
            x = x * 2.0
        return self.head(x)


def compiled_graphs(directory: str | os.PathLike) -> tuple[Path, Path]:
    """Paths of the (before, after) graph JSON that Graph mode's `save_graphs` writes for ResMLP."""
    ms.set_context(mode=ms.GRAPH_MODE, save_graphs=True, save_graphs_path=str(directory))
    try:
        ResMLP()(ms.Tensor(np.ones((2, 8), np.float32)))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE, save_graphs=False)
    before = sorted(Path(directory).glob("*ResMLP*_before.json"))
    after = sorted(Path(directory).glob("*ResMLP*_after.json"))
    assert before and after, f"save_graphs wrote no ResMLP graph JSON into {directory}"
    return before[-1], after[-1]


def synthetic(n_blocks: int = 50, ops_per_block: int = 100, scoped: bool = True, seed: int = 0) -> dict:
    """A residual-network-like spore.graph/1 with n_blocks * ops_per_block nodes.

    Inside a block, each op reads the previous op and now and then a value a few ops back
    (skip connections); every block reads the previous block's output and a parameter per
    'MatMul'. Scopes nest two deep ("Net.block7.layer3"), as Cell paths do.
    """
    rng = np.random.default_rng(seed)
    ops = ["MatMul", "Add", "ReLU", "Mul", "BatchNorm", "Conv2D", "Reshape"]
    nodes, edges, params = [], [], []
    prev = "input:%in"
    var_of: dict[str, str] = {"input:%in": "%in"}
    k = 0
    for b in range(n_blocks):
        block_nodes: list[str] = []
        for j in range(ops_per_block):
            nid = f"n{k}"
            op = ops[int(rng.integers(len(ops)))]
            scope = f"Net.block{b}.layer{j // 10}" if scoped else ""
            srcs = [prev]
            if len(block_nodes) > 4 and rng.random() < 0.25:
                srcs.append(block_nodes[-int(rng.integers(2, 5))])
            if op == "MatMul":
                pid = f"%p{k}"
                params.append({"id": pid, "shape": [64, 64], "dtype": "float32", "name": f"{scope}.weight"})
                srcs.append(f"param:{pid}")
                var_of[f"param:{pid}"] = pid
            out = f"%v{k}"
            for s in srcs:
                edges.append({"from": s, "to": nid, "var": var_of[s], "shape": [32, 64], "dtype": "float32"})
            nodes.append({"id": nid, "op": op, "inputs": [var_of[s] for s in srcs], "outputs": [out],
                          "shapes": [[32, 64]], "dtypes": ["float32"], "attrs": {}, "scope": scope,
                          "loc": {"file": "synthetic.py", "line": 10 + j, "col": 4, "end_col": None},
                          "fused": ["MatMul", "Add"] if op == "MatMul" and j % 3 == 0 else []})
            var_of[nid] = out
            block_nodes.append(nid)
            prev = nid
            k += 1
    return {"schema": "spore.graph/1", "name": "synthetic", "inputs": [{"id": "%in", "shape": [32, 64],
            "dtype": "float32", "name": "x"}], "params": params, "nodes": nodes, "edges": edges,
            "outputs": [var_of[prev]]}
