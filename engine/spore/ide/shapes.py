"""Static shapes for the IDE: what a Spore layer, op or Tensor method gives for inputs known only by
(shape, dtype), answered by Spore's own code so the editor and the engine can never disagree.

The language server reads a user's `construct` without running it; for each step it asks here. The
step runs Spore's real implementation (a real `nn.<Layer>` built from the literal constructor
arguments, the real `ops.<name>`, the real Tensor method) over Graph mode's tracers: every op is
recorded by its registry `infer` rule and nothing is computed — no kernel runs, no data is touched.
The user's code is never imported here; only Spore's names are looked up.

Dims that are not numbers: a `Sym("B")` (a dim the user named in `# spore: input_shape=(B, 3, 32, 32)`)
or None (a dim nobody knows). The step is traced twice with two unrelated, highly divisible stand-in
values per such dim; an output dim equal in both runs is a number, one equal to the stand-in both times
is that symbol, anything else is unknown (None). A refusal is reported as a mismatch only when the inputs
hold no unknown dim and both runs refuse it the same way; otherwise the answer is "unknown", never a
guess, so the editor never flags code the engine would accept.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

Dim = Any  # int | Sym | None


@dataclass(frozen=True)
class Sym:
    """A named symbolic dim (``B``): any size, the same wherever the name appears."""

    name: str

    def __repr__(self) -> str:
        return self.name


@dataclass(frozen=True)
class Abstract:
    """A tensor known only by its shape (ints, `Sym`s, None for unknown) and dtype name ("float32")."""

    shape: tuple
    dtype: str = "float32"


_PRIMES = (11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53)
_BASES = (720, 840)  # two stand-in sets: 720*p and 840*p never coincide for these primes
_MAX_PARAMS = 50_000_000  # a layer whose constructor numbers multiply past this is not built (memory)
_LOCK = threading.Lock()  # the tracer's active builder is process-global
_LAYERS: OrderedDict[Any, Any] = OrderedDict()
_RESULTS: OrderedDict[Any, dict] = OrderedDict()
_CACHE_SIZE = 512


def _freeze(x: Any) -> Any:
    if isinstance(x, (list, tuple)):
        return (type(x).__name__, tuple(_freeze(v) for v in x))
    if isinstance(x, dict):
        return ("dict", tuple(sorted((k, _freeze(v)) for k, v in x.items())))
    if isinstance(x, slice):
        return ("slice", _freeze(x.start), _freeze(x.stop), _freeze(x.step))
    return x


class _StandIns:
    """The numbers that stand for the non-numeric dims of one query, in one of the two runs."""

    def __init__(self, run: int) -> None:
        self.base = _BASES[run]
        self.by_key: dict[Any, int] = {}
        self.unknown = False

    def value(self, dim: Dim, slot: Any) -> int:
        if isinstance(dim, bool):
            raise TypeError("a dim must be an int")
        if isinstance(dim, int):
            return dim
        key = dim if isinstance(dim, Sym) else ("?", slot)
        if dim is None:
            self.unknown = True
        if key not in self.by_key:
            if len(self.by_key) >= len(_PRIMES):
                raise _Unsupported("too many symbolic dims")
            self.by_key[key] = self.base * _PRIMES[len(self.by_key)]
        return self.by_key[key]

    def back(self) -> dict[int, Any]:
        return {v: (k if isinstance(k, Sym) else None) for k, v in self.by_key.items()}


class _Unsupported(Exception):
    pass


def _concrete(x: Any, s: _StandIns, builder: Any, path: tuple = ()) -> Any:
    """A query argument with stand-ins for its dims and tracers for its `Abstract`s."""
    from .. import common
    from ..ops.primitive import Aval

    if isinstance(x, Abstract):
        dt = getattr(common.dtype, x.dtype, None)
        if dt is None:
            raise _Unsupported(f"unknown dtype {x.dtype!r}")
        shape = tuple(s.value(d, (path, i)) for i, d in enumerate(x.shape))
        return builder.new_input(Aval(shape, dt), "in")
    if isinstance(x, Sym):
        return s.value(x, path)
    if isinstance(x, list):
        return [_concrete(v, s, builder, path + (i,)) for i, v in enumerate(x)]
    if isinstance(x, tuple):
        return tuple(_concrete(v, s, builder, path + (i,)) for i, v in enumerate(x))
    if isinstance(x, dict):
        return {k: _concrete(v, s, builder, path + (k,)) for k, v in x.items()}
    if isinstance(x, str) and x.startswith("dtype:"):
        return getattr(common.dtype, x[len("dtype:"):])
    return x


def _describe(out: Any, leaves: list | None = None) -> Any:
    """The outputs of one traced step: their (shape, dtype name) leaves in order, and the structure (an
    index into the leaves, or a list of structures for a tuple), or None when one is not a tensor."""
    from ..tensor import Tensor

    top = leaves is None
    leaves = [] if leaves is None else leaves
    if isinstance(out, (tuple, list)):
        tree = []
        for v in out:
            sub = _describe(v, leaves)
            if sub is None:
                return None
            tree.append(sub)
        return (leaves, tree) if top else tree
    if not isinstance(out, Tensor):
        return None
    leaves.append((tuple(int(d) for d in out.shape), out.dtype.name))
    return (leaves, len(leaves) - 1) if top else len(leaves) - 1


def _run_once(build: Any, args: tuple, kwargs: dict, run: int) -> tuple[str, Any, _StandIns]:
    """("ok", outputs) / ("error", (type, reason, op, expected, actual)) / ("unsupported", reason)."""
    from ..compiler.trace import GraphBuilder, building
    from ..errors import DTypeError, ShapeError, ValueDependentShapeError

    s = _StandIns(run)
    builder = GraphBuilder("spore-ide-shapes")
    with building(builder):
        try:
            c_args = _concrete(args, s, builder)
            c_kwargs = _concrete(kwargs, s, builder)
            out = build()(*c_args, **c_kwargs)
        except _Unsupported as err:
            return "unsupported", str(err), s
        except ValueDependentShapeError as err:
            return "data-dependent", err.reason, s
        except (ShapeError, DTypeError) as err:
            return "error", (type(err).__name__, err.reason, err.op, err.expected, err.actual), s
        except Exception as err:  # noqa: BLE001 - anything else: this step cannot be modelled statically
            return "unsupported", f"{type(err).__name__}: {str(err).splitlines()[0][:200] if str(err) else ''}", s
    desc = _describe(out)
    if desc is None:
        return "unsupported", f"returns a {type(out).__name__}, not tensors", s
    return "ok", desc, s


def _map_back(text: str, s: _StandIns) -> str:
    for value, sym in sorted(s.back().items(), reverse=True):
        text = text.replace(str(value), sym.name if sym is not None else "?")
    return text


def _query(key: Any, build: Any, args: tuple, kwargs: dict) -> dict:
    with _LOCK:
        hit = _RESULTS.get(key)
        if hit is not None:
            _RESULTS.move_to_end(key)
            return hit
        result = _answer(build, args, kwargs)
        _RESULTS[key] = result
        if len(_RESULTS) > _CACHE_SIZE:
            _RESULTS.popitem(last=False)
        return result


def _answer(build: Any, args: tuple, kwargs: dict) -> dict:
    status, value, s = _run_once(build, args, kwargs, 0)
    if not s.by_key:  # every dim a number: the engine's verdict is exact
        return _result(status, value, s)
    status2, value2, s2 = _run_once(build, args, kwargs, 1)
    if status != status2:
        return {"status": "unknown", "reason": "the answer depends on the size of a symbolic or unknown dim"}
    if status == "ok":
        outs = []
        for (sh1, dt1), (sh2, _) in zip(value[0], value2[0]):
            b1, b2 = s.back(), s2.back()
            dims = []
            for d1, d2 in zip(sh1, sh2):
                if d1 == d2:
                    dims.append(d1)
                elif d1 in b1 and d2 in b2 and b1[d1] is not None and b1[d1] == b2[d2]:
                    dims.append(b1[d1])
                else:
                    dims.append(None)
            outs.append((tuple(dims), dt1))
        return {"status": "ok", "outputs": outs, "tree": value[1]}
    if status == "error":
        same = _map_back(value[1], s) == _map_back(value2[1], s2)
        if same and not s.unknown:
            mapped = tuple(_map_back(v, s) if isinstance(v, str) else v for v in value)
            return _result("error", mapped, s)
        return {"status": "unknown", "reason": "whether it fits depends on the size of an unknown dim"}
    return _result(status, value, s)


def _result(status: str, value: Any, s: _StandIns) -> dict:
    if status == "ok":
        return {"status": "ok", "outputs": list(value[0]), "tree": value[1]}
    if status == "error":
        kind, reason, op, expected, actual = value
        return {"status": "error", "type": kind, "reason": reason, "op": op, "expected": expected, "actual": actual}
    if status == "data-dependent":
        return {"status": "unknown", "reason": f"data-dependent shape: {value}"}
    return {"status": "unknown", "reason": str(value)}


def _param_budget(values: Any) -> int:
    total = 1
    for v in values:
        if isinstance(v, bool):
            continue
        if isinstance(v, int):
            total *= max(abs(v), 1)
        elif isinstance(v, (tuple, list)):
            total *= _param_budget(v)
    return total


def layer_output(layer: str, ctor_args: list | tuple = (), ctor_kwargs: dict | None = None,
                 inputs: list | tuple = (), kwargs: dict | None = None) -> dict:
    """What Spore's `nn.<layer>(*ctor_args, **ctor_kwargs)` gives for `inputs` (`Abstract`s).

    Returns ``{"status": "ok", "outputs": [(shape, dtype_name), ...], "tree": 0}`` (``tree``: the index of
    the output, or a list of trees for a tuple of outputs); ``{"status": "error", "type":
    "ShapeError", "reason", "op", "expected", "actual"}`` when the layer refuses the inputs (Spore's own
    error); or ``{"status": "unknown", "reason"}`` when it cannot be answered statically (a constructor
    Spore refuses, a data-dependent size, a size that depends on an unknown dim). Cached per query.
    """
    from .. import nn

    ctor_kwargs = dict(ctor_kwargs or {})
    kwargs = dict(kwargs or {})
    cls = getattr(nn, layer, None)
    if not isinstance(cls, type) or not issubclass(cls, nn.Cell) or layer.startswith("_"):
        return {"status": "unknown", "reason": f"nn.{layer} is not a Spore layer"}
    try:
        key = ("layer", layer, _freeze(list(ctor_args)), _freeze(ctor_kwargs), _freeze(list(inputs)), _freeze(kwargs))
        hash(key)
    except TypeError:
        return {"status": "unknown", "reason": "constructor arguments that are not plain values"}
    if _param_budget(list(ctor_args) + list(ctor_kwargs.values())) > _MAX_PARAMS:
        return {"status": "unknown", "reason": f"nn.{layer} with these sizes is too large to build for checking"}

    def build() -> Any:
        lkey = (layer, key[2], key[3])
        obj = _LAYERS.get(lkey)
        if obj is None:
            obj = cls(*_concrete(tuple(ctor_args), _StandIns(0), None), **_concrete(ctor_kwargs, _StandIns(0), None))
            if hasattr(obj, "set_train"):
                obj.set_train(False)  # shapes are the same in both modes; inference mode writes no running stats
            _LAYERS[lkey] = obj
            if len(_LAYERS) > 64:
                _LAYERS.popitem(last=False)
        return obj

    return _query(key, build, tuple(inputs), kwargs)


def op_output(name: str, args: list | tuple = (), kwargs: dict | None = None) -> dict:
    """What Spore's `ops.<name>(*args, **kwargs)` gives, `Abstract`s standing for tensors (same answer
    shape as `layer_output`). A dtype is passed as the string ``"dtype:float32"``."""
    from .. import ops

    fn = getattr(ops, name, None)
    if name.startswith("_") or not callable(fn) or isinstance(fn, type):
        return {"status": "unknown", "reason": f"ops.{name} is not a Spore op function"}
    kwargs = dict(kwargs or {})
    try:
        key = ("op", name, _freeze(list(args)), _freeze(kwargs))
        hash(key)
    except TypeError:
        return {"status": "unknown", "reason": "arguments that are not plain values"}
    return _query(key, lambda: fn, tuple(args), kwargs)


def method_output(name: str, self_value: Abstract, args: list | tuple | None = (), kwargs: dict | None = None) -> dict:
    """What the Tensor method ``x.<name>(*args, **kwargs)`` gives for a tensor `self_value` (also
    ``__getitem__`` with literal indices and slices, and the arithmetic dunders). With ``args=None``, the
    tensor-valued property ``x.<name>`` (``x.T``, ``x.mT``) instead of a call."""
    from ..tensor import Tensor

    public = not name.startswith("_") or (name.startswith("__") and name.endswith("__"))
    prop = isinstance(getattr(Tensor, name, None), property) and not name.startswith("_")
    fn = getattr(Tensor, name, None)
    if args is None and not prop or args is not None and (not callable(fn) or not public or prop):
        what = "property" if args is None else "method"
        return {"status": "unknown", "reason": f"Tensor.{name} is not a Tensor {what}"}
    kwargs = dict(kwargs or {})
    try:
        key = ("method", name, _freeze(self_value), _freeze(None if args is None else list(args)), _freeze(kwargs))
        hash(key)
    except TypeError:
        return {"status": "unknown", "reason": "arguments that are not plain values"}
    if args is None:
        return _query(key, lambda: (lambda t: getattr(t, name)), (self_value,), {})
    return _query(key, lambda: fn, (self_value, *args), kwargs)


__all__ = ["Abstract", "Sym", "layer_output", "method_output", "op_output"]
