"""How a debugger shows Spore tensors: a one-line summary and children that page through the values.

pydevd (under debugpy, VS Code, the Jupyter kernel's debugger) asks each variable for a value string
and, when the user expands it, for its children. For a Tensor or Parameter the string is
``Tensor[32, 16, 16, 16] f32 μ=0.12 σ=0.9 [-3.1, 3.4]`` (``nan=``/``inf=`` counts when present, a
Parameter's name, the values themselves when there are at most `INLINE` of them), and the children are
shape, dtype, stats, grad, a NumPy view (no copy: what "View Value in Data Viewer" evaluates) and the
values by slices: ``[0:100]``, ``[100:200]``, ... on the first dimension (ranges of ranges when it is
longer than `PAGE` squared), then ``[i]`` per index, recursively down to the elements. Each slice is a
NumPy view of the tensor's buffer, so a 10^8-element tensor is never copied or formatted whole; the
statistics follow `presentation_stats` (exact below its limit, a documented sample above, an "exact
stats" child computed on request).

Only the public Tensor API (`shape`, `dtype`, `asnumpy()`, Parameter's `name`/`requires_grad`) and
`spore.ide` are used. Nothing here imports NumPy or the engine at import time: a Spore object being
shown means they are loaded already. The pydevd glue (`presentation_pydevd`) turns any exception
from here into the object's repr.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from . import presentation_stats as S

PAGE = 100            # children per level: indices, or ranges of indices
INLINE = 6            # a tensor with at most this many values shows them in its summary
SLICE_EXACT = 1 << 14  # a slice's summary is exact up to this many elements, else from SLICE_SAMPLE
SLICE_SAMPLE = 1 << 10

Child = tuple[str, Any, "str | Callable[[str], str] | None"]  # (name, value, evaluate-name suffix)

SHORT_DTYPES = {
    "float16": "f16", "float32": "f32", "float64": "f64", "bfloat16": "bf16", "int8": "i8", "int16": "i16",
    "int32": "i32", "int64": "i64", "uint8": "u8", "uint16": "u16", "uint32": "u32", "uint64": "u64",
    "bool": "bool", "bool_": "bool", "complex64": "c64", "complex128": "c128",
}
GRAD_NOTE = ("not kept on the tensor: Spore, like MindSpore, returns gradients from ms.grad / "
             "ms.value_and_grad (grads = grad_fn(*inputs)); look at that call's result")


# --- what is a Spore object (without importing anything) ----------------------------------------
def is_tensor_type(tp: type) -> bool:
    """True for spore.Tensor and its subclasses (Parameter). A Spore tensor existing means
    `spore.tensor` is loaded: when it is not, nothing is a tensor and nothing is imported."""
    if "spore.tensor" not in sys.modules:
        return False
    import spore

    return isinstance(tp, type) and issubclass(tp, spore.Tensor)


def is_cell_type(tp: type) -> bool:
    """True for spore.nn.Cell and its subclasses (the user's networks), importing nothing new."""
    if "spore.nn.cell" not in sys.modules:
        return False
    import spore.nn

    return isinstance(tp, type) and issubclass(tp, spore.nn.Cell)


def is_parameter(t: Any) -> bool:
    import spore

    return isinstance(t, spore.Parameter)


def has_values(t: Any) -> bool:
    """False for a tensor being traced by Graph mode (shape and dtype only; reading it raises)."""
    try:
        t.asnumpy()
    except Exception:
        return False
    return True


def short_dtype(dtype: Any) -> str:
    name = getattr(dtype, "name", None) or str(dtype)
    return SHORT_DTYPES.get(name, name)


def shape_text(shape: tuple[int, ...]) -> str:
    return "[" + ", ".join(str(int(d)) for d in shape) + "]"


def format_values(arr: Any) -> str:
    """A few values as nested lists, 4 significant digits: ``[[1, 2.5], [nan, -3]]``."""
    if arr.ndim == 0:
        return _scalar_text(arr[()])
    return "[" + ", ".join(format_values(arr[i]) for i in range(arr.shape[0])) + "]"


def _scalar_text(v: Any) -> str:
    if getattr(v, "dtype", None) is not None and v.dtype.kind == "b":
        return str(bool(v))
    if getattr(v, "dtype", None) is not None and v.dtype.kind in "iu":
        return str(int(v))
    if getattr(v, "dtype", None) is not None and v.dtype.kind == "c":
        return str(complex(v))
    return S.num(float(v))


# --- the summary line ----------------------------------------------------------------------------
def summary(t: Any) -> str:
    """``Tensor[32, 16] f32 μ=0.12 σ=0.9 [-3.1, 3.4]`` for a Tensor; a Parameter adds its name."""
    head = f"{type(t).__name__}{shape_text(tuple(t.shape))} {short_dtype(t.dtype)}"
    if is_parameter(t):
        head += f" {t.name!r}"
    if not has_values(t):
        return head + " (traced by Graph mode: values exist only when the graph runs)"
    arr = t.asnumpy()
    return f"{head} {values_text(arr, S.EXACT_LIMIT, S.SAMPLE)}".rstrip()


def values_text(arr: Any, limit: int, sample: int) -> str:
    """The values themselves when few, else the statistics (empty arrays say so)."""
    if arr.size == 0:
        return "(empty)"
    if arr.size <= INLINE:
        return format_values(arr)
    return S.compute(arr, limit=limit, sample=sample).text()


# --- children --------------------------------------------------------------------------------------
class StatsView:
    """The `stats` child: the figures as children, the summary as its value."""

    def __init__(self, stats: S.Stats, arr: Any) -> None:
        self.stats = stats
        self.arr = arr

    def text(self) -> str:
        st = self.stats
        body = st.text() or "(no statistics for this dtype)"
        if st.sampled:
            body += f" (from {st.n_read:,} of {st.size:,} values, evenly spread; expand 'exact' for all)"
        return body

    def children(self) -> list[Child]:
        st = self.stats
        out: list[Child] = [("size", st.size, None)]
        if st.kind == "bool":
            out.append(("true", st.n_true, None))
        else:
            out += [("mean", st.mean, None), ("std", st.std, None), ("min", st.min, None), ("max", st.max, None),
                    ("nan", st.nan, None), ("+inf", st.posinf, None), ("-inf", st.neginf, None)]
        out.append(("sampled", st.sampled, None))
        if st.sampled:
            out += [("values read", st.n_read, None), ("exact", ExactStats(self.arr), None)]
        return out


class ExactStats:
    """Exact statistics of a large tensor, computed (chunked, no copy) only when expanded."""

    def __init__(self, arr: Any) -> None:
        self.arr = arr

    def text(self) -> str:
        return f"expand to read all {self.arr.size:,} values (chunked, no copy)"

    def children(self) -> list[Child]:
        return StatsView(S.compute(self.arr, exact=True), self.arr).children()


class Slice:
    """Part of a tensor's values: fixed leading indices `ints`, then optionally a range `rng` on the
    next axis. `view` is a NumPy view of the tensor's buffer (basic indexing never copies)."""

    def __init__(self, arr: Any, ints: tuple[int, ...], rng: tuple[int, int] | None, dtype: str) -> None:
        self.root = arr
        self.ints = ints
        self.rng = rng
        self.dtype = dtype
        index: tuple[Any, ...] = ints + ((slice(*rng),) if rng else ())
        self.view = arr[index]

    def suffix(self) -> str:
        """This slice as an index expression on the tensor: ``[3, 100:200]``."""
        parts = [str(i) for i in self.ints] + ([f"{self.rng[0]}:{self.rng[1]}"] if self.rng else [])
        return "[" + ", ".join(parts) + "]"

    def text(self) -> str:
        return f"{shape_text(self.view.shape)} {self.dtype} {values_text(self.view, SLICE_EXACT, SLICE_SAMPLE)}"

    def children(self) -> list[Child]:
        return slice_children(self.root, self.ints, self.rng, self.dtype, self.suffix())


def _eval_name(own_suffix: str | None, child_suffix: str) -> Callable[[str], str]:
    """pydevd appends a child's evaluate name to its parent's; a slice's index is absolute, so strip
    the parent's own index first: ``x[3, 100:200]`` -> ``x[3, 150]``, not ``x[3, 100:200][3, 150]``."""

    def name(parent: str) -> str:
        if own_suffix and parent.endswith(own_suffix):
            parent = parent[: -len(own_suffix)]
        return parent + child_suffix

    return name


def element_value(v: Any) -> Any:
    """A NumPy scalar as a plain Python leaf whose repr is the value's own shortest form (a float32
    0.1 shows as 0.1, not 0.10000000149011612)."""
    kind = v.dtype.kind
    if kind == "b":
        return bool(v)
    if kind in "iu":
        return int(v)
    if kind == "c":
        return complex(v)
    return float(str(v))


def slice_children(arr: Any, ints: tuple[int, ...], rng: tuple[int, int] | None, dtype: str,
                   own_suffix: str | None) -> list[Child]:
    """Children of the part of `arr` at `ints` (+ `rng`): at most PAGE of them — ranges of ranges
    while the axis is long, then one child per index (an element on the last axis)."""
    axis = len(ints)
    start, stop = rng if rng else (0, int(arr.shape[axis]))
    n = stop - start
    out: list[Child] = []
    lead = [str(i) for i in ints]
    if n > PAGE:
        step = PAGE
        while -(-n // step) > PAGE:
            step *= PAGE
        for a in range(start, stop, step):
            b = min(a + step, stop)
            child = Slice(arr, ints, (a, b), dtype)
            out.append((f"[{a}:{b}]", child, _eval_name(own_suffix, child.suffix())))
        return out
    last = axis == arr.ndim - 1
    for i in range(start, stop):
        suffix = "[" + ", ".join([*lead, str(i)]) + "]"
        value = element_value(arr[(*ints, i)]) if last else Slice(arr, (*ints, i), None, dtype)
        out.append((f"[{i}]", value, _eval_name(own_suffix, suffix)))
    return out


def grad_children(t: Any) -> list[Child]:
    """What Spore knows of a tensor's gradient: none is stored (MindSpore's functional autodiff);
    a Parameter says whether it trains, a tensor on the gradient tape names the op that made it."""
    from spore import ide

    origin = ide.tensor_origin(t)
    out: list[Child] = []
    if origin["parameter"] is not None:
        out.append(("requires_grad", bool(origin["requires_grad"]), ".requires_grad"))
    if origin["op"] is not None:
        out.append(("grad_fn", origin["op"], None))
    out.append(("grad", GRAD_NOTE, None))
    return out


def tensor_children(t: Any) -> list[Child]:
    """shape, dtype, (name), stats, grad, numpy, then the values by slices."""
    out: list[Child] = [("shape", tuple(t.shape), ".shape"), ("dtype", t.dtype, ".dtype")]
    if is_parameter(t):
        out.append(("name", t.name, ".name"))
    if not has_values(t):
        out.append(("values", "none while Graph mode traces this tensor", None))
        return out
    arr = t.asnumpy()
    dtype = short_dtype(t.dtype)
    out.append(("stats", StatsView(S.compute(arr), arr), None))
    out += grad_children(t)
    out.append(("numpy", arr, ".asnumpy()"))
    if arr.ndim == 0:
        out.append(("value", element_value(arr[()]), ".item()"))
    elif arr.size:
        out += slice_children(arr, (), None, dtype, None)
    return out
