"""O2's fast paths against the reference paths (issue 18), per training step, 1 thread.

    OMP_NUM_THREADS=1 .venv/bin/python bench/bench_amp_fast_paths.py [--seconds S] [--nets mlp,simplecnn,gemm]

For each net (bench_speed_load's MLP, SimpleCNN and Dense 1024-4096-4096-10) and mode, five training
cells in one process: O0, O2-bf16 and O2-fp16 with `spore.amp.lowp.reference_paths()` (the plain
casts and conversions, as before the fast paths) and without it. Their steps are interleaved in
rounds and each keeps its fastest round, timed in the thread's CPU time (the machine is shared:
wall time swung by 2x with other processes' load, CPU time far less). Both paths give the same
bits (tests/amp/test_fast_paths.py), so the ratio is what the fast paths save.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_speed_load as B  # noqa: E402  (the nets and data of table (c))

VARIANTS = ("O0", "bf16-ref", "bf16", "fp16-ref", "fp16")


def run(net_name: str, mode: str, seconds: float) -> dict[str, float]:
    """Fastest-round ms per step of each variant for one net and mode."""
    import spore as ms
    from spore import nn
    from spore.amp import build_train_network, lowp

    ms.set_context(mode=ms.GRAPH_MODE if mode == "graph" else ms.PYNATIVE_MODE)
    x, y = B._data(net_name)
    xd, yd = ms.Tensor(x), ms.Tensor(y)
    cells = {}
    for v in VARIANTS:
        lowp._FAST[0] = not v.endswith("-ref")
        ms.set_seed(0)
        net = B._spore_net(net_name)
        loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
        opt = nn.Momentum(net.trainable_params(), learning_rate=0.01, momentum=0.9)
        if v == "O0":
            cell = nn.TrainOneStepCell(nn.WithLossCell(net, loss), opt).set_train()
        else:
            dt = {"bf16": ms.bfloat16, "fp16": ms.float16}[v.split("-")[0]]
            cell = build_train_network(net, opt, loss, level="O2", cast_model_type=dt, loss_scale_manager=None)
        for _ in range(3):
            cell(xd, yd).asnumpy()
        cells[v] = cell
    per = 2 if net_name == "gemm" else 20
    best = {v: float("inf") for v in cells}
    t_end = time.perf_counter() + seconds
    rounds = 0
    while rounds < 3 or time.perf_counter() < t_end:
        for v, cell in cells.items():
            lowp._FAST[0] = not v.endswith("-ref")
            t0 = time.thread_time()
            for _ in range(per):
                cell(xd, yd).asnumpy()
            best[v] = min(best[v], 1e3 * (time.thread_time() - t0) / per)
        rounds += 1
    lowp._FAST[0] = True
    return best


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seconds", type=float, default=5.0)
    ap.add_argument("--nets", default="mlp,simplecnn,gemm")
    args = ap.parse_args(argv)
    print(f"{'net':10s} {'mode':9s} " + " ".join(f"{v:>9s}" for v in VARIANTS) + "  bf16 ref/fast  fp16 ref/fast"
          "  O0/bf16  O0/fp16")
    for net in args.nets.split(","):
        for mode in ("pynative", "graph"):
            b = run(net, mode, args.seconds * (4 if net == "gemm" else 1))
            print(f"{net:10s} {mode:9s} " + " ".join(f"{b[v]:9.3f}" for v in VARIANTS)
                  + f"  {b['bf16-ref'] / b['bf16']:13.2f}x {b['fp16-ref'] / b['fp16']:13.2f}x"
                  + f"  {b['O0'] / b['bf16']:7.2f}x {b['O0'] / b['fp16']:7.2f}x", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
