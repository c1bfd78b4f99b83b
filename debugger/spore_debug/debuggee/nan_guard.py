"""The NaN/Inf guard (``breakOnNaN``): stop at the first op whose output is not finite.

An execution observer (`spore.ide.add_observer`) looks at every op's outputs — each PyNative kernel
call and each node of a compiled graph — and at the first NaN or Inf raises
`spore.errors.NonFiniteError` ("NaN produced by Log") with the op, the user's line and the
statistics of its inputs and outputs. In PyNative the error passes up through the user's real frames
(the construct line that called the op); in Graph mode the engine re-raises it from a frame at the
node's user line with the construct's arguments as its locals. The debugger breaks on that exception
class, so it stops there. Off (the default) no observer is installed and nothing is checked.
"""

from __future__ import annotations

from typing import Any

import numpy as np

_FLOAT_KINDS = ("f", "c")


def _is_float(arr: Any) -> bool:
    dtype = getattr(arr, "dtype", None)
    if dtype is None:
        return False
    return dtype.kind in _FLOAT_KINDS or dtype.name.startswith(("bfloat16", "float8"))


def _finite(arr: np.ndarray) -> bool:
    try:
        return bool(np.isfinite(arr).all())
    except TypeError:  # a dtype NumPy cannot test: nothing to say about it
        return True


def stats(arr: Any) -> dict[str, Any]:
    """Plain statistics of one array: shape, dtype, and for numbers min/max/mean of the finite
    values with the NaN and Inf counts (what `NonFiniteError` reports)."""
    a = np.asarray(arr)
    out: dict[str, Any] = {"shape": list(a.shape), "dtype": str(a.dtype)}
    if a.dtype.kind in "biu":
        if a.size:
            out.update(min=a.min().item(), max=a.max().item(), mean=float(a.mean()), nan=0, inf=0)
        return out
    if not _is_float(a):
        return out
    f = a.astype(np.float64) if a.dtype.kind != "c" else np.abs(a).astype(np.float64)
    nan = np.isnan(f)
    inf = np.isinf(f)
    finite = f[~(nan | inf)]
    out.update(nan=int(nan.sum()), inf=int(inf.sum()))
    if finite.size:
        out.update(min=float(finite.min()), max=float(finite.max()), mean=float(finite.mean()))
    return out


class NanGuard:
    """The observer: `after(event)` raises `NonFiniteError` at the first non-finite output."""

    def before(self, event: Any) -> None:
        pass

    def after(self, event: Any) -> None:
        bad = None
        for out in event.outputs:
            if _is_float(out) and not _finite(out):
                bad = out
                break
        if bad is None:
            return
        self.raise_for(event, bad)

    def raise_for(self, event: Any, bad: np.ndarray) -> None:
        from spore.ide import NonFiniteError

        kind = "NaN" if bool(np.isnan(bad).any()) else "Inf"
        outputs = [stats(o) for o in event.outputs if hasattr(o, "dtype")]
        inputs = []
        for x in event.inputs:
            if not hasattr(x, "dtype"):
                continue
            if any(_same_buffer(x, o) for o in event.outputs):  # the op wrote its result over this input
                inputs.append({"shape": list(np.shape(x)), "dtype": str(x.dtype), "overwritten": True})
            else:
                inputs.append(stats(x))
        op = event.op if not event.fused else f"{event.op} (fused: {' + '.join(event.fused)})"
        raise NonFiniteError(op, kind, inputs=inputs, outputs=outputs, loc=event.loc, scope=event.scope,
                             mode=event.mode,
                             hint="look at this op's inputs above; the values came from the line before it")


def _same_buffer(a: Any, b: Any) -> bool:
    try:
        return a is b or bool(np.may_share_memory(a, b))
    except (TypeError, ValueError):
        return False
