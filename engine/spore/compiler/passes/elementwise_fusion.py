"""Elementwise fusion: a chain (or tree) of elementwise ops whose intermediates are read once and
share the output's shape and dtype becomes one `FusedElementwise` equation.

The fused kernel runs the chain as a little program over preallocated buffers — every step writes
into a buffer with NumPy's `out=` — so an n-op chain allocates one output array instead of n, and
makes one call from the executor instead of n.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ... import _kernels  # (the fused kernels below call it at every run: imported once here)
from ...common.dtype import float32
from ...ops.primitive import REGISTRY, Aval, Primitive, primitive
from ..ir import Eqn, Graph, Var
from .rewrite import apply_subst


def _fusible(prim: Primitive) -> bool:
    """Elementwise ops that declare how to run into a buffer (`ufunc`) and their C++ opcode."""
    return prim.ufunc is not None and prim.opcode is not None


@primitive(internal=True)
class FusedElementwise:
    """A chain of elementwise ops run as one kernel call (made by the fusion pass).

    `program` lists each step as (op name, args), an arg being ("in", k) for input k or ("reg", k)
    for step k's result; `cpp` is the C++ kernel's form of it (float32), or None to run the steps'
    `ufunc`s into reused buffers.
    """

    def infer(*inputs, program, shape, dtype, names, cpp=None):
        return Aval(shape, dtype)

    def impl(*inputs, program, shape, dtype, names, cpp=None):
        if cpp is not None:  # float32 with supported broadcasts: one C++ pass over the data
            codes, patterns = cpp
            return _kernels.fused_elementwise(codes, list(inputs), patterns, list(shape))
        regs: list[np.ndarray] = []
        pool: list[np.ndarray] = []  # every intermediate is read once, so its buffer is free right after
        for op, args in program:
            vals = [inputs[k] if kind == "in" else regs[k] for kind, k in args]
            buf = pool.pop() if pool else np.empty(shape, dtype.np)
            pool.extend(regs[k] for kind, k in args if kind == "reg")
            REGISTRY[op].ufunc(*vals, out=buf)
            regs.append(buf)
        return regs[-1]


def _candidate(e: Eqn) -> bool:
    # the program names its ops: only a registered op, the one its name resolves to, is fused
    if not _fusible(e.prim) or REGISTRY.get(e.prim.name) is not e.prim or len(e.outputs) != 1 or e.attrs:
        return False
    out = e.outputs[0].aval
    return out.dtype.is_float and all(a.aval.dtype is out.dtype for a in e.inputs)


def fuse_elementwise(graph: Graph) -> Graph:
    candidates = [_candidate(e) for e in graph.eqns]
    if sum(candidates) < 2:  # a chain needs two
        return graph
    uses = graph.uses()
    eqns = list(graph.eqns)
    group_of: dict[int, list[int]] = {}  # output var id -> indices of the eqns that make it
    absorbed: set[int] = set()
    groups: dict[int, list[int]] = {}   # index of a group's last eqn -> its members
    for i, e in enumerate(eqns):
        if not candidates[i]:
            continue
        shape = tuple(e.outputs[0].aval.shape)
        members = [i]
        for a in e.inputs:
            if isinstance(a, Var) and a.id in group_of and uses.get(a.id, 0) == 1 \
                    and tuple(a.aval.shape) == shape:
                prev = group_of.pop(a.id)
                members = prev + members
                absorbed.update(prev)
                groups.pop(prev[-1], None)
        group_of[e.outputs[0].id] = members
        if len(members) > 1:
            groups[i] = members
    if not groups:
        return graph
    replaced: dict[int, Eqn] = {}
    for last, members in groups.items():
        replaced[last] = _build(eqns, sorted(members))
    kept = []
    for i, e in enumerate(eqns):
        if i in replaced:
            kept.append(replaced[i])
        elif i not in absorbed or i in groups:
            kept.append(e)
    return apply_subst(graph, kept, {})


def _build(eqns: list[Eqn], members: list[int]) -> Eqn:
    inputs: list[Any] = []
    in_index: dict[Any, int] = {}
    reg: dict[int, int] = {}
    program = []
    for idx in members:
        e = eqns[idx]
        args = []
        for a in e.inputs:
            if isinstance(a, Var) and a.id in reg:
                args.append(("reg", reg[a.id]))
            else:
                key = a.id if isinstance(a, Var) else ("const", id(a))
                if key not in in_index:
                    in_index[key] = len(inputs)
                    inputs.append(a)
                args.append(("in", in_index[key]))
        reg[e.outputs[0].id] = len(program)
        program.append((e.prim.name, tuple(args)))
    last = eqns[members[-1]]
    out = last.outputs[0]
    names = tuple(eqns[i].prim.name for i in members)
    attrs = {"program": tuple(program), "shape": tuple(out.aval.shape), "dtype": out.aval.dtype, "names": names,
             "cpp": _cpp_form(program, inputs, tuple(out.aval.shape), out.aval.dtype)}
    return Eqn(FusedElementwise, inputs, attrs, [out], last.loc, last.scope, list(names))


def broadcast_pattern(in_shape: tuple, out_shape: tuple) -> tuple[int, int] | None:
    """(inner, size) when `in_shape` broadcasts to `out_shape` as one contiguous block of dims
    (element i of the output reads input element (i // inner) % size); None otherwise."""
    s = (1,) * (len(out_shape) - len(in_shape)) + tuple(in_shape)
    if len(s) != len(out_shape):
        return None
    block = [k for k, d in enumerate(s) if d != 1]
    if not block:
        return (1, 1)
    lo, hi = block[0], block[-1]
    if any(s[k] != out_shape[k] for k in range(lo, hi + 1)):
        return None
    return (int(np.prod(out_shape[hi + 1:], dtype=np.int64)), int(np.prod(s[lo:hi + 1], dtype=np.int64)))


def _cpp_form(program: list, inputs: list, shape: tuple, dtype: Any) -> tuple | None:
    if dtype is not float32 or any(a.aval.dtype is not float32 for a in inputs):
        return None
    patterns = [broadcast_pattern(tuple(a.aval.shape), shape) for a in inputs]
    if any(p is None for p in patterns):
        return None
    codes = []
    for op, args in program:
        a = args[0]
        b = args[1] if len(args) > 1 else ("in", 0)
        codes.append([REGISTRY[op].opcode, 1 if a[0] == "reg" else 0, a[1], 1 if b[0] == "reg" else 0, b[1]])
    return (codes, patterns)
