"""Finite-difference oracle for gradients: the independent check every op's vjp is held to.

`check_vjp(prim, inputs, attrs)` runs the primitive in float64, takes a random cotangent, and
compares the tape's vector-Jacobian product with central differences of <cotangent, f(x)>.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

import spore as ms
from spore.ops.primitive import Primitive


def numeric_vjp(f, xs: list[np.ndarray], i: int, cot: Sequence[np.ndarray], eps: float) -> np.ndarray:
    """d<cot, f(xs)>/d xs[i] by central differences."""
    x = xs[i]
    g = np.zeros_like(x, dtype=np.float64)
    for idx in np.ndindex(x.shape):
        old = x[idx]
        x[idx] = old + eps
        hi = f(xs)
        x[idx] = old - eps
        lo = f(xs)
        x[idx] = old
        g[idx] = sum(float(np.sum(c * (h - l))) for c, h, l in zip(cot, hi, lo)) / (2 * eps)
    return g


def check_vjp(prim: Primitive, inputs: Sequence[np.ndarray], attrs: dict[str, Any] | None = None,
              wrt: Sequence[int] | None = None, eps: float = 1e-6, rtol: float = 1e-5,
              atol: float = 1e-6, seed: int = 0) -> None:
    """Assert the tape's gradient of `prim` matches finite differences for inputs `wrt`."""
    attrs = attrs or {}
    xs = [np.array(a, dtype=np.float64) if np.asarray(a).dtype.kind == "f" else np.array(a) for a in inputs]
    wrt = [i for i in range(len(xs)) if xs[i].dtype.kind == "f"] if wrt is None else list(wrt)

    def run(arrs: list[np.ndarray]) -> list[np.ndarray]:
        out = prim(*[ms.Tensor(a) for a in arrs], **attrs)
        outs = out if isinstance(out, tuple) else (out,)
        return [o.asnumpy().astype(np.float64) for o in outs]

    outs = run(xs)
    rng = np.random.default_rng(seed)
    cot = [rng.standard_normal(o.shape) if o.dtype.kind == "f" else np.zeros(o.shape) for o in outs]
    tensors = [ms.Tensor(a) for a in xs]

    def f(*ts):
        out = prim(*ts, **attrs)
        return out

    positions = tuple(wrt)
    sens = tuple(ms.Tensor(c.astype(o.dtype)) for c, o in zip(cot, outs))
    g = ms.grad(f, grad_position=positions, sens_param=True)(*tensors, sens if len(sens) > 1 else sens[0])
    for k, i in enumerate(wrt):
        num = numeric_vjp(run, xs, i, cot, eps)
        got = g[k].asnumpy()
        assert got.shape == xs[i].shape, f"{prim.name}: grad of input {i} has shape {got.shape}, want {xs[i].shape}"
        np.testing.assert_allclose(got, num, rtol=rtol, atol=atol,
                                   err_msg=f"{prim.name}: gradient of input {i} differs from finite differences")
