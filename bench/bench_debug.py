"""Benchmark: the debug adapter as an editor sees it, `spore-debug` beside plain `debugpy.adapter`.

Drives both adapters over stdio with tests/debugger/dap_client.py (the client the tests use) and
measures:

- **time to first stop**: spawn the adapter, initialize, launch, set one breakpoint, until the
  `stopped` event (median of --repeats), for a plain Python program and for a Spore program whose
  breakpoint sits in a GRAPH_MODE `construct`. Under plain debugpy that breakpoint never hits (the
  Cell runs compiled): the column says so instead of giving a time;
- **breakpoint-free overhead**: a Spore training loop (an MLP's TrainOneStepCell, Graph mode and
  PyNative) timed by the program itself (so start-up is excluded) with no debugger, under
  spore-debug with no breakpoint set, and under debugpy.adapter; ratios to no debugger, best of
  --repeats interleaved rounds;
- **stepping cost**: one `next` round trip (request sent -> `stopped` received), median over the
  lines stepped: in a plain Python function under both adapters, and through a Graph-mode construct
  under spore-debug (the Cell runs eagerly while a breakpoint is in it; under debugpy: never stops);
- the debuggee hooks' per-call cost on a compiled Cell with no breakpoint in it, from
  bench/debuggee_overhead.py (engineer B's), when that script is present.

    .venv/bin/python bench/bench_debug.py [--repeats 5] [--steps 1000]
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.report import table  # noqa: E402
from tests.debugger.dap_client import DAPClient, DAPError  # noqa: E402

ADAPTERS = {"spore-debug": [sys.executable, "-m", "spore_debug"],
            "debugpy.adapter": [sys.executable, "-m", "debugpy.adapter"]}
THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
STOP_TIMEOUT = 90.0

PLAIN = textwrap.dedent("""\
    def work(n):
        a = n + 1
        b = a * 2
        c = b - 3
        d = c * c
        e = d + a
        return e


    print("result", work(4))
    """)
PLAIN_BP, PLAIN_LINES = 2, 5  # breakpoint at work's first line; five `next`s stay inside work

MODEL = textwrap.dedent("""\
    import sys
    import time

    import numpy as np

    import spore as ms
    from spore import nn

    ms.set_context(mode=ms.GRAPH_MODE if (sys.argv[1:] or ["graph"])[0] == "graph" else ms.PYNATIVE_MODE)
    ms.set_seed(0)


    class MLP(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Dense(32, 64)
            self.fc2 = nn.Dense(64, 64)
            self.fc3 = nn.Dense(64, 10)
            self.relu = nn.ReLU()

        def construct(self, x):
            h = self.relu(self.fc1(x))
            h = self.relu(self.fc2(h))
            h = h * 0.5
            out = self.fc3(h)
            return out


    def train(steps):
        net = MLP()
        loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
        step = nn.TrainOneStepCell(nn.WithLossCell(net, loss_fn), nn.SGD(net.trainable_params(), learning_rate=0.01))
        rng = np.random.default_rng(0)
        x = ms.Tensor(rng.standard_normal((16, 32)).astype(np.float32))
        y = ms.Tensor(rng.integers(0, 10, 16).astype(np.int32))
        for _ in range(5):
            step(x, y)
        t0 = time.perf_counter()
        for _ in range(steps):
            loss = step(x, y)
        print(f"LOOP {time.perf_counter() - t0:.6f} loss {float(loss):.4f}", flush=True)


    if __name__ == "__main__":
        if sys.argv[2:3] == ["infer"]:
            print("out", MLP()(ms.Tensor(np.ones((2, 32), np.float32))).shape)
        else:
            train(int(sys.argv[2]))
    """)
CONSTRUCT_BP, CONSTRUCT_LINES = 22, 3  # construct's first line; three `next`s stay inside it


def env() -> dict[str, str]:
    e = dict(os.environ)
    for k in THREAD_VARS:
        e.setdefault(k, "1")
    return e


def session(adapter: str, program: Path, args: list[str], breakpoints: list[int]) -> DAPClient:
    dap = DAPClient.spawn(ADAPTERS[adapter], env=env())
    dap.start("launch", program=str(program), args=args, console="internalConsole",
              breakpoints={str(program): [{"line": n} for n in breakpoints]} if breakpoints else None,
              exception_filters=["uncaught"], timeout=STOP_TIMEOUT)
    return dap


def wait_stop_or_end(dap: DAPClient, seen: int) -> dict | None:
    """The first `stopped` event after the `seen` ones, or None when the program ended without one."""
    dap.wait_until(lambda: len(dap.events("stopped")) > seen or bool(dap.events("terminated")),
                   STOP_TIMEOUT, "a stop or the end")
    stops = dap.events("stopped")
    return stops[seen] if len(stops) > seen else None


def first_stop(adapter: str, program: Path, args: list[str], line: int, repeats: int) -> tuple[float, float] | None:
    """Median seconds (spawn -> stopped, launch request -> stopped); None if it never stops."""
    spawn_times, launch_times = [], []
    for _ in range(repeats):
        t0 = time.perf_counter()
        dap = DAPClient.spawn(ADAPTERS[adapter], env=env())
        try:
            dap.initialize()
            t_launch = time.perf_counter()
            dap.start("launch", program=str(program), args=args, breakpoints={str(program): [{"line": line}]},
                      exception_filters=["uncaught"], timeout=STOP_TIMEOUT)
            stop = wait_stop_or_end(dap, 0)
            t1 = time.perf_counter()
            if stop is None:
                return None
            spawn_times.append(t1 - t0)
            launch_times.append(t1 - t_launch)
            dap.request("disconnect", terminateDebuggee=True)
        finally:
            dap.close()
    return statistics.median(spawn_times), statistics.median(launch_times)


def loop_seconds(text: str) -> float:
    found = re.search(r"LOOP ([0-9.]+)", text)
    if not found:
        raise RuntimeError(f"no LOOP line in the program's output: {text[-500:]!r}")
    return float(found.group(1))


def loop_once(adapter: str | None, program: Path, mode: str, steps: int) -> float:
    """Seconds of the training loop, as the program measures it, with no debugger or under `adapter`."""
    if adapter is None:
        done = subprocess.run([sys.executable, str(program), mode, str(steps)], capture_output=True, text=True,
                              env=env(), timeout=STOP_TIMEOUT, check=True)
        return loop_seconds(done.stdout)
    dap = session(adapter, program, [mode, str(steps)], [])
    try:
        dap.wait_event("terminated", timeout=STOP_TIMEOUT)
        seconds = loop_seconds(dap.output("stdout"))
        dap.request("disconnect")
        return seconds
    finally:
        dap.close()


def loop_times(program: Path, mode: str, steps: int, runs: int) -> dict[str | None, float]:
    """Best of `runs` for no debugger, spore-debug and debugpy.adapter, interleaved in rounds with the
    order rotated (load from other processes then biases none of them)."""
    configs: list[str | None] = [None, *ADAPTERS]
    best = {c: float("inf") for c in configs}
    for r in range(runs):
        for c in configs[r % 3:] + configs[:r % 3]:
            best[c] = min(best[c], loop_once(c, program, mode, steps))
    return best


def next_cost(adapter: str, program: Path, args: list[str], line: int, steps: int) -> float | None:
    """Median seconds of one `next` round trip over `steps` lines from the breakpoint at `line`;
    None if the breakpoint never hits."""
    dap = session(adapter, program, args, [line])
    try:
        stop = wait_stop_or_end(dap, 0)
        if stop is None:
            return None
        thread = stop["body"]["threadId"]
        dap.top_frame(thread)  # an editor asks for the stack at each stop: part of the warm-up only here
        times = []
        for _ in range(steps):
            seen = len(dap.events("stopped"))
            t0 = time.perf_counter()
            dap.request("next", threadId=thread)
            stop = wait_stop_or_end(dap, seen)
            times.append(time.perf_counter() - t0)
            if stop is None:
                break
        dap.request("disconnect", terminateDebuggee=True)
        return statistics.median(times)
    finally:
        dap.close()


def hooks_overhead() -> str:
    """bench/debuggee_overhead.py's table (engineer B's), or why not."""
    script = ROOT / "bench" / "debuggee_overhead.py"
    if not script.exists():
        return "n/a: bench/debuggee_overhead.py is not there"
    try:
        done = subprocess.run([sys.executable, str(script), "--calls", "300", "--repeats", "10"], capture_output=True,
                              text=True, env=env(), timeout=240)
    except subprocess.TimeoutExpired:
        return "n/a: bench/debuggee_overhead.py timed out"
    if done.returncode != 0:
        return "n/a: bench/debuggee_overhead.py failed: " + (done.stderr.strip().splitlines() or ["?"])[-1]
    return done.stdout.rstrip()


def ms(seconds: float | None, never: str = "never stops (runs compiled)") -> str:
    return never if seconds is None else f"{seconds * 1e3:.0f} ms" if seconds >= 0.1 else f"{seconds * 1e3:.1f} ms"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeats", type=int, default=5, help="sessions per time-to-first-stop cell (median)")
    ap.add_argument("--steps", type=int, default=1000, help="training steps in the overhead loop")
    a = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        plain, model = Path(tmp) / "plain.py", Path(tmp) / "model.py"
        plain.write_text(PLAIN)
        model.write_text(MODEL)

        rows = []
        for adapter in ADAPTERS:
            p = first_stop(adapter, plain, [], PLAIN_BP, a.repeats)
            g = first_stop(adapter, model, ["graph", "infer"], CONSTRUCT_BP, a.repeats)
            rows.append([adapter, ms(p[0] if p else None), ms(p[1] if p else None),
                         ms(g[0] if g else None), ms(g[1] if g else None)])
        first = table(["adapter", "plain: spawn->stop", "plain: launch->stop", "Graph construct: spawn->stop",
                       "Graph construct: launch->stop"], rows, "lrrrr")

        runs = a.repeats
        rows = []
        for mode in ("graph", "pynative"):
            t = loop_times(model, mode, a.steps, runs)
            none, ours, theirs = t[None], t["spore-debug"], t["debugpy.adapter"]
            per_step = [f"{t / a.steps * 1e3:.3f} ms" for t in (none, ours, theirs)]
            rows.append([mode, per_step[0], per_step[1], f"{ours / none:.2f}x", per_step[2], f"{theirs / none:.2f}x"])
        overhead = table(["training step (MLP, batch 16)", "no debugger", "spore-debug", "ratio",
                          "debugpy.adapter", "ratio"], rows, "lrrrrr")

        rows = []
        for adapter in ADAPTERS:
            rows.append([adapter, ms(next_cost(adapter, plain, [], PLAIN_BP, PLAIN_LINES)),
                         ms(next_cost(adapter, model, ["graph", "infer"], CONSTRUCT_BP, CONSTRUCT_LINES))])
        stepping = table(["adapter", "`next` in a plain function", "`next` in a Graph-mode construct line"], rows,
                         "lrr")
    print(f"Time to first stop (median of {a.repeats} sessions; spawn = adapter process start):")
    print(first)
    print()
    print(f"Breakpoint-free overhead ({a.steps} steps timed inside the program, best of {runs} interleaved rounds; "
          f"no breakpoint set):")
    print(overhead)
    print()
    print("Stepping (one `next` round trip, request to `stopped`, median):")
    print(stepping)
    print()
    print("Debuggee hooks on a compiled Cell with no breakpoint in it (bench/debuggee_overhead.py):")
    print(hooks_overhead())
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except DAPError as err:
        print(f"bench_debug: {err}", file=sys.stderr)
        sys.exit(1)
