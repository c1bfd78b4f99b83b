"""The differential harness: one public API call run in PyNative and inside a compiled construct.

A `Case` names a callable from Spore's public API (an `ops` function, a class-form op instance, a
Tensor method looked up on the class, an `nn` Cell instance) and its arguments: every NumPy array
in `args` / `kwargs` becomes a Tensor *input* of the compiled construct (so Graph mode sees a
tracer with no values), everything else is passed as the static Python value it is.

`run_case` calls it three ways — PyNative, then Graph mode twice with fresh values of the same
shapes and dtypes (from `Case.make`, called with a different seed) — and classifies the outcome:

- "identical": Graph gives PyNative's outputs (shape, dtype, values; exact for ints and bools) and
  the same writes into its tensor arguments, on both calls;
- "refused": Graph mode raised a `GraphCompileError` at compile time whose location is the line
  of the construct that makes the call (what a user sees), while PyNative ran;
- "both_raise": PyNative raised too, and Graph raised a Spore error (not a raw engine exception);
- anything else is a failure: "mismatch" (a different result: a silent wrong answer) or "crash"
  (a raw Python/NumPy exception, or an error without the user's line).
"""

from __future__ import annotations

import inspect
import traceback
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

import spore as ms
from spore import nn
from spore.errors import GraphCompileError, SporeError

TENSOR = object()  # marks a tensor slot in a call template


@dataclass
class Case:
    """One call: `fn(*args, **kwargs)`; `make(seed)` gives (args, kwargs) with fresh values."""

    name: str                                   # e.g. "ops.take[clip]"
    fn: Any                                     # the public callable (or a Cell instance)
    make: Callable[[np.random.Generator], tuple[tuple, dict]]
    rtol: float = 1e-5
    atol: float = 1e-6
    train: bool | None = None                   # for Cells: set_train(train) before calling
    seeded: bool = False                        # draws random numbers: re-seed before each run
    note: str = ""


class Probe(nn.Cell):
    """The compiled caller: rebuilds the call from a static template and the traced tensors."""

    def __init__(self, fn: Any, template: tuple, kw_template: tuple, kw_names: tuple) -> None:
        super().__init__()
        self.fn = fn
        self.template = template
        self.kw_template = kw_template
        self.kw_names = kw_names

    def construct(self, *ts):
        args = []
        k = 0
        for item in self.template:
            if item is TENSOR:
                args.append(ts[k])
                k = k + 1
            else:
                args.append(item)
        kwargs = {}
        for name, item in zip(self.kw_names, self.kw_template):
            if item is TENSOR:
                kwargs[name] = ts[k]
                k = k + 1
            else:
                kwargs[name] = item
        return self.fn(*args, **kwargs)  # <- the call under test


CALL_LINE = next(i for i, line in enumerate(inspect.getsourcelines(Probe.construct)[0])
                 if "# <- the call under test" in line) + inspect.getsourcelines(Probe.construct)[1]


def _split(args: tuple, kwargs: dict) -> tuple[tuple, tuple, tuple, list[np.ndarray]]:
    arrays: list[np.ndarray] = []
    template = []
    for a in args:
        if isinstance(a, np.ndarray):
            template.append(TENSOR)
            arrays.append(a)
        else:
            template.append(a)
    kw_names = tuple(kwargs)
    kw_template = []
    for k in kw_names:
        v = kwargs[k]
        if isinstance(v, np.ndarray):
            kw_template.append(TENSOR)
            arrays.append(v)
        else:
            kw_template.append(v)
    return tuple(template), tuple(kw_template), kw_names, arrays


def _leaves(x: Any) -> list:
    if isinstance(x, (tuple, list)):
        return [y for v in x for y in _leaves(v)]
    if isinstance(x, dict):
        return [y for k in sorted(x, key=repr) for y in _leaves(x[k])]
    return [x]


def _snapshot(x: Any) -> list:
    out = []
    for v in _leaves(x):
        if isinstance(v, ms.Tensor):
            out.append(("T", v.asnumpy().copy(), v.dtype))
        else:
            out.append(("P", type(v), v))
    return out


def _same(a: list, b: list, rtol: float, atol: float) -> str | None:
    """None when equal, else a description of the first difference."""
    if len(a) != len(b):
        return f"{len(a)} vs {len(b)} outputs"
    for i, (x, y) in enumerate(zip(a, b)):
        if x[0] != y[0]:
            return f"output {i}: {'tensor' if x[0] == 'T' else type(x[2]).__name__} vs " \
                   f"{'tensor' if y[0] == 'T' else type(y[2]).__name__}"
        if x[0] == "P":
            if x[1] is not y[1]:
                return f"output {i}: {x[1].__name__} vs {y[1].__name__}"
            if isinstance(x[2], np.ndarray):
                if x[2].dtype != y[2].dtype or not np.array_equal(x[2], y[2], equal_nan=x[2].dtype.kind == "f"):
                    return f"output {i}: arrays {x[2]!r} vs {y[2]!r}"
            elif not (x[2] == y[2] or (x[2] != x[2] and y[2] != y[2])):
                return f"output {i}: {x[2]!r} vs {y[2]!r}"
            continue
        ax, ay = x[1], y[1]
        if x[2] is not y[2]:
            return f"output {i}: dtype {x[2]} vs {y[2]}"
        if ax.shape != ay.shape:
            return f"output {i}: shape {ax.shape} vs {ay.shape}"
        if ax.dtype.kind in "fcV":
            wide = np.complex128 if ax.dtype.kind == "c" else np.float64  # complex: compare both parts
            fx, fy = ax.astype(wide), ay.astype(wide)
            if not np.allclose(fx, fy, rtol=rtol, atol=atol, equal_nan=True):
                return f"output {i}: values differ (max |d| {np.nanmax(np.abs(fx - fy))})"
        elif not np.array_equal(ax, ay):
            return f"output {i}: values differ"
    return None


def _in_helper(case: Case, loc: Any) -> bool:
    """A location inside the case's own helper function: when the callable under test is a function the
    case wrote (its statements are user code), a refusal on one of its lines is on the user's line."""
    fn = case.fn
    if not inspect.isfunction(fn) or fn.__module__.split(".")[0] == "spore":
        return False
    lines, start = inspect.getsourcelines(fn)
    return loc.file == inspect.getsourcefile(fn) and start <= loc.line < start + len(lines)


def _tensors(arrays: list[np.ndarray]) -> list[ms.Tensor]:
    return [ms.Tensor(a.copy()) for a in arrays]


def _pynative(case: Case, args: tuple, kwargs: dict) -> tuple[Any, list]:
    template, kw_template, kw_names, arrays = _split(args, kwargs)
    ts = _tensors(arrays)
    probe = Probe(case.fn, template, kw_template, kw_names)
    if case.train is not None:
        probe.set_train(case.train)
    if case.seeded:
        ms.set_seed(7)
    ms.set_context(mode=ms.PYNATIVE_MODE)
    out = probe(*ts)
    return _snapshot(out), _snapshot(ts)


@dataclass
class Outcome:
    kind: str          # identical / refused / both_raise / mismatch / crash
    detail: str = ""
    tb: str = field(default="", repr=False)


def run_case(case: Case) -> Outcome:
    """Classify one case (see the module docstring)."""
    rng1, rng2 = np.random.default_rng(1), np.random.default_rng(2)
    a1, k1 = case.make(rng1)
    a2, k2 = case.make(rng2)
    try:
        py1 = _pynative(case, a1, k1)
        py_err = None
    except Exception as err:  # noqa: BLE001  (PyNative raising is a legitimate outcome)
        py_err = err
    template, kw_template, kw_names, arrays1 = _split(a1, k1)
    _, _, _, arrays2 = _split(a2, k2)
    probe = Probe(case.fn, template, kw_template, kw_names)
    if case.train is not None:
        probe.set_train(case.train)
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        results = []
        for arrays in (arrays1, arrays2):
            ts = _tensors(arrays)
            if case.seeded:
                ms.set_seed(7)
            out = probe(*ts)
            results.append((_snapshot(out), _snapshot(ts)))
    except GraphCompileError as err:
        ms.set_context(mode=ms.PYNATIVE_MODE)
        if err.loc is None or not (err.loc.line == CALL_LINE and err.loc.file == __file__ or _in_helper(case, err.loc)):
            return Outcome("crash", f"compile error not on the user's line ({err.loc}): {err.reason}",
                           traceback.format_exc())
        return Outcome("both_raise" if py_err is not None else "refused", err.reason)
    except SporeError as err:
        ms.set_context(mode=ms.PYNATIVE_MODE)
        if py_err is not None and err.loc is not None and err.loc.line == CALL_LINE:
            return Outcome("both_raise", err.reason)
        if py_err is not None:
            return Outcome("crash", f"Spore error without the user's line: {err}", traceback.format_exc())
        return Outcome("crash", f"Graph raised {type(err).__name__} where PyNative ran: {err}", traceback.format_exc())
    except Exception as err:  # noqa: BLE001
        ms.set_context(mode=ms.PYNATIVE_MODE)
        if py_err is not None and type(err) is type(py_err) and str(err) == str(py_err):
            return Outcome("both_raise", f"the same {type(err).__name__} as PyNative: {err}")  # Python's own error
        return Outcome("crash", f"raw {type(err).__name__}: {err}", traceback.format_exc())
    ms.set_context(mode=ms.PYNATIVE_MODE)
    if py_err is not None:
        return Outcome("mismatch", f"PyNative raised {type(py_err).__name__}: {py_err}; Graph ran")
    py2 = _pynative(case, a2, k2)
    for call, (py, gr) in enumerate(((py1, results[0]), (py2, results[1])), 1):
        diff = _same(py[0], gr[0], case.rtol, case.atol)
        if diff:
            return Outcome("mismatch", f"call {call}: {diff}")
        diff = _same(py[1], gr[1], case.rtol, case.atol)
        if diff:
            return Outcome("mismatch", f"call {call}: writes into the arguments differ: {diff}")
    return Outcome("identical")


def check_cases(cases: list[Case], max_size: int) -> None:
    """Case names are unique; `make` gives the same shapes, dtypes and static arguments for any rng
    (only values may change), and inputs stay small so the whole suite stays fast."""
    from collections import Counter

    dups = [n for n, k in Counter(c.name for c in cases).items() if k > 1]
    assert not dups, f"duplicate case names: {dups}"
    for case in cases:
        (a1, k1), (a2, k2) = case.make(np.random.default_rng(1)), case.make(np.random.default_rng(2))
        flat1, flat2 = list(a1) + [k1[k] for k in sorted(k1)], list(a2) + [k2[k] for k in sorted(k2)]
        assert sorted(k1) == sorted(k2) and len(flat1) == len(flat2), case.name
        for x, y in zip(flat1, flat2):
            assert type(x) is type(y), case.name
            if isinstance(x, np.ndarray):
                assert x.shape == y.shape and x.dtype == y.dtype, case.name
                assert x.size <= max_size, f"{case.name}: keep inputs small"
            elif not isinstance(x, (ms.Tensor, nn.Cell)) and not callable(x):
                assert x == y or (x != x and y != y), f"{case.name}: static arguments must not depend on the rng"
