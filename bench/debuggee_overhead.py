"""Benchmark: what Spore's debuggee hooks cost a compiled Cell when no breakpoint is in it.

Before each compiled call the engine asks the debugger's breakpoint probe whether the graph's lines
hold a breakpoint (`spore.ide.set_breakpoint_probe`); the answer is cached per graph and pydevd's
breakpoint-change counter, so the cost should be one counter read and a comparison. This times a
small Graph-mode MLP (batch 1, where a per-call cost shows most; and batch 64) called in a loop:

- ``plain``: no hooks (the engine's probe slot empty);
- ``hooks``: `spore_debug.debuggee.install()` done, no debugger loaded (``python -m
  spore_debug.run`` without a client);
- ``hooks+debugger``: the hooks reading a pydevd-shaped debugger whose breakpoints are all in
  another file (the counter and table read on every call, as under debugpy). The tracing cost of a
  real debugger is debugpy's and is measured over DAP by bench/bench_debug.py.

Configurations are interleaved in short rounds (rotating which runs first) and the best of
`repeats` rounds is kept (load from other processes
biases none of them); `check_ns()` times the check alone, which shared cores disturb less.
`overhead()` and `check_ns()` return plain data for bench/bench_debug.py:

    .venv/bin/python bench/debuggee_overhead.py [--calls 500] [--repeats 30]
"""

from __future__ import annotations

import os

for _k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_k, "1")

import argparse  # noqa: E402
import contextlib  # noqa: E402
import json  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import types  # noqa: E402
from collections.abc import Iterator  # noqa: E402
from typing import Any  # noqa: E402

import numpy as np  # noqa: E402

_HERE = os.path.dirname(os.path.abspath(__file__))
for _p in (os.path.join(_HERE, "..", "engine"), os.path.join(_HERE, "..", "debugger")):
    if _p not in sys.path:
        sys.path.insert(0, _p)

import spore as ms  # noqa: E402
from spore import ide, nn, ops  # noqa: E402
from spore_debug import debuggee  # noqa: E402


class MLP(nn.Cell):
    def __init__(self) -> None:
        super().__init__()
        self.fc1, self.fc2, self.fc3 = nn.Dense(32, 64), nn.Dense(64, 64), nn.Dense(64, 10)

    def construct(self, x):
        h = ops.relu(self.fc1(x))
        h = ops.relu(self.fc2(h))
        return self.fc3(h)


class _Debugger:
    """Shaped like pydevd's PyDB where the probe reads it: a change counter and a breakpoint table."""

    mtime = 3
    ready_to_run = True
    breakpoints = {os.path.realpath(os.path.join(_HERE, "elsewhere.py")): {10: None, 20: None}}


@contextlib.contextmanager
def _fake_pydevd() -> Iterator[None]:
    constants = types.ModuleType("_pydevd_bundle.pydevd_constants")
    dbg = _Debugger()
    constants.get_global_debugger = lambda: dbg  # type: ignore[attr-defined]
    saved = sys.modules.get("_pydevd_bundle.pydevd_constants")
    sys.modules["_pydevd_bundle.pydevd_constants"] = constants
    try:
        yield
    finally:
        if saved is None:
            sys.modules.pop("_pydevd_bundle.pydevd_constants", None)
        else:
            sys.modules["_pydevd_bundle.pydevd_constants"] = saved


@contextlib.contextmanager
def _config(name: str) -> Iterator[None]:
    if name == "plain":
        debuggee.uninstall()
        yield
        return
    debuggee.install(break_on_nan=False)
    try:
        if name == "hooks+debugger":
            with _fake_pydevd():
                yield
        else:
            yield
    finally:
        debuggee.uninstall()


def _loop(net: Any, x: Any, calls: int) -> float:
    t0 = time.perf_counter()
    for _ in range(calls):
        net(x)
    return (time.perf_counter() - t0) / calls


def overhead(calls: int = 500, repeats: int = 30, batches: tuple[int, ...] = (1, 64)) -> dict[str, Any]:
    """Seconds per compiled call for each configuration and batch, best of `repeats` interleaved
    rounds, with the hooks' overhead relative to ``plain`` (percent; noise is about +-2%)."""
    ms.set_context(mode=ms.GRAPH_MODE)
    ms.set_seed(0)
    configs = ("plain", "hooks", "hooks+debugger")
    out: dict[str, Any] = {"calls": calls, "repeats": repeats, "batches": {}}
    for batch in batches:
        net = MLP()
        x = ms.Tensor(np.random.default_rng(0).standard_normal((batch, 32)).astype(np.float32))
        for name in configs:  # compile and warm each path once
            with _config(name):
                _loop(net, x, 50)
        best = {name: float("inf") for name in configs}
        for r in range(repeats):
            order = configs[r % 3:] + configs[:r % 3]  # rotated: no configuration always runs first
            for name in order:
                with _config(name):
                    best[name] = min(best[name], _loop(net, x, calls))
        assert ide.breakpoint_probe() is None  # nothing left installed
        out["batches"][batch] = {
            "us_per_call": {k: round(v * 1e6, 2) for k, v in best.items()},
            "overhead_pct": {k: round((best[k] / best["plain"] - 1) * 100, 1) for k in configs if k != "plain"},
        }
    return out


def check_ns(number: int = 200_000) -> dict[str, float]:
    """Nanoseconds of the per-call check alone (what a compiled call pays before running), best of
    5: with no hooks (the probe slot read), with the hooks and no debugger, with the hooks over a
    pydevd-shaped debugger. Steadier on shared cores than the loop above."""
    import timeit

    from spore.compiler import debug_hooks  # the engine's side of the check (a bench may look inside)

    class Graph:  # where the engine caches the probe's answer (a CompiledEntry)
        debug_answer = None

    holder, lines = Graph(), ((os.path.join(_HERE, "net.py"), 1, 40),)

    def per_call(stmt: Any) -> float:
        return min(timeit.repeat(stmt, number=number, repeat=5)) / number * 1e9

    out = {"no hooks": per_call(lambda: debug_hooks.PROBE[0] is not None and None)}
    debuggee.install(break_on_nan=False)
    try:
        out["hooks"] = per_call(lambda: debug_hooks.runs_eagerly("Net.construct", holder, lines))
        with _fake_pydevd():
            out["hooks+debugger"] = per_call(lambda: debug_hooks.runs_eagerly("Net.construct", holder, lines))
    finally:
        debuggee.uninstall()
    empty = per_call(lambda: None)  # the lambda call itself, taken off each figure
    return {k: round(max(v - empty, 0.0), 1) for k, v in out.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0] if __doc__ else None)
    parser.add_argument("--calls", type=int, default=500)
    parser.add_argument("--repeats", type=int, default=30)
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    args = parser.parse_args()
    result = overhead(args.calls, args.repeats)
    result["check_ns"] = check_ns()
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(f"compiled MLP 32-64-64-10, {args.calls} calls x {args.repeats} rounds (best round, us per call)")
    for batch, r in result["batches"].items():
        us, pct = r["us_per_call"], r["overhead_pct"]
        print(f"  batch {batch:>3}: plain {us['plain']:8.2f}   hooks {us['hooks']:8.2f} ({pct['hooks']:+.1f}%)   "
              f"hooks+debugger {us['hooks+debugger']:8.2f} ({pct['hooks+debugger']:+.1f}%)")
    ns = result["check_ns"]
    print(f"  the check alone, ns per compiled call: no hooks {ns['no hooks']:.0f}   hooks {ns['hooks']:.0f}   "
          f"hooks+debugger {ns['hooks+debugger']:.0f}")


if __name__ == "__main__":
    main()
