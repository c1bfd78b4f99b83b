"""1 vs 2 threads at idle, per kernel and per net (issue 18's grain work).

    .venv/bin/python bench/bench_threads_grain.py kernels   # the OpenMP-parallel kernels, 1 vs 2 threads
    .venv/bin/python bench/bench_threads_grain.py nets [PKGDIR ...]  # MLP / SimpleCNN steps per build
    .venv/bin/python bench/bench_threads_grain.py regions [PKGDIR ...]  # OpenMP regions per step

Each kernel runs in one process with the team switched between 1 and 2 in alternation, best of
several repeats (a shared machine only ever takes time away). The sizes are the MLP's and
SimpleCNN's (below the grain: the target is "2 threads never slower") plus a large one each (above
it: the 2-thread speed-up must stay).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parent))


def _best_us(fn: Callable[[], Any], reps: int = 7, budget: float = 0.03) -> float:
    fn()
    n = 1
    t0 = time.perf_counter()
    fn()
    one = max(time.perf_counter() - t0, 1e-7)
    n = max(1, int(budget / one))
    best = float("inf")
    for _ in range(reps):
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        best = min(best, (time.perf_counter() - t0) / n)
    return best * 1e6


def kernels() -> None:
    import ml_dtypes
    import numpy as np

    from spore import _kernels as K

    rng = np.random.default_rng(0)
    cases: list[tuple[str, Callable[[], Any]]] = []

    def pool(tag: str, shape: tuple[int, ...]) -> None:
        x = rng.standard_normal(shape).astype(np.float32)
        y, idx = K.max_pool2d_forward(x, (2, 2), (2, 2), (0, 0, 0, 0), (1, 1), (shape[2] // 2, shape[3] // 2), False)
        cases.append((f"maxpool fwd {tag}", lambda: K.max_pool2d_forward(x, (2, 2), (2, 2), (0, 0, 0, 0), (1, 1),
                                                                          (shape[2] // 2, shape[3] // 2), False)))
        cases.append((f"maxpool fwd+relu {tag}", lambda: K.max_pool2d_forward(x, (2, 2), (2, 2), (0, 0, 0, 0), (1, 1),
                                                                               (shape[2] // 2, shape[3] // 2), True)))
        cases.append((f"maxpool bwd {tag}", lambda: K.max_pool2d_backward(y, idx, shape)))
        cases.append((f"avgpool fwd {tag}", lambda: K.avg_pool2d_forward(x, (2, 2), (2, 2), (0, 0, 0, 0),
                                                                          (shape[2] // 2, shape[3] // 2), True, 0)))

    pool("32x16x32x32", (32, 16, 32, 32))
    pool("64x6x28x28", (64, 6, 28, 28))
    pool("64x64x64x64", (64, 64, 64, 64))

    for tag, n in (("16K", 64 * 256), ("512K", 32 * 16 * 32 * 32), ("4M", 1 << 22)):
        a = rng.standard_normal(n).astype(np.float32)
        b16 = a.astype(ml_dtypes.bfloat16).view(np.uint16)
        g = rng.standard_normal(n).astype(np.float32)
        cases.append((f"f32->bf16 {tag}", lambda a=a: K.f32_to_bf16(a)))
        cases.append((f"bf16->f32 {tag}", lambda b=b16: K.bf16_to_f32(b)))
        cases.append((f"relu_grad {tag}", lambda a=a, g=g: K.relu_grad(g, a)))
        cases.append((f"bias_add_grad {tag}", lambda g=g: K.bias_add_grad(g.reshape(32, 16, -1))))

    for name, fn in cases:
        t = {}
        for _ in range(3):
            for th in (1, 2):
                K.set_num_threads(th)
                t[th] = min(t.get(th, float("inf")), _best_us(fn))
        print(f"{name:32s} 1t {t[1]:9.1f} us  2t {t[2]:9.1f} us  2t/1t speed {t[1] / t[2]:5.2f}", flush=True)


def nets(pkgs: list[str], seconds: float = 1.0, repeats: int = 4) -> None:
    """Steps/s of bench_speed_load's workers at 1 and 2 threads, best of `repeats` alternating runs;
    `pkgs`: directories each holding a `spore` package (copies of engine/ with a given build's
    _kernels .so; none: this tree), whose runs alternate so all see the same swings of a shared
    machine's load. Compare copies with copies: the same build ran up to 2x slower from this tree
    than from a copy of it in /tmp on the shared machine (cause not found)."""
    from bench_speed_load import run_worker

    builds = {Path(p).name: {"PYTHONPATH": p} for p in pkgs} or {"this": None}
    for net in ("mlp", "simplecnn"):
        for mode in ("pynative", "graph"):
            best = {(b, t): 0.0 for b in builds for t in (1, 2)}
            for _ in range(repeats):
                for b, env in builds.items():
                    for t in (1, 2):
                        r = run_worker({"backend": "spore", "net": net, "mode": mode, "threads": t,
                                        "seconds": seconds}, env)
                        best[b, t] = max(best[b, t], r.get("steps_per_s", 0.0))
            for b in builds:
                one, two = best[b, 1], best[b, 2]
                print(f"{b:6s} {net:10s} {mode:9s} 1t {one:8.0f} steps/s  2t {two:8.0f}  2t/1t {two / one:.2f}",
                      flush=True)


# An LD_PRELOAD shim counting libgomp's GOMP_parallel calls (every `omp parallel` region, Spore's
# and oneDNN's) and those that run on more than one thread; COUNT_VERBOSE=1 names each team region's
# outlined function on stderr.
_SHIM = r"""#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdatomic.h>
static atomic_long n_par, n_team;
static int verbose = -1;
typedef void (*par_t)(void (*)(void*), void*, unsigned, unsigned);
typedef int (*omt_t)(void);
void GOMP_parallel(void (*fn)(void*), void* data, unsigned nthr, unsigned flags) {
    static par_t real;
    static omt_t maxt;
    if (!real) {
        void* h = dlopen("libgomp.so.1", RTLD_NOW | RTLD_GLOBAL);
        real = (par_t)dlsym(h, "GOMP_parallel");
        maxt = (omt_t)dlsym(h, "omp_get_max_threads");
    }
    if (verbose < 0) verbose = getenv("COUNT_VERBOSE") != NULL;
    atomic_fetch_add(&n_par, 1);
    int team = nthr == 0 ? maxt() : (int)nthr;
    if (team != 1) {
        atomic_fetch_add(&n_team, 1);
        if (verbose) {
            Dl_info info;
            if (dladdr((void*)fn, &info)) fprintf(stderr, "team %d: %s\n", team, info.dli_sname ? info.dli_sname : "?");
        }
    }
    real(fn, data, nthr, flags);
}
long spore_count_par(void) { return atomic_load(&n_par); }
long spore_count_team(void) { return atomic_load(&n_team); }
"""

_COUNT = r"""import ctypes, sys
sys.path.insert(0, sys.argv[2])
lib = ctypes.CDLL(None)
import spore as ms
from spore import nn
from bench_speed_load import _data, _spore_net
cnt = ctypes.CDLL(sys.argv[1])
for mode in ("pynative", "graph"):
    for netname in ("mlp", "simplecnn"):
        ms.set_context(mode=ms.GRAPH_MODE if mode == "graph" else ms.PYNATIVE_MODE)
        ms.set_seed(0)
        net = _spore_net(netname)
        x, y = _data(netname)
        loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
        opt = nn.Momentum(net.trainable_params(), learning_rate=0.01, momentum=0.9)
        cell = nn.TrainOneStepCell(nn.WithLossCell(net, loss), opt).set_train()
        xd, yd = ms.Tensor(x), ms.Tensor(y)
        for _ in range(5): cell(xd, yd).asnumpy()
        p0, t0 = cnt.spore_count_par(), cnt.spore_count_team()
        for _ in range(10): cell(xd, yd).asnumpy()
        par, team = (cnt.spore_count_par() - p0) / 10, (cnt.spore_count_team() - t0) / 10
        print(f"{mode:9s} {netname:10s} regions/step {par:4.1f}  on 2+ threads {team:4.1f}")
"""


def regions(pkgs: list[str]) -> None:
    """OpenMP regions per training step at 2 threads (MLP, SimpleCNN; PyNative, Graph) per build:
    the grain rule's target is no team region at these nets' sizes. Needs gcc (the build's)."""
    import os
    import subprocess
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        src, lib = Path(d) / "count.c", Path(d) / "libcount.so"
        src.write_text(_SHIM)
        subprocess.run(["gcc", "-O2", "-shared", "-fPIC", str(src), "-o", str(lib), "-ldl"], check=True)
        for pkg in pkgs or [""]:
            env = dict(os.environ, OMP_NUM_THREADS="2", SPORE_NUM_THREADS="2", LD_PRELOAD=str(lib))
            if pkg:
                env["PYTHONPATH"] = pkg
            r = subprocess.run([sys.executable, "-c", _COUNT, str(lib), str(Path(__file__).resolve().parent)],
                               env=env, capture_output=True, text=True, timeout=300)
            for line in (r.stdout or r.stderr).strip().splitlines()[-4:]:
                print(f"{Path(pkg).name or 'this':8s} {line}", flush=True)


if __name__ == "__main__":
    cmd = sys.argv[1] if len(sys.argv) > 1 else "kernels"
    if cmd == "nets":
        nets(sys.argv[2:])
    elif cmd == "regions":
        regions(sys.argv[2:])
    else:
        kernels()
