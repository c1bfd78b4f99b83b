"""Spore vs a numpy reference vs PyTorch eager: per-op forward+backward and training-step throughput.

    .venv/bin/python bench/run.py                 # what `make bench` runs (~2 minutes)
    .venv/bin/python bench/run.py --quick         # shorter timings, for a smoke run
    SPORE_BENCH_TORCH_PYTHON=/path/to/python bench/run.py   # PyTorch from another interpreter

Each (backend, mode, thread count) is measured in its own subprocess with OMP_NUM_THREADS,
OPENBLAS_NUM_THREADS and MKL_NUM_THREADS set (and torch.set_num_threads): thread pools are sized at
load time, so this is the only reliable way to compare 1 and 2 threads in one run. OPENBLAS_CORETYPE
and OPENBLAS_L2_SIZE are reported and passed through untouched: they change OpenBLAS's kernel
choice, and a bench that silently set them would measure a configuration users do not have.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script: make `bench` importable as a package
    sys.path.insert(0, str(ROOT))

from bench import report  # noqa: E402

THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
INFO_VARS = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")
SPORE_MODES = ("pynative",)  # add "graph" here (and in spore_bench.MODES) when Graph mode lands


def cpu_model() -> str:
    """The CPU's marketing name from /proc/cpuinfo (falls back to platform)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def probe_torch(python: str) -> dict[str, Any] | None:
    """Version facts of the interpreter that will run the PyTorch set, or None if torch won't import."""
    code = "import json, numpy, torch; print(json.dumps({'torch': torch.__version__, 'numpy': numpy.__version__}))"
    try:
        p = subprocess.run([python, "-c", code], capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if p.returncode != 0:
        return None
    return json.loads(p.stdout.strip().splitlines()[-1])


def header(torch_python: str, torch_info: dict[str, Any] | None, thread_counts: list[int]) -> str:
    """Machine, versions and the environment knobs that decide BLAS behaviour."""
    import numpy as np

    try:
        import spore

        spore_v = spore.__version__
    except ModuleNotFoundError:
        spore_v = "not installed in this interpreter: the Spore worker measures the source tree (engine/)"
    except Exception as e:  # noqa: BLE001 - the header must print even if Spore is broken
        spore_v = f"import failed: {e}"
    try:
        affinity = len(os.sched_getaffinity(0))
    except AttributeError:
        affinity = os.cpu_count()
    torch_line = (f"{torch_info['torch']} (numpy {torch_info['numpy']}, {torch_python})" if torch_info
                  else f"not importable from {torch_python}: PyTorch columns are n/a")
    inherited = ", ".join(f"{v}={os.environ.get(v, '(unset)')}" for v in THREAD_VARS)
    facts = [
        ("CPU", f"{cpu_model()} ({platform.machine()})"),
        ("cores", f"{os.cpu_count()} logical, {affinity} usable; load average "
                  + " ".join(f"{x:.2f}" for x in os.getloadavg())),
        ("python", f"{platform.python_version()} ({sys.executable})"),
        ("numpy", np.__version__),
        ("spore", spore_v),
        ("torch", torch_line),
        *((v, f"{os.environ.get(v, '(unset)')}  (reported, never changed)") for v in INFO_VARS),
        ("threads", f"sets for {', '.join(map(str, thread_counts))} thread(s), each in a subprocess with "
                    "OMP/OPENBLAS/MKL_NUM_THREADS=N and torch.set_num_threads(N)"),
        ("this shell", inherited),
        ("timing", "median of repeated calls after warm-up, best median of the rounds; "
                   "ratios are Spore time / other time"),
    ]
    lines = ["Spore benchmark"] + [f"  {k:<18}: {v}" for k, v in facts]
    return "\n".join(lines)


def run_worker(python: str, backend: str, mode: str, threads: int, budget: float, check_dir: Path | None,
               only: str) -> dict[str, Any]:
    """One measurement set in a subprocess; a crash becomes an error record per case, not a dead bench."""
    env = dict(os.environ)
    env.update({v: str(threads) for v in THREAD_VARS})
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as f:
        out = Path(f.name)
    cmd = [python, "-m", "bench.worker", "--backend", backend, "--mode", mode, "--threads", str(threads),
           "--budget", str(budget), "--out", str(out)]
    if check_dir is not None:
        cmd += ["--check-dir", str(check_dir)]
    if only:
        cmd += ["--only", only]
    t0, load0 = time.perf_counter(), os.getloadavg()[0]
    p = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    dt, load1 = time.perf_counter() - t0, os.getloadavg()[0]
    try:
        res = json.loads(out.read_text()) if p.returncode == 0 else None
    finally:
        out.unlink(missing_ok=True)
    if res is None:
        tail = (p.stderr.strip().splitlines() or ["no output"])[-1]
        print(f"  {backend}[{mode}] x{threads}: worker failed ({tail})", file=sys.stderr)
        return {"info": {}, "records": [], "failed": tail}
    for r in res["records"]:
        r["load"] = [round(load0, 2), round(load1, 2)]  # 1-min load average before/after: the noise gauge
    n_err = sum("error" in r for r in res["records"])
    print(f"  {backend}[{mode}] x{threads}: {len(res['records'])} cases in {dt:.1f}s"
          + (f", {n_err} n/a" if n_err else ""), file=sys.stderr)
    return res


def main(argv: list[str] | None = None) -> int:
    """Run every set, print the header and the tables; optionally write the raw results as JSON."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--threads", default="1,2", help="comma-separated thread counts (default 1,2)")
    ap.add_argument("--budget", type=float, default=0.4, help="seconds of timed calls per measurement")
    ap.add_argument("--rounds", type=int, default=3,
                    help="repeat every set this many times and keep each case's fastest median (default 3)")
    ap.add_argument("--quick", action="store_true", help="budget 0.15 s, 1 round: a fast, noisier smoke run")
    ap.add_argument("--only", default="", help="comma-separated case names (e.g. matmul,mlp)")
    ap.add_argument("--no-torch", action="store_true", help="skip PyTorch even if it is importable")
    ap.add_argument("--json", type=Path, default=None, help="also write raw results here (e.g. bench/results.json)")
    a = ap.parse_args(argv)
    budget = 0.15 if a.quick else a.budget
    if a.quick:
        a.rounds = 1
    thread_counts = [int(t) for t in a.threads.split(",") if t]
    torch_python = os.environ.get("SPORE_BENCH_TORCH_PYTHON", sys.executable)
    torch_info = None if a.no_torch else probe_torch(torch_python)
    head = header(torch_python, torch_info, thread_counts)
    print(head, flush=True)

    sets: list[tuple[str, str, str]] = [(sys.executable, "spore", m) for m in SPORE_MODES]
    sets.append((sys.executable, "numpy", "ref"))
    if torch_info:
        sets.append((torch_python, "torch", "eager"))

    t_start = time.perf_counter()
    results: list[dict[str, Any]] = []
    infos: dict[str, Any] = {}
    failures: list[str] = []
    with tempfile.TemporaryDirectory(prefix="spore-bench-") as tmp:
        check_dir = Path(tmp)
        for rnd in range(a.rounds):
            # alternate the order so a burst of outside load does not always hit the same backend
            order = sets if rnd % 2 == 0 else sets[::-1]
            print(f"round {rnd + 1}/{a.rounds}:", file=sys.stderr)
            for threads in thread_counts:
                for python, backend, mode in order:
                    # correctness is thread- and round-independent: check once
                    first = rnd == 0 and threads == thread_counts[0]
                    res = run_worker(python, backend, mode, threads, budget, check_dir if first else None, a.only)
                    results.extend(res["records"])
                    if "failed" in res:
                        failures.append(f"  {backend}[{mode}] x{threads} worker crashed: {res['failed']}")
                    infos[f"{backend}[{mode}]"] = res["info"] or infos.get(f"{backend}[{mode}]", {})
        results = report.best_of_rounds(results)
        checks = {(b, m): report.check_dir_errors(check_dir, b, m) for _, b, m in sets if b != "numpy"}

    print()
    print("Backends as the workers saw them:")
    for k, v in infos.items():
        if v:
            print(f"  {k:<18}: " + ", ".join(f"{ik}={iv}" for ik, iv in v.items()))
    for threads in thread_counts:
        print()
        print(f"=== {threads} thread(s) ===")
        print(report.render(results, threads, SPORE_MODES, checks))
        print(report.load_note(results, threads, os.cpu_count() or 1))
    n = "\n".join([*dict.fromkeys(failures), report.notes(results, checks)]).strip("\n")
    if n:
        print()
        print("Notes:")
        print(n)
    print(f"\nTotal bench time {time.perf_counter() - t_start:.0f}s.")
    if a.json:
        a.json.write_text(json.dumps({"header": head, "infos": infos, "records": results,
                                      "checks": {f"{b}[{m}]": c for (b, m), c in checks.items()}}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
