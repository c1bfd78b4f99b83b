"""The abstract values static shape inference works with, and how they are shown and handed to the engine.

A tensor is a `TVal` (shape, dtype, where it came from); a value the interpretation cannot know is
`UNKNOWN`, or a `Conflict` when it is unknown for a reason worth saying once it matters (a variable whose
shape differs between the branches of an ``if``, a counter a loop changes). What `__init__` builds is a
`LayerSpec` (a Spore layer and its literal arguments), a `Seq` (SequentialCell / CellList) or a `UserCell`.
`join` merges the values two paths give a variable, the one rule ``if`` and loops share.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any

SHORT_DTYPES = {"float32": "f32", "float16": "f16", "bfloat16": "bf16", "float64": "f64", "int8": "i8",
                "int16": "i16", "int32": "i32", "int64": "i64", "uint8": "u8", "bool": "bool", "bool_": "bool",
                "complex64": "c64", "complex128": "c128"}
NP_DTYPES = {"float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool_", "complex64"}


@dataclass(frozen=True)
class Unknown:
    """A value the interpretation cannot know (why is said once, where inference stopped)."""


UNKNOWN = Unknown()


@dataclass(frozen=True)
class Conflict(Unknown):
    """Unknown because paths disagree (``if`` branches, loop iterations): silent until a step needs it, then
    the one ``shape-stopped`` note says `why`. `alts` are the values the paths gave (shown in hover)."""

    why: str
    alts: tuple = ()


@dataclass(frozen=True)
class TVal:
    """An abstract tensor: shape (ints, `spore.ide.Sym`, None), dtype name, and where it came from."""

    shape: tuple
    dtype: str
    origin: str  # "self.flatten", "the input x", ...
    line: int    # 0-based program line of the step that made it
    alts: tuple = field(default=(), compare=False)  # a join of branches: the shapes each gave (for display)
    maybe: bool = field(default=False, compare=False)  # joined over a condition not known statically
    tag: Any = field(default=None, compare=False)  # values joined at one `if` (or one dataset) share a tag:
    # their alts go together (alts[i] of each is path i), so the paths are combined index by index


@dataclass
class LayerSpec:
    """``self.<attr> = nn.<layer>(<literal args>)`` as read from `__init__`."""

    attr: str
    layer: str
    args: list
    kwargs: dict
    node: ast.Call
    arg_nodes: dict  # parameter position or name -> the argument's AST node (for the quick fix)
    fixable: bool = True  # False when built in a loop or comprehension: rewriting the argument would change all


@dataclass
class UserCell:
    """An instance of a Cell class of this program: its class and its `__init__`'s attributes."""

    cls: ast.ClassDef
    attrs: dict[str, Any]


@dataclass
class Seq:
    """``nn.SequentialCell([...])`` or ``nn.CellList([...])``: its layers in order (a CellList is not callable;
    it is indexed or looped over)."""

    attr: str
    items: list
    callable: bool = True


@dataclass
class Step:
    """A binding made in construct: what hover and inlay hints show."""

    name: str
    line: int          # 0-based program line
    value_col: int     # code-point column where the assigned value starts (a cursor before it is on the target)
    end_line: int
    end_col: int
    value: Any
    hint: bool = True  # False: a value after an `if` / at a branch's start, for hover only (no inlay hint)


@dataclass(frozen=True)
class BranchShapes:
    """A variable a tensor-dependent ``if`` leaves with different shapes on its two branches (Graph mode refuses
    that: its If needs one shape per variable): plain data for the Graph-mode rules."""

    line: int   # 0-based program line of the `if`
    name: str
    then: str   # the shapes as hints show them, "(2, 8) f32"
    orelse: str


@dataclass
class ConstructShapes:
    steps: list[Step] = field(default_factory=list)
    stopped: bool = False
    branches: list[BranchShapes] = field(default_factory=list)  # tensor-dependent ifs that change a shape


# ---- showing values -------------------------------------------------------------------------------
def fmt(v: TVal) -> str:
    dims = ", ".join("?" if d is None else str(d) for d in v.shape)
    return f"({dims}{',' if len(v.shape) == 1 else ''})"


def label(value: Any) -> str | None:
    """The inlay-hint / hover text of a value: ``(32, 16, 16, 16) f32``; None for what is not a tensor. A join
    of branches shows what each gave: ``(2, 16) f32 | (2, 8) f32``."""
    if isinstance(value, TVal):
        if value.alts:
            return " | ".join(dict.fromkeys(label(a) or "?" for a in value.alts))
        return f"{fmt(value)} {SHORT_DTYPES.get(value.dtype, value.dtype)}"
    if isinstance(value, Conflict) and value.alts and all(isinstance(a, TVal) for a in value.alts):
        return " | ".join(dict.fromkeys(label(a) or "?" for a in value.alts))
    if isinstance(value, tuple) and value and all(isinstance(v, TVal) for v in value):
        return "(" + ", ".join(label(v) or "?" for v in value) + ")"
    return None


# ---- to and from the engine's plain data -------------------------------------------------------------
def relabel(value: Any, origin: str, line: int) -> Any:
    if isinstance(value, TVal):
        return TVal(value.shape, value.dtype, origin, line, value.alts, value.maybe, value.tag)
    if isinstance(value, tuple):
        return tuple(relabel(v, origin, line) for v in value)
    return value


def from_tree(tree: Any, outputs: list, origin: str, line: int) -> Any:
    if isinstance(tree, list):
        return tuple(from_tree(t, outputs, origin, line) for t in tree)
    shape, dtype = outputs[tree]
    return TVal(tuple(shape), dtype, origin, line)


def to_engine(value: Any, ide: Any) -> Any:
    if isinstance(value, TVal):
        return ide.Abstract(value.shape, value.dtype)
    if isinstance(value, tuple):
        return tuple(to_engine(v, ide) for v in value)
    if isinstance(value, list):
        return [to_engine(v, ide) for v in value]
    if isinstance(value, dict):
        return {k: to_engine(v, ide) for k, v in value.items()}
    return value


def has_unknown(value: Any) -> bool:
    if isinstance(value, Unknown):
        return True
    if isinstance(value, (tuple, list)):
        return any(has_unknown(v) for v in value)
    if isinstance(value, dict):
        return any(has_unknown(v) for v in value.values())
    if isinstance(value, slice):
        return any(has_unknown(v) for v in (value.start, value.stop, value.step))
    return False


def conflict_in(value: Any) -> Conflict | None:
    """The first `Conflict` inside a value (the reason to give when a step cannot use it)."""
    if isinstance(value, Conflict):
        return value
    items = value.values() if isinstance(value, dict) else (value.start, value.stop, value.step) \
        if isinstance(value, slice) else value if isinstance(value, (tuple, list)) else ()
    for v in items:
        found = conflict_in(v)
        if found is not None:
            return found
    return None


def shape_of(t: TVal) -> tuple:
    """``x.shape`` as the construct reads it: a dim nobody knows (None) is a `Conflict` saying so, so that a
    step using it (``x.reshape(x.shape[1], -1)``, ``if x.shape[1] == 8``) is never decided on a guess."""
    def dim(i: int, d: Any) -> Any:
        if d is not None:
            return d
        seen = sorted({str(a.shape[i]) for a in t.alts if len(a.shape) > i})
        if len(seen) > 1:
            return Conflict(f"dim {i} of {t.origin} is {' or '.join(seen)} depending on the path")
        return Conflict(f"dim {i} of the shape of {t.origin} is only known when it runs")

    return tuple(dim(i, d) for i, d in enumerate(t.shape))


def has_tensor(value: Any) -> bool:
    if isinstance(value, TVal):
        return True
    return isinstance(value, (tuple, list)) and any(has_tensor(v) for v in value)


# ---- joining the values of two paths ----------------------------------------------------------------
MISSING = Conflict("a variable set on one path only")


def join(a: Any, b: Any, name: str, kind: str, at: str, line: int, sure: bool = True, tag: Any = None) -> Any:
    """The value of `name` after two paths of `kind` (``the `if` ``; at `at`, "line 20", program `line`) gave `a`
    and `b` (the branches of an ``if``, loop iterations).

    Equal values stay; tensors of one rank and dtype keep the dims they agree on (the others unknown, the
    branch shapes kept for display); tuples join item by item; anything else is a `Conflict` that says
    which values the paths gave, reported only if a later step needs it. `sure`: both paths can run (a
    run-time condition); else a refusal on one of them is never an error. `tag`: shared by every join of one
    ``if`` (its variables take the same branch together)."""
    where = f"{kind} at {at}"
    origin = f"either path of {kind}"
    if a is b:
        return a
    if isinstance(a, TVal) and isinstance(b, TVal):
        if a.shape == b.shape and a.dtype == b.dtype:
            if a.origin == b.origin and a.line == b.line and not a.alts and not b.alts:
                return a
            return TVal(a.shape, a.dtype, origin, line, _alts(a, b) if a.alts or b.alts else (),
                        not sure or bool(a.alts or b.alts) or a.maybe or b.maybe)
        if len(a.shape) == len(b.shape) and a.dtype == b.dtype:
            dims = tuple(x if x == y else None for x, y in zip(a.shape, b.shape))
            # a join of joins: its paths combine branches of several ifs, which may exclude each other
            simple = not a.alts and not b.alts
            return TVal(dims, a.dtype, origin, line, _alts(a, b), not sure or not simple or a.maybe or b.maybe,
                        tag if simple else None)
        return Conflict(f"{name} is {label(a)} on one path of {where} and {label(b)} on the other", _alts(a, b))
    if isinstance(a, (tuple, list)) and type(a) is type(b) and len(a) == len(b):
        items = [join(x, y, f"{name}[{i}]", kind, at, line, sure, tag) for i, (x, y) in enumerate(zip(a, b))]
        return tuple(items) if isinstance(a, tuple) else items
    if isinstance(a, Conflict) and a is not MISSING:
        return a
    if isinstance(b, Conflict) and b is not MISSING:
        return b
    if a is MISSING or b is MISSING:
        return Conflict(f"{name} is set on only one path of {where}")
    if isinstance(a, Unknown) or isinstance(b, Unknown):
        return UNKNOWN
    if type(a) is type(b) and a == b:
        return a
    shown = [label(v) or (repr(v) if isinstance(v, (int, float, str)) else "another value") for v in (a, b)]
    return Conflict(f"{name} is {shown[0]} on one path of {where} and {shown[1]} on the other",
                    _alts(a, b) if isinstance(a, TVal) and isinstance(b, TVal) else ())


MAX_SHOWN = 8  # a join of more distinct shapes keeps only what they agree on


def _alts(a: TVal, b: TVal) -> tuple:
    out: dict = {}
    for v in (*(a.alts or (a,)), *(b.alts or (b,))):
        out.setdefault((v.shape, v.dtype), v)
    return tuple(out.values()) if len(out) <= MAX_SHOWN else ()
