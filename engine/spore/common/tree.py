"""Nested structures of tensors — tuples, lists and dicts of Tensors and Python values — taken apart
and put back together: the one implementation the whole engine uses.

Compiled functions key their cache on the structure of their arguments and rebuild their outputs
from a flat list of results; a tensor-dependent `if` merges what its two branches return; `grad`
differentiates every tensor of an output; casts and loss scaling apply to every tensor of their
inputs. All of them mean the same thing by "the tensors in a structure", so they share this code.

A *tree* (what `flatten` returns beside the leaves) is a description of everything but the
tensors' values: containers and their types, each tensor's shape and dtype, the Python values in
place. Only tuples, lists and dicts are looked into; anything else is a value kept as it is. A tree
is hashable when those values are (a compiled function's cache key); one holding an unhashable
value (a NumPy array, a set) is refused by the compiler with an error naming it, never replaced by
something else.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..tensor import Tensor

Tree = Any


def flatten(value: Any) -> tuple[list[Tensor], Tree]:
    """The Tensor leaves of `value` in order, and a description of the rest (see above)."""
    leaves: list[Tensor] = []
    return leaves, _flatten(value, leaves)


def _flatten(value: Any, leaves: list[Tensor]) -> Tree:
    if isinstance(value, Tensor):
        leaves.append(value)
        return ("T", tuple(value.shape), value.dtype.name)
    if isinstance(value, (tuple, list)):
        return (type(value), tuple(_flatten(v, leaves) for v in value))
    if isinstance(value, dict):
        return (dict, tuple((k, _flatten(value[k], leaves)) for k in value))
    return ("S", value)  # kept as it is, even unhashable: never its repr (that would be passed in as data)


def unflatten(tree: Tree, leaves: list[Any]) -> Any:
    """Inverse of `flatten`: the structure `tree` describes, with `leaves` in its tensors' places."""
    it = iter(leaves)

    def build(t: Tree) -> Any:
        kind = t[0]
        if kind == "T":
            return next(it)
        if kind == "S":
            return t[1]
        if kind is dict:
            return {k: build(sub) for k, sub in t[1]}
        return _rebuild(kind, [build(sub) for sub in t[1]])

    return build(tree)


def _rebuild(kind: type, items: list[Any]) -> Any:
    if kind is list:
        return items
    if kind is tuple:
        return tuple(items)
    if hasattr(kind, "_fields"):  # a namedtuple takes its fields as arguments
        return kind(*items)
    return kind(items)


def layout(tree: Tree) -> Any:
    """What two structures must share to stand for one another: `tree` without the tensors' shapes
    and dtypes, Python values compared by their repr (the branches of a tensor-dependent `if` must
    return the same layout; their tensors' shapes are checked one by one, with a better message)."""
    kind = tree[0]
    if kind == "T":
        return "T"
    if kind == "S":
        return ("S", repr(tree[1]))
    if kind is dict:
        return (dict, tuple((k, layout(sub)) for k, sub in tree[1]))
    return (kind, tuple(layout(sub) for sub in tree[1]))


def tensors(value: Any) -> list[Tensor]:
    """The Tensors in `value`, in order, looking into tuples and lists only (a dict is a value here:
    `grad` differentiates the tensors of a tuple/list output, as MindSpore does)."""
    out: list[Tensor] = []
    map_leaves(lambda x: out.append(x) if isinstance(x, Tensor) else None, value)
    return out


def map_leaves(fn: Callable[[Any], Any], value: Any) -> Any:
    """`value` with every leaf (anything that is not a tuple or list) replaced by `fn(leaf)`; the
    tuples and lists are rebuilt with their own types. `fn` may raise to refuse a leaf."""
    if isinstance(value, (tuple, list)):
        return _rebuild(type(value), [map_leaves(fn, v) for v in value])
    return fn(value)
