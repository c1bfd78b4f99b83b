"""Which argument was not a Tensor: the one check behind "expected a Tensor, got numpy.ndarray".

Ops, Cells and compiled functions take Tensors; a NumPy array, a list of numbers or any other value
where a Tensor belongs is refused (MindSpore refuses them too: its ops raise ``TypeError`` for a
``numpy.ndarray`` input, and its Graph mode refuses one as a network input) with an `InputTypeError`
that names the argument, the function and the user's line — never a confusing error from deep
inside a kernel (``expected inputs of one dtype, got float32 and Float32``) nor an ``AttributeError``.

The checks run on the failure path only: `bind` asks `op_input_error` after an op's rule or kernel
failed, `Cell.__call__` asks `cell_input_error` after construct failed, so a correct call pays
nothing (``try`` costs nothing until something is raised). The one check before a call is
`layer_input_error`, which `Cell.__call__` asks only when the first argument is not exactly a
Tensor (one ``type(x) is`` test on the ordinary call): a Spore layer that would run on an array
(`Flatten` reshapes it with NumPy's own method) must still refuse it. A compiled function asks
`jit_input_error` when its arguments cannot key its cache (an unhashable value such as an array).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Iterator
from typing import Any

from ..errors import InputTypeError, is_engine_code
from ..tensor import Tensor


def op_input_error(name: str, infer: Callable, inputs: tuple) -> InputTypeError | None:
    """The error for the first input of op `name` that is not a Tensor (None when all are, or when
    the odd one is None: optional inputs are None by design and fail for their own reasons)."""
    for i, value in enumerate(inputs):
        if value is not None and not isinstance(value, Tensor):
            names = _positional_names(infer)
            return InputTypeError(name, names[i] if i < len(names) else f"input {i}", value)
    return None


def cell_input_error(cell: Any, args: tuple, kwargs: dict, err: BaseException) -> InputTypeError | None:
    """Why a call of `cell` failed, when it is an argument that is not a Tensor; else None.

    Two cases: `err` is an `InputTypeError` whose value is one of the objects passed to this Cell
    (the user handed it in here: the error names this Cell's argument); or the Cell is one of
    Spore's own, its construct declares a parameter ``x: Tensor`` and got something else (then that
    is the cause, whatever failed because of it: a list has no ``.shape``, an array's shape may not
    fit either).
    """
    bound = _bind(type(cell).construct, (cell, *args), kwargs)
    if bound is None:
        return None
    fn_name = f"{type(cell).__name__}.construct"
    if isinstance(err, InputTypeError):
        for arg, value in bound.items():
            path = _find(value, err.value, arg)
            if path is not None:
                if (err.function, err.argument) == (fn_name, path):
                    return None  # said so already (by this Cell's compiled construct)
                return InputTypeError(fn_name, path, err.value, expected=err.expected)
        return None
    return _declared_tensor_error(cell, bound)


def layer_input_error(cell: Any, args: tuple, kwargs: dict) -> InputTypeError | None:
    """Before a call of one of Spore's own Cells whose first argument is not a Tensor (`Cell.__call__`
    asks only then): the error for a parameter declared ``Tensor`` that got something else. A layer
    such as `Flatten` or `Dropout` would otherwise hand a NumPy array back (its ``reshape``) instead
    of refusing it as MindSpore does."""
    construct = type(cell).construct
    if not is_engine_code(construct) or not _tensor_params(construct):  # e.g. an optimizer's tuple of grads
        return None
    bound = _bind(construct, (cell, *args), kwargs)
    return None if bound is None else _declared_tensor_error(cell, bound)


def _declared_tensor_error(cell: Any, bound: dict[str, Any]) -> InputTypeError | None:
    construct = type(cell).construct
    if not is_engine_code(construct):
        return None
    for arg, allows_none in _tensor_params(construct):
        value = bound.get(arg)
        if value is None and allows_none or isinstance(value, Tensor):
            continue
        return InputTypeError(f"{type(cell).__name__}.construct", arg, value)
    return None


def jit_input_error(fn: Callable, name: str, args: tuple, kwargs: dict, self_obj: Any = None) -> InputTypeError:
    """The error for a compiled function's first argument that holds a value its graph cannot take:
    not a Tensor and unhashable, so it can be neither a graph input nor a Python value the graph is
    specialised on (a NumPy array, a set, an object without __hash__). Only called when there is one."""
    bound = _bind(fn, ((self_obj,) if self_obj is not None else ()) + tuple(args), kwargs)
    if bound is None:  # not this signature (a wrapped callable): name them by position
        bound = {**{f"#{i}": a for i, a in enumerate(args)}, **kwargs}
    elif self_obj is not None:
        bound.pop(next(iter(bound)))  # the instance itself
    for arg, value in bound.items():
        for path, leaf in _leaves(value, arg):
            if isinstance(leaf, Tensor):
                continue
            try:
                hash(leaf)
            except TypeError:
                hint = None if _numeric(leaf) else (
                    "a compiled function takes Tensors, and numbers, strings, None, or tuples/lists/dicts of them "
                    "as Python values it is compiled for")
                return InputTypeError(name, path, leaf, hint=hint)
    raise AssertionError("jit_input_error called for hashable arguments")  # pragma: no cover


def _numeric(value: Any) -> bool:
    return type(value).__module__ == "numpy"


def _leaves(value: Any, path: str) -> Iterator[tuple[str, Any]]:
    """(path, leaf) for every non-container value in `value`: ``a``, ``a[1]``, ``a['k']``."""
    if isinstance(value, (tuple, list)):
        for i, v in enumerate(value):
            yield from _leaves(v, f"{path}[{i}]")
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _leaves(v, f"{path}[{k!r}]")
    else:
        yield path, value


def _find(value: Any, target: Any, path: str) -> str | None:
    """The path under `value` of the very object `target` (identity), or None."""
    for p, leaf in _leaves(value, path):
        if leaf is target:
            return p
    return None


def _bind(fn: Callable, args: tuple, kwargs: dict) -> dict[str, Any] | None:
    """The arguments of a call of `fn` by parameter name (a *args parameter as its tuple), or None
    when they do not fit its signature (the call's own TypeError says that better)."""
    try:
        return dict(inspect.signature(fn).bind(*args, **kwargs).arguments)
    except (TypeError, ValueError):
        return None


@functools.lru_cache(maxsize=512)
def _positional_names(fn: Callable) -> tuple[str, ...]:
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return ()
    return tuple(p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD))


@functools.lru_cache(maxsize=512)
def _tensor_params(construct: Callable) -> tuple[tuple[str, bool], ...]:
    """The parameters construct declares as ``Tensor`` (or ``Tensor | None``: the bool says None is
    allowed). Spore's layers annotate their inputs, so the declaration is the check."""
    out = []
    for p in inspect.signature(construct).parameters.values():
        kinds = _annotation_kinds(p.annotation)
        if kinds is not None:
            out.append((p.name, "None" in kinds))
    return tuple(out)


def _annotation_kinds(ann: Any) -> set[str] | None:
    if isinstance(ann, type) and issubclass(ann, Tensor):
        return {"Tensor"}
    if not isinstance(ann, str):
        return None
    kinds = {part.strip().rsplit(".", 1)[-1] for part in ann.split("|")}
    return kinds if "Tensor" in kinds and kinds <= {"Tensor", "None", "Parameter"} else None
