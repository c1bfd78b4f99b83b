"""Speed under load, tuning-cache warm-up and mixed precision (issue 18).

    .venv/bin/python bench/bench_speed_load.py            # all three tables
    .venv/bin/python bench/bench_speed_load.py --quick    # shorter timings

(a) training steps/s at 1 and 2 threads with 0, 1 and 2 competing busy processes (started here,
bounded by a deadline and killed at the end), PyNative and Graph, MLP, SimpleCNN, the GEMM-heavy
net and a conv net above the grain (3->32->64 3x3, batch 32), beside PyTorch eager when importable
(1- and 2-thread rounds alternate in one process);
(b) LeNet-5 compile + first step with a cold and a warm conv tuning cache; (c) O0 vs O2-bf16 vs
O2-fp16 step time for the MLP, SimpleCNN and a GEMM-heavy Dense net, beside PyTorch's bf16
autocast. Every measurement runs in its own subprocess (thread pools are sized when
they load), so the environment of each row is exactly what the row says.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable
# the GEMM-heavy net and the conv net are the ones whose products use the team (above the grain)
NETS_LOAD = ("mlp", "simplecnn", "gemm", "convnet")
BATCH = {"mlp": 64, "simplecnn": 32, "lenet": 64, "gemm": 256, "convnet": 32}


# ---------------------------------------------------------------------------------------------
# Workers (run in a subprocess: `bench_speed_load.py worker '<json>'`).

def _data(net: str) -> tuple[Any, Any]:
    import numpy as np

    rng = np.random.default_rng(0)
    b = BATCH[net]
    shape = {"mlp": (b, 784), "simplecnn": (b, 3, 32, 32), "lenet": (b, 1, 28, 28), "gemm": (b, 1024),
             "convnet": (b, 3, 32, 32)}[net]
    return rng.standard_normal(shape).astype(np.float32), rng.integers(0, 10, b).astype(np.int32)


def _spore_net(name: str) -> Any:
    from spore import nn

    if name == "mlp":
        return nn.SequentialCell(nn.Dense(784, 256), nn.ReLU(), nn.Dense(256, 128), nn.ReLU(), nn.Dense(128, 10))
    if name == "gemm":
        return nn.SequentialCell(nn.Dense(1024, 4096), nn.ReLU(), nn.Dense(4096, 4096), nn.ReLU(),
                                 nn.Dense(4096, 10))
    if name == "convnet":  # 28M and 151M multiply-adds per conv pass: both above the GEMM grain
        return nn.SequentialCell(nn.Conv2d(3, 32, 3, pad_mode="pad", padding=1), nn.ReLU(),
                                 nn.MaxPool2d(kernel_size=2, stride=2), nn.Conv2d(32, 64, 3, pad_mode="pad", padding=1),
                                 nn.ReLU(), nn.MaxPool2d(kernel_size=2, stride=2), nn.Flatten(),
                                 nn.Dense(64 * 8 * 8, 10))
    if name == "simplecnn":
        return nn.SequentialCell(nn.Conv2d(3, 16, 3, pad_mode="pad", padding=1), nn.ReLU(),
                                 nn.MaxPool2d(kernel_size=2, stride=2), nn.Flatten(), nn.Dense(16 * 16 * 16, 10))
    return nn.SequentialCell(nn.Conv2d(1, 6, 5, pad_mode="pad", padding=2), nn.ReLU(),
                             nn.MaxPool2d(kernel_size=2, stride=2), nn.Conv2d(6, 16, 5, pad_mode="valid"), nn.ReLU(),
                             nn.MaxPool2d(kernel_size=2, stride=2), nn.Flatten(), nn.Dense(400, 120), nn.ReLU(),
                             nn.Dense(120, 84), nn.ReLU(), nn.Dense(84, 10))


def _torch_net(name: str) -> Any:
    import torch.nn as tnn

    if name == "mlp":
        return tnn.Sequential(tnn.Linear(784, 256), tnn.ReLU(), tnn.Linear(256, 128), tnn.ReLU(), tnn.Linear(128, 10))
    if name == "gemm":
        return tnn.Sequential(tnn.Linear(1024, 4096), tnn.ReLU(), tnn.Linear(4096, 4096), tnn.ReLU(),
                              tnn.Linear(4096, 10))
    if name == "convnet":
        return tnn.Sequential(tnn.Conv2d(3, 32, 3, padding=1), tnn.ReLU(), tnn.MaxPool2d(2),
                              tnn.Conv2d(32, 64, 3, padding=1), tnn.ReLU(), tnn.MaxPool2d(2), tnn.Flatten(),
                              tnn.Linear(64 * 8 * 8, 10))
    return tnn.Sequential(tnn.Conv2d(3, 16, 3, padding=1), tnn.ReLU(), tnn.MaxPool2d(2), tnn.Flatten(),
                          tnn.Linear(16 * 16 * 16, 10))


def _time_steps(step: Any, seconds: float, warmup: int = 3) -> dict[str, float]:
    for _ in range(warmup):
        step()
    n, t0 = 0, time.perf_counter()
    while True:
        step()
        n += 1
        el = time.perf_counter() - t0
        if el >= seconds and n >= 3:
            return {"steps_per_s": n / el, "ms_per_step": 1e3 * el / n}


def _spore_train_cell(cfg: dict[str, Any]) -> tuple[Any, Any, Any]:
    """(training step cell, x, y) for cfg's net, mode and amp level."""
    import spore as ms
    from spore import nn

    ms.set_context(mode=ms.GRAPH_MODE if cfg.get("mode") == "graph" else ms.PYNATIVE_MODE)
    ms.set_seed(0)
    net = _spore_net(cfg["net"])
    x, y = _data(cfg["net"])
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.Momentum(net.trainable_params(), learning_rate=0.01, momentum=0.9)
    amp = cfg.get("amp", "O0")
    if amp == "O0":
        step_cell = nn.TrainOneStepCell(nn.WithLossCell(net, loss), opt).set_train()
    else:
        level, dt = amp.split("-")
        from spore.amp import build_train_network

        step_cell = build_train_network(net, opt, loss, level=level,
                                        cast_model_type={"bf16": ms.bfloat16, "fp16": ms.float16}[dt],
                                        loss_scale_manager=None)
    return step_cell, ms.Tensor(x), ms.Tensor(y)


def worker_spore(cfg: dict[str, Any]) -> dict[str, Any]:
    t_import = time.perf_counter()
    step_cell, xd, yd = _spore_train_cell(cfg)
    out: dict[str, Any] = {}
    if cfg.get("first_step"):
        t0 = time.perf_counter()
        step_cell(xd, yd)
        out["first_ms"] = 1e3 * (time.perf_counter() - t0)
        out["import_to_first_ms"] = 1e3 * (time.perf_counter() - t_import)
    out.update(_time_steps(lambda: step_cell(xd, yd).asnumpy(), cfg["seconds"]))
    return out


def worker_spore_amp(cfg: dict[str, Any]) -> dict[str, Any]:
    """O0, O2-bf16 and O2-fp16 of one net in one process, their steps interleaved in rounds; the
    fastest round of each is kept. Separate processes run minutes apart on a shared machine, and
    others' load swung single runs by 2x; interleaved, the three levels see the same load."""
    import spore as ms
    from spore import nn
    from spore.amp import build_train_network

    ms.set_context(mode=ms.GRAPH_MODE if cfg.get("mode") == "graph" else ms.PYNATIVE_MODE)
    x, y = _data(cfg["net"])
    xd, yd = ms.Tensor(x), ms.Tensor(y)
    cells = {}
    for amp in ("O0", "O2-bf16", "O2-fp16"):
        ms.set_seed(0)
        net = _spore_net(cfg["net"])
        loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
        opt = nn.Momentum(net.trainable_params(), learning_rate=0.01, momentum=0.9)
        if amp == "O0":
            cell = nn.TrainOneStepCell(nn.WithLossCell(net, loss), opt).set_train()
        else:
            level, dt = amp.split("-")
            cell = build_train_network(net, opt, loss, level=level,
                                       cast_model_type={"bf16": ms.bfloat16, "fp16": ms.float16}[dt],
                                       loss_scale_manager=None)
        for _ in range(3):
            cell(xd, yd).asnumpy()
        cells[amp] = cell
    per_round = 2 if cfg["net"] == "gemm" else 20
    best = {amp: float("inf") for amp in cells}
    t_end = time.perf_counter() + cfg["seconds"] * 3
    rounds = 0
    while rounds < 3 or time.perf_counter() < t_end:
        for amp, cell in cells.items():
            t0 = time.perf_counter()
            for _ in range(per_round):
                cell(xd, yd).asnumpy()
            best[amp] = min(best[amp], 1e3 * (time.perf_counter() - t0) / per_round)
        rounds += 1
    return {"ms_per_step": best, "rounds": rounds}


def _torch_step(cfg: dict[str, Any]) -> Any:
    import torch

    torch.manual_seed(0)
    net = _torch_net(cfg["net"])
    x, y = _data(cfg["net"])
    xt, yt = torch.from_numpy(x), torch.from_numpy(y).long()
    opt = torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.9)
    lossf = torch.nn.CrossEntropyLoss()
    bf16 = cfg.get("amp") == "O2-bf16"

    def step() -> None:
        opt.zero_grad()
        if bf16:
            with torch.autocast("cpu", dtype=torch.bfloat16):
                out = net(xt)
            loss = lossf(out.float(), yt)
        else:
            loss = lossf(net(xt), yt)
        loss.backward()
        opt.step()
        loss.item()

    return step


def worker_torch(cfg: dict[str, Any]) -> dict[str, Any]:
    import torch

    torch.set_num_threads(int(cfg["threads"]))
    return _time_steps(_torch_step(cfg), cfg["seconds"])


def worker_load(cfg: dict[str, Any]) -> dict[str, Any]:
    """1 and 2 threads of one training step in one process, alternating in short rounds (the team is
    resized between rounds: Spore's `_kernels.set_num_threads`, PyTorch's `torch.set_num_threads`).

    Why one process: separate 1- and 2-thread processes run seconds apart on a shared machine, and
    the other processes' load swung single runs by up to 2x, more than the effect measured. Rounds
    a few ms to ~200 ms long, alternated, see the same load; the median round of each team size is
    reported. The 2-thread team's second thread sleeps through the 1-thread rounds (passive wait)."""
    if cfg["backend"] == "torch":
        import torch

        step, set_threads = _torch_step(cfg), torch.set_num_threads
    else:
        from spore import _kernels

        cell, xd, yd = _spore_train_cell(cfg)

        def step() -> None:
            cell(xd, yd).asnumpy()

        set_threads = _kernels.set_num_threads
    teams = (1, 2)
    for t in teams:
        set_threads(t)
        for _ in range(3):
            step()
    t0 = time.perf_counter()
    step()
    per_round = max(1, int(0.02 / max(time.perf_counter() - t0, 1e-6)))  # rounds of ~20 ms or one step
    rounds: dict[int, list[float]] = {t: [] for t in teams}
    t_end = time.perf_counter() + cfg["seconds"]
    while len(rounds[1]) < cfg.get("min_rounds", 5) or time.perf_counter() < t_end:
        for t in teams if len(rounds[1]) % 2 == 0 else teams[::-1]:
            set_threads(t)
            t0 = time.perf_counter()
            for _ in range(per_round):
                step()
            rounds[t].append((time.perf_counter() - t0) / per_round)
    med = {t: sorted(v)[len(v) // 2] for t, v in rounds.items()}
    return {"steps_per_s": {str(t): 1.0 / med[t] for t in teams}, "rounds": len(rounds[1]),
            "per_round": per_round}


# ---------------------------------------------------------------------------------------------
# Driver.

def run_worker(cfg: dict[str, Any], env_extra: dict[str, str] | None = None, timeout: float = 300) -> dict[str, Any]:
    """One measurement in a fresh interpreter; {'error': ...} instead of raising."""
    env = dict(os.environ)
    t = str(cfg["threads"])
    env.update(OMP_NUM_THREADS=t, OPENBLAS_NUM_THREADS=t, MKL_NUM_THREADS=t, SPORE_NUM_THREADS=t)
    env.update(env_extra or {})
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    try:
        p = subprocess.run([PY, str(Path(__file__).resolve()), "worker", json.dumps(cfg)], env=env,
                           capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": "timeout"}
    if p.returncode != 0:
        return {"error": (p.stderr.strip().splitlines() or ["failed"])[-1][:120]}
    return json.loads(p.stdout.strip().splitlines()[-1])


class BusyProcs:
    """`n` processes spinning on a CPU each, bounded by `limit` seconds even if this one dies."""

    def __init__(self, n: int, limit: float) -> None:
        code = f"import time\nt=time.monotonic()+{limit}\nwhile time.monotonic()<t: pass"
        self.procs = [subprocess.Popen([PY, "-c", code]) for _ in range(n)]

    def __enter__(self) -> BusyProcs:
        return self

    def __exit__(self, *exc: object) -> None:
        for p in self.procs:
            p.kill()
        for p in self.procs:
            p.wait()


def has_torch() -> bool:
    return subprocess.run([PY, "-c", "import torch"], capture_output=True).returncode == 0


def cpu_flags() -> str:
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return "unknown"
    model = next((ln.split(":", 1)[1].strip() for ln in text.splitlines() if ln.startswith("model name")), "?")
    flags = set(next((ln.split(":", 1)[1].split() for ln in text.splitlines() if ln.startswith("flags")), []))
    want = ["avx2", "fma", "f16c", "avx512f", "avx512_bf16", "avx512_fp16", "amx_bf16", "amx_tile", "avx_vnni"]
    have = [f for f in want if f in flags]
    missing = [f for f in want if f not in flags]
    return f"{model}; {os.cpu_count()} CPUs; has {' '.join(have) or '-'}; lacks {' '.join(missing) or '-'}"


def table(title: str, head: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(str(r[i])) for r in [head] + rows) for i in range(len(head))]
    fmt = "  ".join(f"{{:<{w}}}" for w in widths)
    lines = [title, fmt.format(*head), fmt.format(*["-" * w for w in widths])]
    lines += [fmt.format(*[str(c) for c in r]) for r in rows]
    return "\n".join(lines)


def _sps(r: dict[str, Any]) -> str:
    return f"{r['steps_per_s']:.0f}" if "steps_per_s" in r else f"n/a ({r.get('error')})"


def section_load(seconds: float, torch_ok: bool, env_extra: dict[str, str] | None = None) -> str:
    rows = []
    backends = [("spore", "pynative"), ("spore", "graph")] + ([("torch", "eager")] if torch_ok else [])
    for busy in (0, 1, 2):
        with BusyProcs(busy, limit=600):
            for net in NETS_LOAD:
                for backend, mode in backends:
                    r = run_worker({"backend": backend, "load": True, "net": net, "mode": mode, "threads": 2,
                                    "seconds": seconds * (2 if net in ("gemm", "convnet") else 1)}, env_extra)
                    if "steps_per_s" not in r:
                        rows.append([str(busy), net, f"{backend} {mode}", "n/a", "n/a", str(r.get("error"))])
                        continue
                    s1, s2 = r["steps_per_s"]["1"], r["steps_per_s"]["2"]
                    rows.append([str(busy), net, f"{backend} {mode}", f"{s1:.1f}", f"{s2:.1f}", f"{s2 / s1:.2f}",
                                 str(r["rounds"])])
    return table("(a) training steps/s under load: 1 vs 2 threads with 0/1/2 busy processes (one process per row, "
                 "1- and 2-thread rounds alternating; medians)",
                 ["busy", "net", "backend", "1 thread", "2 threads", "2t/1t", "rounds"], rows)


def section_cache(seconds: float) -> str:
    rows = []
    with tempfile.TemporaryDirectory() as d:
        env = {"SPORE_CACHE_DIR": d, "SPORE_TUNING": "cache"}
        for mode in ("pynative", "graph"):
            for label in ("cold", "warm", "warm"):
                if label == "cold":
                    for f in Path(d).glob("*"):
                        f.unlink()
                r = run_worker({"backend": "spore", "net": "lenet", "mode": mode, "threads": 1, "seconds": seconds,
                                "first_step": True}, env)
                if "first_ms" in r:
                    rows.append([mode, label, f"{r['first_ms']:.1f}", f"{r['ms_per_step']:.2f}",
                                 f"{r['first_ms'] / r['ms_per_step']:.1f}x"])
                else:
                    rows.append([mode, label, "n/a", "n/a", str(r.get("error"))])
    return table("(b) LeNet-5 b64, 1 thread: compile + first step with a cold and a warm tuning cache",
                 ["mode", "cache", "compile+first ms", "steady ms", "first/steady"], rows)


def _best(cfg: dict[str, Any], repeats: int) -> dict[str, Any]:
    """The fastest of `repeats` runs of one configuration: the machine is shared, and load from other
    processes only ever adds time."""
    runs = [run_worker(cfg) for _ in range(repeats)]
    ok = [r for r in runs if "ms_per_step" in r]
    return min(ok, key=lambda r: r["ms_per_step"]) if ok else runs[-1]


def section_amp(seconds: float, torch_ok: bool, repeats: int = 2) -> str:
    rows = []

    def ms(r: dict[str, Any]) -> str:
        return f"{r['ms_per_step']:.2f}" if "ms_per_step" in r else f"n/a ({r.get('error')})"

    def ratio(a: dict[str, Any], b: dict[str, Any]) -> str:
        return f"{a['ms_per_step'] / b['ms_per_step']:.2f}x" if "ms_per_step" in a and "ms_per_step" in b else "n/a"

    for net in ("mlp", "simplecnn", "gemm"):
        secs = seconds if net != "gemm" else max(seconds, 2.0)
        t = {}
        if torch_ok:
            t = {amp: _best({"backend": "torch", "net": net, "threads": 1, "seconds": secs, "amp": amp}, repeats)
                 for amp in ("O0", "O2-bf16")}
        for mode in ("pynative", "graph"):
            r = run_worker({"backend": "spore-amp", "net": net, "mode": mode, "threads": 1, "seconds": secs})
            res = ({amp: {"ms_per_step": v} for amp, v in r["ms_per_step"].items()} if "ms_per_step" in r
                   else {amp: r for amp in ("O0", "O2-bf16", "O2-fp16")})
            rows.append([net, mode, ms(res["O0"]), ms(res["O2-bf16"]), ms(res["O2-fp16"]),
                         ratio(res["O0"], res["O2-bf16"]), ratio(res["O0"], res["O2-fp16"]),
                         ms(t["O0"]) if t else "-", ms(t["O2-bf16"]) if t else "-"])
    return table("(c) ms per training step, 1 thread, the three levels interleaved in one process (fastest "
                 "round; torch: best of 2 runs): O0 vs O2-bf16 vs O2-fp16 (gemm = Dense "
                 "1024-4096-4096-10 b256)",
                 ["net", "mode", "O0", "O2-bf16", "O2-fp16", "O0/bf16", "O0/fp16", "torch fp32",
                  "torch bf16 autocast"], rows)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("cmd", nargs="?", default="all", choices=["all", "load", "cache", "amp", "worker"])
    ap.add_argument("cfg", nargs="?")
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args(argv)
    if args.cmd == "worker":
        cfg = json.loads(args.cfg)
        work = worker_load if cfg.get("load") else {"torch": worker_torch, "spore-amp": worker_spore_amp}.get(
            cfg["backend"], worker_spore)
        out = work(cfg)
        print(json.dumps(out))
        return 0
    seconds = 0.5 if args.quick else 1.5
    torch_ok = has_torch()
    print(f"CPU: {cpu_flags()}")
    if args.cmd in ("all", "load"):
        print(section_load(3 * seconds, torch_ok))
        print()
    if args.cmd in ("all", "cache"):
        print(section_cache(seconds))
        print()
    if args.cmd in ("all", "amp"):
        print(section_amp(seconds, torch_ok))
    return 0


if __name__ == "__main__":
    sys.exit(main())
