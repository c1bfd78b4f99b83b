"""MindSpore's functional-transform helpers under `ops` (issue 14): `ops.grad` (the same as
`ms.grad`), `ops.constexpr`, `ops.add_flags`.

`constexpr` marks a function MindSpore's graph compiler runs at compile time on constant
arguments; Spore's Graph mode runs plain Python on constants while it traces anyway, so the
decorator returns the function unchanged (its `get_instance`, `name`, `reuse_result` and `check`
arguments have nothing to configure). `add_flags` sets attributes on a function, as MindSpore's
does, and returns it. `GradOperation`, the class form of the older gradient API, lives in
classes_extra.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def grad(fn: Callable, grad_position: Any = 0, weights: Any = None, has_aux: bool = False,
         return_ids: bool = False, sens_param: bool = False) -> Callable:
    """A function computing the gradient of `fn` (MindSpore's ``ops.grad``, the same as ``ms.grad``)."""
    from ..autodiff import api as _autodiff  # on use: autodiff.api imports common.tree, which loads ops

    return _autodiff.grad(fn, grad_position, weights, has_aux, return_ids, sens_param)


def constexpr(fn: Callable | None = None, get_instance: bool = True, name: str | None = None,
              reuse_result: bool = True, check: bool = True) -> Any:
    """Marks `fn` as computed from constants at compile time (usable bare or as ``@constexpr(...)``);
    Spore runs it as plain Python, which Graph mode does on constants already."""
    if fn is not None and not callable(fn):
        raise TypeError(f"constexpr: expected a function, got {type(fn).__name__}")

    def deco(f: Callable) -> Callable:
        f.__spore_constexpr__ = True  # type: ignore[attr-defined]
        return f

    return deco(fn) if fn is not None else deco


def add_flags(fn: Callable | None = None, **flags: Any) -> Any:
    """Sets `flags` as attributes of `fn` (a function or a Cell) and returns it (or a decorator)."""
    def deco(f: Any) -> Any:
        for k, v in flags.items():
            setattr(f, k, v)
        return f

    return deco(fn) if fn is not None else deco
