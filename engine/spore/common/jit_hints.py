"""MindSpore's hints to its graph compiler: `mutable`, `jit_class`, `constexpr`, `lazy_inline`,
`no_inline`.

They tell MindSpore's compiler how to treat a value or a function; Spore's compiler either does
that already or has nothing to tune, so each hint checks its arguments as MindSpore does and
returns what it was given (marked, so code that inspects the mark keeps working):

- `mutable(x)`: Spore's Graph mode already treats Tensor arguments as variables; a tuple/list/dict
  of Tensors comes back as an equal container marked ``__ms_mutable__``. Python numbers are
  returned as they are: Spore specialises a compiled function on their values (one compilation per
  distinct value), and `mutable` does not change that.
- `jit_class(cls)`: marks a plain class whose instances Graph mode code uses (``__ms_class__``);
  Spore's frontend reads attributes of any Python object, so nothing else is needed.
- `constexpr`, `lazy_inline`, `no_inline`: decorators that return the function itself (Spore runs
  Python-level constants eagerly and inlines every Cell call).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from ..tensor import Tensor


class _MutableTuple(tuple):
    __ms_mutable__ = True
    __ms_dynamic_len__ = False


class _MutableList(list):
    __ms_mutable__ = True
    __ms_dynamic_len__ = False


class _MutableDict(dict):
    __ms_mutable__ = True


def _check_leaves(value: Any) -> None:
    if isinstance(value, (tuple, list)):
        for v in value:
            _check_leaves(v)
    elif isinstance(value, dict):
        for v in value.values():
            _check_leaves(v)
    elif not isinstance(value, (Tensor, int, float, bool)):
        raise TypeError(f"mutable: input_data must be a Tensor, a number, or a tuple/list/dict of them; "
                        f"got {type(value).__name__}")


def mutable(input_data: Any, dynamic_len: bool = False) -> Any:
    """Marks `input_data` as a variable (not a constant) of compiled functions; see the module docstring."""
    if not isinstance(dynamic_len, bool):
        raise TypeError(f"mutable: dynamic_len must be a bool, got {type(dynamic_len).__name__}")
    if dynamic_len and not isinstance(input_data, (tuple, list)):
        raise ValueError("mutable: dynamic_len=True needs a tuple or list as input_data")
    _check_leaves(input_data)
    if isinstance(input_data, tuple):
        out: Any = _MutableTuple(input_data)
    elif isinstance(input_data, list):
        out = _MutableList(input_data)
    elif isinstance(input_data, dict):
        return _MutableDict(input_data)
    else:
        return input_data
    if dynamic_len:  # per object: a subclass made for it, so the flag is not shared by every mutable tuple
        out = type(f"{type(out).__name__}DynamicLen", (type(out),), {"__ms_dynamic_len__": True})(out)
    return out


def jit_class(cls: type) -> type:
    """Marks a plain class whose instances compiled code may use (``@ms.jit_class``)."""
    from ..nn.cell import Cell

    if not inspect.isclass(cls):
        raise TypeError(f"jit_class: decorates a class, got {type(cls).__name__}")
    if issubclass(cls, Cell):
        raise TypeError(f"jit_class: {cls.__name__} is a Cell, which Graph mode compiles already; "
                        "jit_class is for plain classes")
    cls.__ms_class__ = True
    return cls


def _hinted(name: str, fn: Any) -> Any:
    """`fn` itself, or (called with arguments only) a decorator returning its function."""
    if fn is None:
        return lambda f: _hinted(name, f)
    if not callable(fn):
        raise TypeError(f"{name}: decorates a function or method, got {type(fn).__name__}")
    return fn


def constexpr(fn: Callable | None = None, get_instance: bool = True, name: str | None = None,
              reuse_result: bool = True, check: bool = True) -> Any:
    """MindSpore's ``constexpr``: the function runs as plain Python (Spore evaluates such calls
    eagerly when compiling), so it is returned unchanged."""
    return _hinted("constexpr", fn)


def lazy_inline(fn: Callable | None = None, attrs: Any = None, policy: Any = None) -> Any:
    """MindSpore's ``lazy_inline`` (reuse one compiled Cell body): returns `fn` unchanged; Spore inlines
    every Cell call when compiling."""
    return _hinted("lazy_inline", fn)


def no_inline(fn: Callable | None = None) -> Any:
    """MindSpore's ``no_inline``: returns `fn` unchanged (Spore's compiler inlines calls)."""
    return _hinted("no_inline", fn)
