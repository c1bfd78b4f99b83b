"""One measurement set: a backend, a mode and a thread count, in a fresh process (``python -m bench.worker``).

A fresh process per set because BLAS/OpenMP pools read their thread count once, at load time: the
parent sets OMP/OPENBLAS/MKL_NUM_THREADS in this process's environment before numpy, Spore or torch
is imported. Results go to a JSON file (stdout is left to the frameworks' own chatter); outputs,
gradients and first losses go to ``--check-dir`` for the cross-backend correctness check.

``--task compile`` measures compile time instead (Spore's Graph mode, torch.compile): for each
training case, ``1 + --fresh`` fresh networks are built in turn and each one's first step is timed;
compile time = first-step time - that network's steady-state step time. The first (cold) compile
also pays the process's one-time costs (lazy imports, code caches; for torch.compile, whatever
Inductor's on-disk cache does not hold yet); the others are the warm compile a user pays for each
new network in a running process.
"""

from __future__ import annotations

import argparse
import importlib
import json
import statistics
import time
import traceback
from pathlib import Path
from typing import Any

import numpy as np

from .cases import CHECK_STEPS, OP_CASES, TRAIN_CASES, op_inputs, train_batch, train_params
from .timing import measure


def _error(e: BaseException) -> str:
    """A one-line reason for the table's notes, naming where in the backend it failed."""
    tb = traceback.extract_tb(e.__traceback__)
    where = f" ({Path(tb[-1].filename).name}:{tb[-1].lineno})" if tb else ""
    msg = str(e).strip().splitlines()[0] if str(e).strip() else ""
    return f"{type(e).__name__}: {msg}"[:300] + where


def run_set(backend: str, mode: str, threads: int, budget: float, check_dir: Path | None,
            only: set[str] | None = None) -> dict[str, Any]:
    """Measure every op and training case with one backend; failures become records with an error."""
    mod = importlib.import_module(f"bench.{backend}_bench")
    info = mod.setup(threads, mode)
    records: list[dict[str, Any]] = []
    base = {"backend": backend, "mode": mode, "threads": threads}
    for case in OP_CASES:
        if only and case.name not in only:
            continue
        rec: dict[str, Any] = {**base, "kind": "op", "case": case.name}
        try:
            run = mod.build_op(case, op_inputs(case.name))
            out, grads = run()
            if check_dir is not None:
                arrays = {"out": mod.to_numpy(out)}
                arrays.update({f"grad_{k}": mod.to_numpy(g) for k, g in zip(case.grads, grads)})
                if hasattr(run, "state"):
                    arrays.update({f"state_{k}": mod.to_numpy(v) for k, v in run.state().items()})
                np.savez(check_dir / f"{backend}-{mode}-op-{case.name}.npz", **arrays)
            rec.update(measure(run, budget).to_json())
        except Exception as e:  # noqa: BLE001 - a missing op is a table note, not a crashed bench
            rec["error"] = _error(e)
        records.append(rec)
    for tcase in TRAIN_CASES:
        if only and tcase.name not in only:
            continue
        rec = {**base, "kind": "train", "case": tcase.name}
        try:
            x, y = train_batch(tcase.name)
            step = mod.build_train(tcase, train_params(tcase.name), x, y)
            losses = [float(mod.to_numpy(step())) for _ in range(CHECK_STEPS)]
            rec["losses"] = losses
            if hasattr(mod, "describe_train"):
                rec.update(mod.describe_train(step))
            if check_dir is not None:
                np.savez(check_dir / f"{backend}-{mode}-train-{tcase.name}.npz", losses=np.asarray(losses))
            rec.update(measure(step, budget, warmup=1, min_reps=5).to_json())
        except Exception as e:  # noqa: BLE001
            rec["error"] = _error(e)
        records.append(rec)
    return {"info": info, "records": records}


def run_compile(backend: str, mode: str, threads: int, budget: float, only: set[str] | None = None,
                fresh: int = 3, limit_s: float = 60.0) -> dict[str, Any]:
    """Compile time of every training case: one cold and `fresh` warm compiles of fresh networks.

    A first step slower than `limit_s` makes that case and the ones after it errors (the table prints
    n/a and why): a compiler that slow would take the bench past its time budget.
    """
    mod = importlib.import_module(f"bench.{backend}_bench")
    info = mod.setup(threads, mode)
    records: list[dict[str, Any]] = []
    too_slow = ""
    for tcase in TRAIN_CASES:
        if only and tcase.name not in only:
            continue
        rec: dict[str, Any] = {"backend": backend, "mode": mode, "threads": threads, "kind": "compile",
                               "case": tcase.name}
        if too_slow:
            rec["error"] = f"skipped: {too_slow}"
            records.append(rec)
            continue
        try:
            x, y = train_batch(tcase.name)
            compiles, steps = [], []
            for _ in range(fresh + 1):
                step = mod.build_train(tcase, train_params(tcase.name), x, y)
                t0 = time.perf_counter()
                mod.to_numpy(step())
                first = time.perf_counter() - t0
                if first > limit_s:
                    too_slow = f"{tcase.name}'s first compiled step took {first:.0f} s (> {limit_s:.0f} s)"
                    raise TimeoutError(too_slow)
                steady = measure(step, budget, warmup=1, min_reps=5).median_s
                compiles.append(first - steady)
                steps.append(steady)
            rec.update(cold_s=compiles[0], warm_s=compiles[1:], median_s=statistics.median(compiles[1:]),
                       step_s=min(steps))
        except Exception as e:  # noqa: BLE001 - a backend that cannot compile is a table note
            rec["error"] = _error(e)
        records.append(rec)
    return {"info": info, "records": records}


def main(argv: list[str] | None = None) -> None:
    """CLI used by `bench/run.py`; also handy alone: ``python -m bench.worker --backend numpy``."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--backend", required=True, choices=("numpy", "spore", "torch"))
    ap.add_argument("--mode", default=None)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--budget", type=float, default=0.8, help="seconds of timed calls per measurement")
    ap.add_argument("--out", type=Path, default=None, help="JSON result file (default: print)")
    ap.add_argument("--check-dir", type=Path, default=None)
    ap.add_argument("--only", default="", help="comma-separated case names")
    ap.add_argument("--task", default="measure", choices=("measure", "compile"),
                    help="measure: op and training tables; compile: compile time of the training cases")
    ap.add_argument("--fresh", type=int, default=3, help="compile task: warm compiles after the cold one")
    ap.add_argument("--limit", type=float, default=60.0, help="compile task: give up on a first step slower than this")
    a = ap.parse_args(argv)
    mode = a.mode or importlib.import_module(f"bench.{a.backend}_bench").MODES[0]
    only = {s for s in a.only.split(",") if s} or None
    if a.task == "compile":
        res = run_compile(a.backend, mode, a.threads, a.budget, only, a.fresh, a.limit)
    else:
        res = run_set(a.backend, mode, a.threads, a.budget, a.check_dir, only)
    text = json.dumps(res, indent=1)
    if a.out:
        a.out.write_text(text)
    else:
        print(text)


if __name__ == "__main__":
    main()
