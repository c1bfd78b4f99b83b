"""Plain-text tables of the bench results, and the cross-backend correctness check.

Rows are (case, Spore mode): when Graph mode lands, its rows appear under the PyNative ones with the
same numpy/PyTorch columns, so every ratio compares like with like.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from .cases import OP_CASES, TRAIN_CASES

REF = ("numpy", "ref")
TORCH = ("torch", "eager")
RTOL_OP = 1e-3    # float32 outputs and gradients, relative to the reference's largest magnitude
TOL_LOSS = 1e-3   # absolute difference of the first training losses


def table(headers: Sequence[str], rows: Sequence[Sequence[str]], align: str) -> str:
    """Aligned plain-text table; `align` has one 'l' or 'r' per column."""
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(headers)]

    def fmt(cells: Sequence[str]) -> str:
        return "  ".join(c.ljust(w) if a == "l" else c.rjust(w) for c, w, a in zip(cells, widths, align)).rstrip()

    rule = "  ".join("-" * w for w in widths)
    return "\n".join([fmt(headers), rule, *(fmt(r) for r in rows)])


def best_of_rounds(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One record per (kind, case, backend, mode, threads): the round with the lowest median.

    Outside load only ever slows a run down, so across whole rounds (each a median already) the
    fastest is the best estimate of the undisturbed time; an error is kept only if no round succeeded.
    """
    best: dict[tuple, dict[str, Any]] = {}
    for r in records:
        key = (r["kind"], r["case"], r["backend"], r["mode"], r["threads"])
        cur = best.get(key)
        if cur is None or ("median_s" in r and ("median_s" not in cur or r["median_s"] < cur["median_s"])):
            best[key] = r
    return list(best.values())


def _index(records: list[dict[str, Any]]) -> dict[tuple, dict[str, Any]]:
    return {(r["kind"], r["case"], r["backend"], r["mode"], r["threads"]): r for r in records}


def _ms(rec: dict[str, Any] | None) -> float | None:
    return rec["median_s"] * 1e3 if rec and "median_s" in rec else None


def _num(v: float | None, digits: int = 3) -> str:
    if v is None or math.isnan(v):
        return "n/a"
    return f"{v:.{digits}f}" if v < 100 else f"{v:.1f}"


def _ratio(a: float | None, b: float | None) -> str:
    return f"{a / b:.2f}x" if a and b else "n/a"


def check_dir_errors(check_dir: Path | None, backend: str, mode: str) -> dict[str, str]:
    """Per case, 'ok <err>' or 'BAD <err>' comparing a backend's saved results with the numpy reference."""
    out: dict[str, str] = {}
    if check_dir is None:
        return out
    for case in OP_CASES:
        mine, ref = check_dir / f"{backend}-{mode}-op-{case.name}.npz", check_dir / f"numpy-ref-op-{case.name}.npz"
        if mine.exists() and ref.exists():
            a, b = np.load(mine), np.load(ref)
            wrong = [f"{k} {a[k].shape if k in a.files else 'missing'} != {b[k].shape}" for k in b.files
                     if k not in a.files or a[k].shape != b[k].shape]
            if wrong:
                out[case.name] = "BAD shape: " + "; ".join(wrong)
                continue
            err = max(float(np.abs(a[k].astype(np.float64) - b[k]).max() / max(np.abs(b[k]).max(), 1e-12))
                      for k in b.files)
            out[case.name] = f"{'ok' if err < RTOL_OP else 'BAD'} {err:.0e}"
    for tcase in TRAIN_CASES:
        mine = check_dir / f"{backend}-{mode}-train-{tcase.name}.npz"
        ref = check_dir / f"numpy-ref-train-{tcase.name}.npz"
        if mine.exists() and ref.exists():
            a, b = np.load(mine)["losses"], np.load(ref)["losses"]
            err = float(np.abs(a - b).max())
            out[tcase.name] = f"{'ok' if err < TOL_LOSS else 'BAD'} {err:.0e}"
    return out


def render(records: list[dict[str, Any]], threads: int, spore_modes: Sequence[str],
           checks: dict[tuple[str, str], dict[str, str]]) -> str:
    """The two tables (per-op, training steps) for one thread count."""
    idx = _index(records)
    get = lambda kind, case, be: idx.get((kind, case, be[0], be[1], threads))
    parts = []
    rows = []
    present = {(r["kind"], r["case"]) for r in records}
    for case in OP_CASES:
        if ("op", case.name) not in present:
            continue
        ref, tor = _ms(get("op", case.name, REF)), _ms(get("op", case.name, TORCH))
        for mode in spore_modes:
            sp = _ms(get("op", case.name, ("spore", mode)))
            rows.append([case.label, mode, _num(sp), _num(ref), _num(tor), _ratio(sp, tor), _ratio(sp, ref),
                         checks.get(("spore", mode), {}).get(case.name, "")])
    parts.append(f"(a) forward + backward per op, {threads} thread(s): median ms per call "
                 "(ratio = Spore time / other time; < 1 means Spore is faster)")
    parts.append(table(["op", "mode", "Spore ms", "numpy ms", "PyTorch ms", "Spore/PyTorch", "Spore/numpy",
                        "Spore vs ref"], rows, "llrrrrrl"))
    rows = []
    for tc in TRAIN_CASES:
        if ("train", tc.name) not in present:
            continue
        ref, tor = _ms(get("train", tc.name, REF)), _ms(get("train", tc.name, TORCH))
        for mode in spore_modes:
            sp = _ms(get("train", tc.name, ("spore", mode)))
            sps = lambda t: _num(1e3 / t, 1) if t else "n/a"
            rows.append([tc.label, mode, sps(sp), sps(ref), sps(tor), _ratio(sp, tor), _ratio(sp, ref),
                         checks.get(("spore", mode), {}).get(tc.name, "")])
    parts.append("")
    parts.append(f"(b) training step (forward + backward + Adam), {threads} thread(s): steps/s "
                 "(ratio = Spore time per step / other time per step)")
    parts.append(table(["model", "mode", "Spore st/s", "numpy st/s", "PyTorch st/s", "Spore/PyTorch",
                        "Spore/numpy", "loss vs ref"], rows, "llrrrrrl"))
    return "\n".join(parts)


def notes(records: list[dict[str, Any]], checks: dict[tuple[str, str], dict[str, str]]) -> str:
    """Failures (why a cell says n/a) and the reference's own agreement with PyTorch."""
    lines = []
    seen = set()
    for r in records:
        if "error" in r:
            key = (r["backend"], r["mode"], r["case"], r["error"])
            if key not in seen:
                seen.add(key)
                lines.append(f"  n/a: {r['backend']}[{r['mode']}] {r['case']} (threads={r['threads']}): {r['error']}")
    tc = checks.get(TORCH, {})
    if tc:
        bad = {k: v for k, v in tc.items() if not v.startswith("ok")}
        worst = max((float(v.split()[1]) for v in tc.values() if v.startswith("ok")), default=0.0)
        lines.append(f"  numpy reference vs PyTorch: {len(tc) - len(bad)}/{len(tc)} cases agree "
                     f"(worst relative error {worst:.0e})" + (f"; disagree: {bad}" if bad else ""))
    return "\n".join(lines)


def load_note(records: list[dict[str, Any]], threads: int, cores: int) -> str:
    """The load average while each set ran, and a warning when the box was too busy for these threads.

    Other processes on the cores preempt BLAS/OpenMP worker threads; a preempted thread stalls its
    whole parallel region (spin-waiting siblings make it worse), so multi-threaded medians can swing
    tenfold on a shared machine while single-threaded ones barely move.
    """
    loads: dict[str, list[float]] = {}
    for r in records:
        if r["threads"] == threads and "load" in r:
            loads.setdefault(f"{r['backend']}[{r['mode']}]", r["load"])
    if not loads:
        return ""
    text = "load average (1 min) before/after each set: " + ", ".join(
        f"{k} {a:.1f}/{b:.1f}" for k, (a, b) in loads.items())
    busy = max(max(v) for v in loads.values())
    # Linux counts runnable threads: our worker alone adds ~`threads`, so anything above the core
    # count (plus slack for the lagging 1-minute average) is someone else taking our cores
    if busy > cores + 0.5:
        text += (f"\n  WARNING: the machine was busy (load {busy:.1f} on {cores} cores): {threads}-thread timings "
                 "are unreliable; rerun on an idle machine for numbers worth comparing.")
    return text
