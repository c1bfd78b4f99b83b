"""`vmap`: MindSpore's vectorising map, ``vmap(fn, in_axes=0, out_axes=0)``.

The mapped function runs once per slice of the batch axis and the results are stacked along
`out_axes`. This is the definition of vmap, computed the plain way: every op, gradient and Graph
mode construct works inside it, at the cost of one call per batch element (there are no
per-primitive batching rules yet). `in_axes` follows the structure of the positional arguments:
an int (every argument mapped along it), None (not mapped: passed whole to every call), or a
tuple with one entry per argument (itself nested for tuple/list arguments).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from ..tensor import Tensor


def _axes_like(axes: Any, value: Any, where: str) -> Any:
    """`axes` spread over `value`'s structure: an int or None applies to every leaf below it."""
    if isinstance(value, (tuple, list)):
        if isinstance(axes, (tuple, list)):
            if len(axes) != len(value):
                raise ValueError(f"vmap: {where} has {len(axes)} entries for {len(value)} values")
            return type(value)(_axes_like(a, v, f"{where}[{i}]") for i, (a, v) in enumerate(zip(axes, value)))
        return type(value)(_axes_like(axes, v, where) for v in value)
    if axes is not None and (isinstance(axes, bool) or not isinstance(axes, int)):
        raise TypeError(f"vmap: {where} must be an int, None or a tuple of them, got {axes!r}")
    return axes


def _batch_size(value: Any, axes: Any, sizes: list[int]) -> None:
    if isinstance(value, (tuple, list)):
        for v, a in zip(value, axes):
            _batch_size(v, a, sizes)
    elif axes is not None:
        if not isinstance(value, Tensor):
            raise TypeError(f"vmap: an argument mapped along axis {axes} must be a Tensor, got {type(value).__name__}")
        if not -value.ndim <= axes < value.ndim:
            raise ValueError(f"vmap: in_axes {axes} is out of range for a tensor of shape {tuple(value.shape)}")
        sizes.append(value.shape[axes])


def _slice(value: Any, axes: Any, i: int) -> Any:
    from ..ops import functional as F

    if isinstance(value, (tuple, list)):
        return type(value)(_slice(v, a, i) for v, a in zip(value, axes))
    if axes is None:
        return value
    return F.gather(value, Tensor(i), axes % value.ndim)  # a 0-d index drops the axis


def _stack(results: list[Any], axes: Any) -> Any:
    from ..ops import functional as F

    first = results[0]
    if isinstance(first, (tuple, list)):
        spread = _axes_like(axes, first, "out_axes")
        return type(first)(_stack([r[k] for r in results], spread[k]) for k in range(len(first)))
    if isinstance(first, (int, float, bool)):  # a Python number per slice: stacked as a tensor
        results = [Tensor(r) for r in results]
    elif not isinstance(first, Tensor):
        raise TypeError(f"vmap: the function returned {type(first).__name__}; expected Tensors")
    if axes is None:
        return results[0]
    return F.stack(results, axes)


def vmap(fn: Callable, in_axes: Any = 0, out_axes: Any = 0) -> Callable:
    """`fn` mapped over a batch axis of its inputs (see the module docstring)."""
    if not callable(fn):
        raise TypeError(f"vmap: fn must be callable, got {type(fn).__name__}")

    @functools.wraps(fn)
    def mapped(*args: Any) -> Any:
        axes = _axes_like(in_axes if isinstance(in_axes, (tuple, list)) else (in_axes,) * len(args), args, "in_axes")
        sizes: list[int] = []
        _batch_size(args, axes, sizes)
        if not sizes:
            raise ValueError("vmap: no argument is mapped (in_axes is None for all of them)")
        if len(set(sizes)) != 1:
            raise ValueError(f"vmap: the mapped axes have different sizes {sorted(set(sizes))}")
        results = [fn(*_slice(args, axes, i)) for i in range(sizes[0])]
        return _stack(results, out_axes)

    return mapped
