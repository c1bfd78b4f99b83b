"""Functional control flow and higher-order differentiation (issue 14): MindSpore's `ops.ForiLoop`,
`ops.WhileLoop`, `ops.Scan`, `ops.Assert`, `ops.derivative`, `ops.jet`, `ops.linearize`,
`ops.stop_gradient_` and `ops.get_grad`, plus the gradient-hook classes of autodiff/hooks.py
(`HookBackward`, `InsertGradientOf`, `DumpGradient`) and the `Tensor.register_hook` family.

Loops: in PyNative each is the Python loop MindSpore documents. In Graph mode a loop whose bounds
or condition are Python values unrolls while tracing (MindSpore's ``unroll=True``); a condition
on a tensor value becomes one `While` equation over the carried tensors (the same equation the
compiler makes for ``while <tensor>:``), so the loop runs in the compiled graph.

Higher-order derivatives are exact, built from reverse mode: with ``x(t) = x0 + sum_k s_k t^k / k!``
(the input path the series `s_1..s_n` describe, derivative convention as in MindSpore's `jet`)
the k-th output term is ``d^k f(x(t)) / dt^k`` at ``t = 0``. One derivative in the scalar `t` of a
tensor-valued function is ``grad_u <grad_t <g(t), u>>`` (the Jacobian-vector product by two
reverse passes, exact because ``grad_t <g, u>`` is linear in `u`); nesting it gives the k-th.
The same nesting compiles in Graph mode (Graph mode's grad of grad), with the same values.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..autodiff import hooks as _hooks
from ..common import dtype as mstype
from ..errors import SporeError, located
from ..tensor import Tensor, tensor_method
from .primitive import TRACING, Aval, Primitive, register

__all__ = ["ForiLoop", "WhileLoop", "Scan", "Assert", "HookBackward", "InsertGradientOf", "DumpGradient"]

HookBackward = _hooks.HookBackward
InsertGradientOf = _hooks.InsertGradientOf
DumpGradient = _hooks.DumpGradient
saved_tensors_hooks = _hooks.saved_tensors_hooks  # ms.saved_tensors_hooks (loaded through here: ops first)
register_saved_tensors_hooks = _hooks.register_saved_tensors_hooks

# the gradient-hook primitives (their rules live in autodiff/hooks.py, which imports nothing from ops)
HOOK_BACKWARD = register(Primitive(
    "HookBackward", _hooks._same_avals, _hooks._copies, _hooks._hook_backward_vjp,
    "Identity on its inputs; in the backward pass calls the hook with the tuple of their gradients.",
    multi_output=True, internal=True))
INSERT_GRADIENT = register(Primitive(
    "InsertGradientOf", _hooks._insert_infer, _hooks._insert_impl, _hooks._insert_vjp,
    "Identity; its gradient is f(gradient).", internal=True))
DUMP_GRADIENT = register(Primitive(
    "DumpGradient", _hooks._dump_infer, _hooks._dump_impl, _hooks._dump_vjp,
    "Identity; its backward saves the gradient to a .npy file.", internal=True))

tensor_method("register_hook")(_hooks.register_hook)
tensor_method("remove_hook")(_hooks.remove_hook)
tensor_method("hooks")(_hooks.hooks)


def _is_traced(x: Any) -> bool:
    if TRACING.builder is None:
        return False
    from ..compiler.trace import Tracer

    return isinstance(x, Tracer)


def _check_fn(op: str, name: str, fn: Any) -> None:
    if not callable(fn):
        raise TypeError(f"{op}: {name} must be a function, got {type(fn).__name__}")


def _graph_while(op: str, cond_func: Callable, loop_func: Callable, init_val: Any) -> Any:
    """One While equation: `cond_func` and `loop_func` traced into sub-graphs over the carried tensors."""
    from ..common.tree import flatten, layout, unflatten  # on use: common.tree loads ops (this module among them)
    from ..compiler.control_flow import WHILE, _finish
    from ..compiler.trace import GraphBuilder, Tracer, building

    parent = TRACING.builder
    leaves, tree = flatten(init_val)
    if not leaves:
        raise located(SporeError(f"{op}: a loop on a tensor condition needs tensors in init_val to carry"))

    def sub(name: str) -> tuple[Any, Any]:
        b = GraphBuilder(name, parent=parent)
        ins = [b.new_input(Aval(tuple(v.shape), v.dtype), f"carry{i}") for i, v in enumerate(leaves)]
        return b, unflatten(tree, ins)

    cond_b, cond_v = sub("cond")
    with building(cond_b):
        test = cond_func(cond_v)
        if not isinstance(test, Tracer):
            raise located(SporeError(f"{op}: cond_func must give a tensor on every step once it did on the first"))
        if test.size != 1:
            raise located(SporeError(f"{op}: cond_func must return a single-element condition, "
                                     f"got shape {tuple(test.shape)}"))
        test = test.reshape(()).astype(mstype.bool_)
    g_cond = _finish(cond_b, [test])
    body_b, body_v = sub("body")
    with building(body_b):
        nxt = loop_func(body_v)
        nxt_leaves, nxt_tree = flatten(nxt)
    if len(nxt_leaves) != len(leaves) or layout(nxt_tree) != layout(tree):
        # (layout compares the Python values in the carry too: a graph loop carries only tensors, so a
        # Python number that changes from one iteration to the next would silently keep its first value)
        raise located(SporeError(f"{op}: loop_func must return a value of the same structure as init_val, with "
                                 "the same Python values in it (a loop on a tensor carries only tensors)",
                                 hint="make a changing number of the carry a tensor, e.g. ms.Tensor(0) for a counter"))
    for a, b in zip(leaves, nxt_leaves):
        if tuple(a.shape) != tuple(b.shape) or a.dtype is not b.dtype:
            raise located(SporeError(f"{op}: loop_func changed a carried tensor from {tuple(a.shape)} {a.dtype} "
                                     f"to {tuple(b.shape)} {b.dtype}; it must keep shapes and dtypes"))
    from ..compiler.control_flow import loop_writes_error

    why = loop_writes_error(cond_b, body_b)
    if why is not None:
        raise located(SporeError(f"{op}: {why}", hint="return the new value from loop_func as part of the carried "
                                                      "value instead of writing an outer tensor in place"))
    g_body = _finish(body_b, nxt_leaves)
    avals = [Aval(tuple(v.shape), v.dtype) for v in leaves]
    outs = [Tracer(v, parent) for v in parent.emit(WHILE, list(leaves), {"cond": g_cond, "body": g_body}, avals)]
    return unflatten(tree, outs)


def _truth(op: str, c: Any) -> bool:
    if isinstance(c, Tensor):
        if c.size != 1:
            raise ValueError(f"{op}: the condition must have one element, got shape {tuple(c.shape)}")
        return bool(c.asnumpy().reshape(()))
    return bool(c)


class WhileLoop:
    """MindSpore's ``ops.WhileLoop()``: ``while_loop(cond_func, loop_func, init_val)`` repeats
    ``init_val = loop_func(init_val)`` while ``cond_func(init_val)`` holds and returns the last
    value. `loop_func` must keep the type and shape of `init_val`. Compiles to one `While`
    equation in Graph mode when the condition is a tensor."""

    def __call__(self, cond_func: Callable, loop_func: Callable, init_val: Any) -> Any:
        _check_fn("WhileLoop", "cond_func", cond_func)
        _check_fn("WhileLoop", "loop_func", loop_func)
        val = init_val
        while True:
            c = cond_func(val)
            if _is_traced(c):
                return _graph_while("WhileLoop", cond_func, loop_func, val)
            if not _truth("WhileLoop", c):
                return val
            val = loop_func(val)


class ForiLoop:
    """MindSpore's ``ops.ForiLoop()``: ``fori_loop(lower, upper, loop_func, init_val, unroll=True)``
    runs ``init_val = loop_func(i, init_val)`` for ``i`` in ``range(lower, upper)`` and returns the
    last value. Python-int bounds give a Python loop (unrolled in Graph mode); tensor bounds in
    Graph mode give one `While` equation over ``(i, value)`` (`unroll` is then moot)."""

    def __call__(self, lower: Any, upper: Any, loop_func: Callable, init_val: Any, unroll: bool = True) -> Any:
        _check_fn("ForiLoop", "loop_func", loop_func)
        for name, b in (("lower", lower), ("upper", upper)):
            if isinstance(b, bool) or not isinstance(b, (int, np.integer, Tensor)):
                raise TypeError(f"ForiLoop: {name} must be an int or a Tensor, got {type(b).__name__}")
        if not isinstance(unroll, bool):
            raise TypeError(f"ForiLoop: unroll must be a bool, got {type(unroll).__name__}")
        if _is_traced(lower) or _is_traced(upper):
            from . import functional as F

            lo = lower if isinstance(lower, Tensor) else Tensor(np.int64(lower))
            lo = F.cast(lo, mstype.int64)
            hi = F.cast(upper, mstype.int64) if isinstance(upper, Tensor) else int(upper)
            carry = _graph_while("ForiLoop", lambda s: F.less(s[0], hi),
                                 lambda s: (F.add(s[0], 1), loop_func(s[0], s[1])), (lo, init_val))
            return carry[1]
        lo = int(lower.asnumpy()) if isinstance(lower, Tensor) else int(lower)
        hi = int(upper.asnumpy()) if isinstance(upper, Tensor) else int(upper)
        val = init_val
        for i in range(lo, hi):
            val = loop_func(i, val)
        return val


class Scan:
    """MindSpore's ``ops.Scan()``: ``scan(loop_func, init, xs, length=None, unroll=True)`` runs
    ``carry, y = loop_func(carry, x)`` over the elements of `xs` (``length`` steps of ``x = None``
    when `xs` is None) and returns ``(carry, [y, ...])``. A Tensor `xs` is scanned along its first
    axis (MindSpore takes a tuple/list; this is the same loop over ``list(xs)``)."""

    def __call__(self, loop_func: Callable, init: Any, xs: Any, length: int | None = None,
                 unroll: bool = True) -> tuple[Any, list]:
        _check_fn("Scan", "loop_func", loop_func)
        if length is not None and (isinstance(length, bool) or not isinstance(length, int)):
            raise TypeError(f"Scan: length must be an int or None, got {type(length).__name__}")
        if not isinstance(unroll, bool):
            raise TypeError(f"Scan: unroll must be a bool, got {type(unroll).__name__}")
        if xs is None:
            if length is None:
                raise ValueError("Scan: give length when xs is None")
            items: list = [None] * length
        elif isinstance(xs, Tensor):
            items = [xs[i] for i in range(xs.shape[0])] if xs.ndim else [xs]
        elif isinstance(xs, (tuple, list)):
            items = list(xs)
        else:
            raise TypeError(f"Scan: xs must be a tuple, a list or None, got {type(xs).__name__}")
        if length is not None and xs is not None and length != len(items):
            raise ValueError(f"Scan: length {length} does not match the {len(items)} elements of xs")
        carry, ys = init, []
        for x in items:
            res = loop_func(carry, x)
            if not isinstance(res, tuple) or len(res) != 2:
                raise ValueError("Scan: loop_func must return a tuple (carry, y)")
            carry, y = res
            ys.append(y)
        return carry, ys


# --- Assert ----------------------------------------------------------------------------------------------
def _summary(arrays: tuple, summarize: int) -> str:
    parts = []
    for a in arrays:
        flat = np.asarray(a).reshape(-1)[:summarize]
        parts.append(f"[{', '.join(str(v) for v in flat.tolist())}{', ...' if np.asarray(a).size > summarize else ''}]")
    return ", ".join(parts)


def _assert_infer(cond: Any, *data: Any, summarize: int) -> Aval:
    if cond.size != 1 or cond.dtype is not mstype.bool_:
        raise located(SporeError(f"Assert: condition must be a single bool, got shape {tuple(cond.shape)} "
                                 f"dtype {cond.dtype}"))
    return Aval((), mstype.bool_)


def _assert_impl(cond: np.ndarray, *data: np.ndarray, summarize: int) -> np.ndarray:
    if not bool(np.asarray(cond).reshape(())):
        raise SporeError(f"Assert: the condition is false; input data: {_summary(data, summarize)}")
    return np.asarray(True)


ASSERT = register(Primitive("AssertData", _assert_infer, _assert_impl, None,
                            "Raises when the condition is false, with the first elements of the data.",
                            nondiff=True, side_effect=True, internal=True))


class Assert:
    """MindSpore's ``ops.Assert(summarize=3)``: ``Assert(summarize)(condition, input_data)`` raises
    when the bool `condition` is False, printing the first `summarize` elements of each tensor of
    `input_data` (a list/tuple of tensors). Returns None."""

    def __init__(self, summarize: int = 3) -> None:
        if isinstance(summarize, bool) or not isinstance(summarize, int) or summarize < 0:
            raise TypeError(f"Assert: summarize must be a non-negative int, got {summarize!r}")
        self.summarize = summarize

    def __call__(self, condition: Any, input_data: Any) -> None:
        cond = condition if isinstance(condition, Tensor) else Tensor(np.bool_(condition))
        data = input_data if isinstance(input_data, (tuple, list)) else (input_data,)
        if not all(isinstance(d, Tensor) for d in data):
            raise TypeError("Assert: input_data must be a list or tuple of Tensors")
        ASSERT(cond, *data, summarize=self.summarize)


# --- higher-order differentiation --------------------------------------------------------------------------
def _tensors_in(op: str, name: str, value: Any) -> tuple[tuple[Tensor, ...], bool]:
    if isinstance(value, Tensor):
        return (value,), True
    if isinstance(value, (tuple, list)) and value and all(isinstance(v, Tensor) for v in value):
        return tuple(value), False
    raise TypeError(f"{op}: {name} must be a Tensor or a tuple of Tensors, got {type(value).__name__}")


def _as_float(t: Tensor) -> Tensor:
    from . import functional as F

    return t if t.dtype.is_float else F.cast(t, mstype.float32)


def _seed(t: Tensor) -> Tensor:
    """A tensor the transforms differentiate with respect to: a fresh value (not a constant of the
    graph being compiled, which Graph mode's grad gives no gradient)."""
    from . import functional as F

    return F.identity(t)


def _d_dt(g: Callable) -> Callable:
    """t -> dg/dt for a function g of a scalar tensor t (exact: two reverse passes, see the module doc)."""
    from ..autodiff.api import grad
    from . import functional as F

    def dg(t: Tensor, like: Tensor) -> Tensor:
        def inner(u: Tensor) -> Tensor:
            return grad(lambda tt: F.sum(F.mul(g(tt, like), u)))(t)

        return grad(inner)(_seed(F.zeros_like(like)))

    return dg


def _series(fn: Callable, primals: tuple, series: tuple, order: int) -> tuple[Tensor, list[Tensor]]:
    """f(x0) and the derivatives 1..order of f(x(t)) at t = 0 along the path the series give."""
    import math

    from . import functional as F

    dt = primals[0].dtype
    coeffs = [[_as_float(s[k]) for k in range(s.shape[0])] for s in series] if series else None

    def path(t: Tensor, like: Tensor) -> Tensor:
        xs = []
        for i, x in enumerate(primals):
            v = x
            for k in range(order):
                c = coeffs[i][k] if coeffs is not None else (F.ones_like(x) if k == 0 else None)
                if c is not None:
                    tk = t
                    for _ in range(k):  # t^(k+1) as a product: pow's rule reads log(t), NaN at t = 0
                        tk = F.mul(tk, t)
                    v = F.add(v, F.mul(c, F.cast(F.div(tk, math.factorial(k + 1)), v.dtype)))
            xs.append(v)
        out = fn(*xs)
        if not isinstance(out, Tensor):
            raise TypeError(f"the function returned {type(out).__name__}; jet/derivative need one Tensor output")
        return out

    t0 = _seed(Tensor(np.zeros((), dt.np)))
    out0 = fn(*primals)
    if not isinstance(out0, Tensor):
        raise TypeError(f"the function returned {type(out0).__name__}; jet/derivative need one Tensor output")
    terms, g = [], path
    for _ in range(order):
        g = _d_dt(g)
        terms.append(g(t0, out0))
    from ..autodiff.api import _detach

    return _detach(out0), [_detach(t) for t in terms]


def jet(fn: Callable, primals: Any, series: Any) -> tuple[Any, Any]:
    """Taylor-mode higher derivatives (MindSpore's ``ops.jet``): ``series[k]`` (stacked on the first
    axis, one stack per primal) is the (k+1)-th derivative of the input path; returns
    ``(fn(primals), out_series)`` with ``out_series[k]`` the (k+1)-th derivative of the output along
    it. Integer primals are computed in float32, as MindSpore does."""
    ps, single = _tensors_in("jet", "primals", primals)
    ss, single_s = _tensors_in("jet", "series", series)
    if single != single_s or len(ps) != len(ss):
        raise TypeError("jet: primals and series must both be Tensors or tuples of the same length")
    ps = tuple(_as_float(p) for p in ps)
    order = ss[0].shape[0] if ss[0].ndim else 0
    for p, s in zip(ps, ss):
        if s.ndim != p.ndim + 1 or tuple(s.shape[1:]) != tuple(p.shape) or s.shape[0] != order:
            raise ValueError(f"jet: a series must have shape (order, *primal.shape) = ({order}, "
                             f"{', '.join(map(str, p.shape))}), got {tuple(s.shape)}")
    if order < 1:
        raise ValueError("jet: the series must hold at least the first derivative")
    from . import functional as F

    out, terms = _series(fn, ps, ss, order)
    return out, F.stack(terms, 0)


def derivative(fn: Callable, primals: Any, order: int) -> tuple[Any, Any]:
    """The `order`-th derivative of `fn` along the all-ones direction (MindSpore's
    ``ops.derivative``): ``(fn(primals), d^order fn(x + t) / dt^order at t = 0)``; for an
    elementwise function that is the elementwise `order`-th derivative."""
    ps, _ = _tensors_in("derivative", "primals", primals)
    if isinstance(order, bool) or not isinstance(order, int):
        raise TypeError(f"derivative: order must be an int, got {type(order).__name__}")
    if order < 1:
        raise ValueError(f"derivative: order must be positive, got {order}")
    ps = tuple(_as_float(p) for p in ps)
    out, terms = _series(fn, ps, (), order)
    return out, terms[-1]


def linearize(fn: Callable, inputs: Any) -> tuple[Any, Callable]:
    """MindSpore's ``ops.linearize(fn, inputs)``: ``(fn(*inputs), jvp_fn)`` where ``jvp_fn(v)`` (a
    Tensor, or a tuple with one tangent per input) is the Jacobian-vector product at `inputs`,
    exact (by two reverse passes)."""
    from ..autodiff.api import _detach, grad
    from . import functional as F

    xs, _ = _tensors_in("linearize", "inputs", inputs)
    out = fn(*xs)
    if not isinstance(out, Tensor):
        raise TypeError(f"linearize: the function returned {type(out).__name__}; it needs one Tensor output")
    positions = tuple(range(len(xs)))

    def jvp_fn(*v: Any) -> Tensor:
        vs = tuple(v[0]) if len(v) == 1 and isinstance(v[0], (tuple, list)) else v
        if len(vs) != len(xs) or not all(isinstance(t, Tensor) for t in vs):
            raise TypeError(f"linearize: jvp_fn takes {len(xs)} tangent tensor(s), one per input")
        for t, x in zip(vs, xs):
            if tuple(t.shape) != tuple(x.shape):
                raise ValueError(f"linearize: a tangent has shape {tuple(t.shape)}, its input {tuple(x.shape)}")

        def inner(u: Tensor) -> Tensor:
            gs = grad(lambda *a: F.sum(F.mul(fn(*a), u)), grad_position=positions)(*xs)
            total = None
            for gi, vi in zip(gs, vs):
                part = F.sum(F.mul(gi, F.cast(vi, gi.dtype)))
                total = part if total is None else F.add(total, part)
            return total

        return _detach(grad(inner)(_seed(F.zeros_like(out))))

    return _detach(out), jvp_fn


def stop_gradient_(input: Tensor) -> Tensor:
    """In-place `stop_gradient` (MindSpore's ``ops.stop_gradient_``): `input` keeps its value but no
    gradient flows back through it from later uses; returns `input`."""
    from . import functional as F

    if not isinstance(input, Tensor):
        raise TypeError(f"stop_gradient_: input must be a Tensor, got {type(input).__name__}")
    return F.setitem_(input, Ellipsis, F.stop_gradient(input))


def get_grad(gradients: Any, identifier: Any) -> Tensor:
    """The gradient for `identifier` in the result of ``grad(..., return_ids=True)`` (MindSpore's
    ``ops.get_grad``; ``ms.get_grad`` is this same function): an int picks an input position, a
    Parameter (or its name) a weight; a ValueError names what is missing."""
    from ..autodiff.api import get_grad as _get_grad  # on use: autodiff.api imports common.tree, which loads ops

    return _get_grad(gradients, identifier)
