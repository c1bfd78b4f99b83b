"""Spore (PyNative and Graph mode) vs a numpy reference vs PyTorch: per-op forward+backward,
training-step throughput, compile time, and the dataset pipeline's parallel map.

    .venv/bin/python bench/run.py                 # what `make bench` runs (~3-4 minutes on 2 cores)
    .venv/bin/python bench/run.py --quick         # shorter timings, for a smoke run (~1 minute)
    SPORE_BENCH_TORCH_PYTHON=/path/to/python bench/run.py   # PyTorch from another interpreter

Sections: (a) ops and (b) training steps in both Spore modes beside numpy and PyTorch eager, (c) Graph
mode's speed-up per network, per thread count; (d) compile time (Spore Graph mode, and torch.compile
when it works here: a cold compile over --torch-compile-limit seconds or a failure prints n/a with the
reason); the issue's targets; (e) bench/bench_dataset.py's table (map with 1 vs 2 workers); (f)
bench/bench_graph_break.py's table (how much of Graph mode's speed-up a `print` in construct keeps);
(g) bench/bench_startup.py's table (`import spore` and the kernel's start-up beside `import torch` and
a stock ipykernel); (h) bench/bench_lsp.py's table (the language server: start to first diagnostics,
300 / 3,000 / 10,000-line files, a one-character edit, hover and completion, peak RSS, beside `ruff
check` and `ast.parse` on the same files); (i) bench/bench_debug.py's table (the debug adapter: time to first
stop, breakpoint-free overhead of a training loop, one `next`, spore-debug beside debugpy.adapter); (j)
bench/bench_parallel.py (MPI all-reduce bandwidth beside mpi4py, 1 vs 2 ranks, overlap on/off); (k)
bench/bench_speed_load.py (1 and 2 threads with 0, 1, 2 busy processes beside PyTorch eager); (l)
bench/bench_inference.py (ONNX node-suite pass counts beside onnxruntime, batch-1/32 latency for the zoo
in Graph mode, spore.lite float/int8, onnxruntime float/int8 and PyTorch eager when installed, lite import
time and RSS); (m)
bench/bench_quant.py (static int8 PTQ: Spore's int8 Cell, spore.lite and onnxruntime at batch 1/32 beside
float32, with accuracy); (n) bench/bench_gemm_rows.py (team_sgemm's row padding of power-of-two B
operands off vs on: single products beside torch.mm, the GEMM net's steps). `--skip
parallel,speed_load` leaves side benches out.

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
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script: make `bench` importable as a package
    sys.path.insert(0, str(ROOT))

from bench import report  # noqa: E402
from bench.cases import TRAIN_CASES  # noqa: E402

THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
INFO_VARS = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")
SPORE_MODES = ("pynative", "graph")  # as spore_bench.MODES


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
                   "ratios in (a), (b) are Spore time / other time, in (c) Graph's speed-up"),
    ]
    lines = ["Spore benchmark"] + [f"  {k:<18}: {v}" for k, v in facts]
    return "\n".join(lines)


def run_worker(python: str, backend: str, mode: str, threads: int, budget: float, check_dir: Path | None,
               only: str, task: str = "measure", extra: Sequence[str] = (),
               timeout: float | None = None) -> dict[str, Any]:
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
    cmd += ["--task", task, *extra]
    label = f"{backend}[{mode}]" + (" compile" if task == "compile" else "")
    t0, load0 = time.perf_counter(), os.getloadavg()[0]
    try:
        p = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)
        res = json.loads(out.read_text()) if p.returncode == 0 else None
        tail = "" if res else (p.stderr.strip().splitlines() or ["no output"])[-1]
    except subprocess.TimeoutExpired:
        res, tail = None, f"timed out after {timeout:.0f} s"
    finally:
        out.unlink(missing_ok=True)
    dt, load1 = time.perf_counter() - t0, os.getloadavg()[0]
    if res is None:
        print(f"  {label} x{threads}: worker failed ({tail})", file=sys.stderr)
        return {"info": {}, "records": [], "failed": tail}
    for r in res["records"]:
        r["load"] = [round(load0, 2), round(load1, 2)]  # 1-min load average before/after: the noise gauge
    n_err = sum("error" in r for r in res["records"])
    print(f"  {label} x{threads}: {len(res['records'])} cases in {dt:.1f}s"
          + (f", {n_err} n/a" if n_err else ""), file=sys.stderr)
    return res


def compile_failure_records(backend: str, mode: str, threads: int, reason: str, only: str) -> list[dict[str, Any]]:
    """A compile worker that crashed or timed out: one error record per training case, so (d) says why."""
    names = [tc.name for tc in TRAIN_CASES if not only or tc.name in only.split(",")]
    return [{"backend": backend, "mode": mode, "threads": threads, "kind": "compile", "case": n,
             "error": f"torch.compile worker: {reason}" if backend == "torch" else reason} for n in names]


def run_side_bench(script: str, args: list[str], timeout: float = 300) -> str:
    """One of bench/'s stand-alone scripts in its own process (each pins BLAS to 1 thread): its table."""
    if not (ROOT / "bench" / script).exists():
        return f"n/a: bench/{script} is not in this checkout"
    cmd = [sys.executable, str(ROOT / "bench" / script), *args]
    t0 = time.perf_counter()
    try:
        p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return f"n/a: {script} timed out after {timeout:.0f} s"
    print(f"  {script}: {time.perf_counter() - t0:.1f}s", file=sys.stderr)
    if p.returncode != 0:
        return f"n/a: {script} failed: " + (p.stderr.strip().splitlines() or ["no output"])[-1]
    return p.stdout.rstrip()


@dataclass(frozen=True)
class SideBench:
    """A stand-alone bench script whose table `make bench` prints after the main sets."""

    key: str              # JSON key and --skip name
    title: str            # the table's heading
    script: str
    quick: tuple[str, ...]
    full: tuple[str, ...] = ()
    timeout: float = 300
    torch_flag: bool = False   # passes --no-torch through

    def args(self, quick: bool, no_torch: bool) -> list[str]:
        return [*(self.quick if quick else self.full), *(["--no-torch"] if self.torch_flag and no_torch else [])]


SIDE_BENCHES = (
    SideBench("dataset", "(e) dataset: map(num_parallel_workers=1 vs 2)", "bench_dataset.py",
              ("--samples", "32", "--repeats", "2")),
    SideBench("graph_break", "(f) graph breaks: one print in construct", "bench_graph_break.py",
              ("--steps", "50", "--repeats", "2")),
    SideBench("startup", "(g) start-up: import spore and the Spore kernel", "bench_startup.py",
              ("--repeats", "2"), ("--repeats", "5"), torch_flag=True),
    SideBench("lsp", "(h) language server: spore-lsp latency", "bench_lsp.py",
              ("--repeats", "10"), ("--repeats", "30")),
    SideBench("debug", "(i) debug adapter: spore-debug beside debugpy.adapter", "bench_debug.py",
              ("--repeats", "2"), ("--repeats", "3")),
    SideBench("parallel", "(j) data parallel on MPI: all-reduce bandwidth, 1 vs 2 ranks, overlap",
              "bench_parallel.py", ("--quick",), timeout=1200),
    SideBench("speed_load", "(k) threads under load, cold vs warm tuning cache, O0 vs O2-bf16/fp16",
              "bench_speed_load.py", ("--quick",), timeout=900),
    SideBench("inference", "(l) ONNX node suite and inference: Spore Graph, spore.lite, onnxruntime",
              "bench_inference.py", ("--quick",), timeout=900),
    SideBench("quant", "(m) int8 static PTQ: Spore fp32/int8, spore.lite and onnxruntime fp32/int8, accuracy",
              "bench_quant.py", ("--quick",), timeout=900),
    SideBench("gemm_rows", "(n) power-of-two GEMM operands: team_sgemm's row padding off vs on",
              "bench_gemm_rows.py", ("--quick",), timeout=900, torch_flag=True),
)


def main(argv: list[str] | None = None) -> int:
    """Run every set, print the header and the tables; optionally write the raw results as JSON."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--threads", default="1,2", help="comma-separated thread counts (default 1,2)")
    ap.add_argument("--budget", type=float, default=0.4, help="seconds of timed calls per measurement")
    ap.add_argument("--rounds", type=int, default=4,
                    help="repeat every set this many times and keep each case's fastest median "
                         "(default 4: each of the two alternating set orders twice)")
    ap.add_argument("--quick", action="store_true", help="budget 0.15 s, 1 round: a fast, noisier smoke run")
    ap.add_argument("--only", default="", help="comma-separated case names (e.g. matmul,mlp)")
    ap.add_argument("--no-torch", action="store_true", help="skip PyTorch even if it is importable")
    ap.add_argument("--torch-compile-limit", type=float, default=60.0,
                    help="seconds a torch.compile first step may take before it is reported n/a (0: skip it)")
    ap.add_argument("--no-dataset", action="store_true", help="skip the dataset (parallel map) table")
    ap.add_argument("--skip", default="", help="comma-separated side benches to skip: "
                    + ",".join(b.key for b in SIDE_BENCHES))
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
    t_compile = thread_counts[0]  # compile time hardly depends on threads: measured at the first count only
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
            if "graph" in SPORE_MODES:  # Graph mode's compile time, best of the rounds like every other number
                res = run_worker(sys.executable, "spore", "graph", t_compile, budget / 2, None, a.only, "compile")
                results.extend(res["records"] or compile_failure_records("spore", "graph", t_compile,
                                                                         res.get("failed", "no records"), a.only))
        if not torch_info:
            failures.append(f"  n/a: PyTorch and torch.compile columns: torch not importable from {torch_python}"
                            + (" (--no-torch)" if a.no_torch else ""))
        elif a.torch_compile_limit <= 0:
            failures.append("  n/a: torch.compile columns: skipped (--torch-compile-limit 0)")
        if torch_info and a.torch_compile_limit > 0:
            # once, after the rounds: a cold Inductor compile is slow and leaves compiler processes behind
            res = run_worker(torch_python, "torch", "compile", t_compile, budget / 2, None, a.only, "compile",
                             ["--fresh", "2", "--limit", str(a.torch_compile_limit)],
                             timeout=2 * a.torch_compile_limit + 30)
            results.extend(res["records"] or compile_failure_records("torch", "compile", t_compile,
                                                                     res.get("failed", "no records"), a.only))
            infos["torch[compile]"] = res["info"]
        skip = {k for k in a.skip.split(",") if k} | ({"dataset"} if a.no_dataset else set())
        side_tables = {b.key: run_side_bench(b.script, b.args(a.quick, a.no_torch), b.timeout)
                       for b in SIDE_BENCHES if b.key not in skip}
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
        if "graph" in SPORE_MODES:
            print()
            print(report.render_graph(results, threads, checks))
        print(report.load_note(results, threads, os.cpu_count() or 1))
    if any(r["kind"] == "compile" for r in results):
        print()
        print("=== compile time ===")
        print(report.render_compile(results, t_compile))
        print()
        print(report.targets(results, thread_counts))
    for b in SIDE_BENCHES:
        if side_tables.get(b.key):
            print()
            print(f"=== {b.title}, bench/{b.script} ===")
            print(side_tables[b.key])
    n = "\n".join([*dict.fromkeys(failures), report.notes(results, checks)]).strip("\n")
    if n:
        print()
        print("Notes:")
        print(n)
    print(f"\nTotal bench time {time.perf_counter() - t_start:.0f}s.")
    if a.json:
        a.json.write_text(json.dumps({"header": head, "infos": infos, "records": results, **side_tables,
                                      "checks": {f"{b}[{m}]": c for (b, m), c in checks.items()}}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
