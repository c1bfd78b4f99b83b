"""Benchmark: data-parallel training on MPI, 1 vs 2 ranks on this machine.

Measures, each in its own mpirun job (ranks bound to their own cores, one thread each):

1. all-reduce bandwidth of 4 / 40 / 400 MB float32 buffers through Spore (its communication
   thread, `spore.communication`) beside mpi4py's own ``Allreduce`` on the same buffers (ratio);
2. training throughput (samples/s at a fixed global batch) on 1 and 2 ranks for the MLP, the
   SimpleCNN and a compute-bound wide MLP, with the scaling efficiency (speed-up / ranks);
3. overlap on vs off (bucketed all-reduce started during the backward, or all after it);
4. gradient compression (none / fp16 / top-k with error feedback): final loss and accuracy of a
   short training run on 2 ranks.

    .venv/bin/python bench/bench_parallel.py [--quick]

Every timing is the best of several repeats after a warm-up; on a 2-core machine shared with
other work the numbers move by several percent between runs.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, os.path.join(ROOT, "engine"))
sys.path.insert(0, ROOT)


# ---------------------------------------------------------------------------------------------
# the launcher side
def _mpirun(n: int, *args: str, timeout: float = 900) -> list[dict]:
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1",
               PYTHONPATH=os.pathsep.join([os.path.join(ROOT, "engine"), ROOT]))
    cmd = ["mpirun", "-n", str(n), "--map-by", "core", "--bind-to", "core", "--mca", "btl", "self,vader,tcp",
           "--mca", "btl_tcp_if_include", "lo", "--mca", "oob_tcp_if_include", "lo"]
    if os.geteuid() == 0:
        cmd.append("--allow-run-as-root")
    cmd += ["-x", "OMP_NUM_THREADS", "-x", "OPENBLAS_NUM_THREADS", "-x", "PYTHONPATH",
            sys.executable, os.path.abspath(__file__), "--worker", *args]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(args)} on {n} ranks failed:\n{proc.stderr[-3000:]}")
    return [json.loads(line[7:]) for line in proc.stdout.splitlines() if line.startswith("RESULT ")]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="fewer repeats and no 400 MB buffer")
    ap.add_argument("--worker", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    if a.worker:
        worker(a.worker)
        return
    reps = "3" if a.quick else "5"
    print("== all-reduce bandwidth, 2 ranks (algorithm bandwidth = bytes / time) ==")
    print(f"{'size':>8} {'spore ms':>10} {'mpi4py ms':>10} {'spore GB/s':>11} {'mpi4py GB/s':>12} {'ratio':>6}")
    for mb in ([4, 40] if a.quick else [4, 40, 400]):
        r = _mpirun(2, "allreduce", str(mb), reps if mb < 400 else "3")[0]
        gb = mb * 2**20 / 1e9
        print(f"{mb:>6}MB {r['spore'] * 1e3:>10.2f} {r['mpi4py'] * 1e3:>10.2f} {gb / r['spore']:>11.2f} "
              f"{gb / r['mpi4py']:>12.2f} {r['mpi4py'] / r['spore']:>6.2f}")
    print("\n== training throughput, global batch fixed, 1 thread per rank ==")
    print(f"{'network':>10} {'batch':>6} {'1 rank/s':>10} {'2 ranks/s':>10} {'speed-up':>9} {'efficiency':>10}")
    for net, batch in (("mlp", 256), ("cnn", 64), ("wide", 256), ("convnet", 32)):
        one = _mpirun(1, "train", net, str(batch), "1", reps)[0]
        two = _mpirun(2, "train", net, str(batch), "1", reps)[0]
        s = two["samples_s"] / one["samples_s"]
        print(f"{net:>10} {batch:>6} {one['samples_s']:>10.1f} {two['samples_s']:>10.1f} {s:>8.2f}x {s / 2:>9.0%}")
    print("\n== overlap: bucketed all-reduce during the backward vs after it (2 ranks) ==")
    print(f"{'network':>10} {'on ms/step':>11} {'off ms/step':>12} {'comm ms':>8} {'hidden':>7}")
    for net, batch in (("cnn", 64), ("wide", 256), ("convnet", 32)):
        on = _mpirun(2, "train", net, str(batch), "1", reps, "0.5")[0]
        off = _mpirun(2, "train", net, str(batch), "0", reps, "0.5")[0]
        hidden = (off["step_s"] - on["step_s"]) / max(off["comm_s"], 1e-9)
        print(f"{net:>10} {on['step_s'] * 1e3:>11.2f} {off['step_s'] * 1e3:>12.2f} {off['comm_s'] * 1e3:>8.2f} "
              f"{hidden:>7.0%}")
    print("\n== gradient compression, MLP, 2 ranks, 10 epochs of a synthetic 10-class task ==")
    print(f"{'compression':>12} {'final loss':>11} {'accuracy':>9} {'ms/step':>8}")
    for kind in ("none", "fp16", "topk"):
        r = _mpirun(2, "compress", kind)[0]
        print(f"{kind:>12} {r['loss']:>11.4f} {r['accuracy']:>9.3f} {r['step_s'] * 1e3:>8.2f}")


# ---------------------------------------------------------------------------------------------
# the rank side
def worker(args: list[str]) -> None:
    from spore.communication import init

    init()
    {"allreduce": _allreduce, "train": _train, "compress": _compress}[args[0]](*args[1:])


def _emit(result: dict) -> None:
    from spore.communication import get_rank

    if get_rank() == 0:
        print("RESULT " + json.dumps(result), flush=True)


def _allreduce(mb: str, reps: str) -> None:
    import numpy as np
    from mpi4py import MPI

    from spore.communication import _backend as B

    buf = np.ones(int(float(mb) * 2**20) // 4, np.float32)
    comm = MPI.COMM_WORLD

    def spore_once() -> None:
        B.run(lambda: comm.Allreduce(MPI.IN_PLACE, buf, op=MPI.SUM), "bench")

    def mpi_once() -> None:
        comm.Allreduce(MPI.IN_PLACE, buf, op=MPI.SUM)

    times: dict[str, list[float]] = {"spore": [], "mpi4py": []}
    for fn in (spore_once, mpi_once):   # warm-up
        fn()
    for _ in range(int(reps)):
        for name, fn in (("spore", spore_once), ("mpi4py", mpi_once)):
            comm.Barrier()
            t0 = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - t0)
    _emit({k: min(v) for k, v in times.items()})


def _net(name: str):
    from spore import nn
    from tests.parallel.nets import make_net

    if name == "wide":   # 3 x 1024-wide layers: ~3M parameters (12 MB of gradients), ~5 GFLOP per step at 256
        return nn.SequentialCell(nn.Dense(1024, 1024), nn.ReLU(), nn.Dense(1024, 1024), nn.ReLU(),
                                 nn.Dense(1024, 10)), (1024,), 10
    if name == "convnet":   # compute-bound: 3x3 convolutions on 64x64 images, ~60K parameters (0.25 MB)
        return nn.SequentialCell(nn.Conv2d(3, 32, 3), nn.ReLU(), nn.Conv2d(32, 32, 3), nn.ReLU(), nn.MaxPool2d(2, 2),
                                 nn.Conv2d(32, 64, 3), nn.ReLU(), nn.MaxPool2d(4, 4), nn.Flatten(),
                                 nn.Dense(64 * 8 * 8, 10)), (3, 64, 64), 10
    return make_net(name)


def _train(net_name: str, global_batch: str, overlap: str, reps: str, bucket_mb: str = "25") -> None:
    import numpy as np

    import spore as ms
    from spore import nn
    from spore.communication import get_group_size, get_rank

    size, rank = get_group_size(), get_rank()
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True,
                                 comm_overlap=overlap == "1",
                                 comm_fusion={"allreduce": {"mode": "size", "config": float(bucket_mb)}})
    ms.set_seed(0)
    net, shape, classes = _net(net_name)
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")),
                               nn.SGD(net.trainable_params(), learning_rate=0.01))
    local = int(global_batch) // size
    rng = np.random.default_rng(rank)
    x = ms.Tensor(rng.standard_normal((local,) + shape).astype(np.float32))
    y = ms.Tensor(rng.integers(0, classes, local).astype(np.int32))
    for _ in range(2):
        step(x, y)
    steps = 10 if net_name not in ("wide", "convnet") else 4
    times, comm = [], []
    reducer = step.grad_reducer
    for _ in range(int(reps)):
        from spore.communication import _backend as B

        B.barrier()
        t0 = time.perf_counter()
        for _ in range(steps):
            step(x, y)
            if hasattr(reducer, "last_step_events"):
                comm.append(sum(t1 - t0_ for _, t0_, t1 in reducer.last_step_events))
        times.append((time.perf_counter() - t0) / steps)
    step_s = min(times)
    _emit({"step_s": step_s, "samples_s": int(global_batch) / step_s,
           "comm_s": statistics.median(comm) if comm else 0.0})


def _compress(kind: str) -> None:
    import numpy as np

    import spore as ms
    import spore.dataset as ds
    from spore import nn
    from spore.train import Model

    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True,
                                 grad_compression=None if kind == "none" else kind, topk_ratio=0.05)
    ms.set_seed(0)
    rng = np.random.default_rng(0)
    centers = rng.standard_normal((10, 20)).astype(np.float32)          # overlapping classes: accuracy < 1
    labels = rng.integers(0, 10, 2048).astype(np.int32)
    feats = (centers[labels] + 1.5 * rng.standard_normal((2048, 20)).astype(np.float32)).astype(np.float32)
    net = nn.SequentialCell(nn.Dense(20, 64), nn.ReLU(), nn.Dense(64, 10))
    model = Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
                  nn.Momentum(net.trainable_params(), learning_rate=0.02, momentum=0.9), metrics={"accuracy", "loss"})
    train = ds.NumpySlicesDataset({"x": feats, "y": labels}, shuffle=True).batch(32)
    t0 = time.perf_counter()
    model.train(10, train)
    elapsed = time.perf_counter() - t0
    m = model.eval(ds.NumpySlicesDataset({"x": feats, "y": labels}, shuffle=False).batch(256))
    _emit({"loss": m["loss"], "accuracy": m["accuracy"], "step_s": elapsed / (10 * 2048 / 64)})


if __name__ == "__main__":
    main()
