"""Benchmark: team_sgemm's row padding of untransposed B operands whose rows lie a multiple of 2 KiB
apart (engine/csrc/team_gemm.h), off vs on, in one process with the two settings interleaved.

Why it exists: oneDNN's AVX2 sgemm ran such a B (every power-of-two layer width: 512, 1024, 4096
floats) up to 2x slower when B sat at a 32-byte-aligned address, and malloc hands out either
alignment, so the GEMM net's input-gradient product took 130 or 240 ms from one process (or step) to
the next. Two tables:

- single products C = A @ B with B placed at a 32-byte-aligned address and 16 bytes past one, beside
  PyTorch's torch.mm on the same operands when it is installed;
- the GEMM-heavy net's training step (Dense 1024-4096-4096-10, batch 256) in PyNative and Graph mode,
  O0 and O2-fp16, wherever its weights happened to land in this process.

One thread (OMP_NUM_THREADS=1); each entry is the fastest of its interleaved rounds.

    .venv/bin/python bench/bench_gemm_rows.py [--quick] [--no-torch]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "engine")]
os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402

SHAPES = [(256, 4096, 4096), (256, 1024, 4096), (256, 4096, 1024), (1024, 4096, 1024), (64, 1024, 1024)]


def _placed(buf: np.ndarray, offset_bytes: int, shape: tuple[int, int]) -> np.ndarray:
    """A view of `buf` of `shape` starting `offset_bytes` past a 4 KiB boundary."""
    start = ((-buf.ctypes.data) % 4096 + offset_bytes) // 4
    return buf[start:start + shape[0] * shape[1]].reshape(shape)


def _best(fn, rounds: int) -> float:
    best = float("inf")
    for _ in range(rounds):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return 1e3 * best


def products(rounds: int, torch_ok: bool) -> list[list[str]]:
    from spore import _kernels

    rng = np.random.default_rng(0)
    buf = np.empty(max(k * n for _, k, n in SHAPES) + 4096, np.float32)
    rows = []
    for m, k, n in SHAPES:
        a = rng.standard_normal((m, k)).astype(np.float32)
        src = rng.standard_normal((k, n)).astype(np.float32)
        row = [f"{m}x{k} @ {k}x{n}"]
        for off in (0, 16):
            b = _placed(buf, off, (k, n))
            b[...] = src
            t = {False: float("inf"), True: float("inf")}
            for _ in range(rounds):
                for pad in (False, True):
                    _kernels.set_gemm_row_padding(pad)
                    t[pad] = min(t[pad], _best(lambda: _kernels.sgemm(a, b, False, False), 1))
            _kernels.set_gemm_row_padding(True)
            row += [f"{t[False]:.1f}", f"{t[True]:.1f}", f"{t[False] / t[True]:.2f}x"]
        if torch_ok:
            import torch

            torch.set_num_threads(1)
            ta, tb = torch.from_numpy(a), torch.from_numpy(src)
            row.append(f"{_best(lambda: torch.mm(ta, tb), rounds):.1f}")
        else:
            row.append("n/a")
        rows.append(row)
    return rows


def steps(rounds: int) -> list[list[str]]:
    from bench.bench_speed_load import _spore_train_cell
    from spore import _kernels

    rows = []
    for mode in ("pynative", "graph"):
        for amp in ("O0", "O2-fp16"):
            cell, x, y = _spore_train_cell({"net": "gemm", "mode": mode, "amp": amp})
            cell(x, y).asnumpy()
            t = {False: float("inf"), True: float("inf")}
            for _ in range(rounds):
                for pad in (False, True):
                    _kernels.set_gemm_row_padding(pad)
                    t[pad] = min(t[pad], _best(lambda: cell(x, y).asnumpy(), 1))
            _kernels.set_gemm_row_padding(True)
            rows.append([f"GEMM net {mode} {amp}", f"{t[False]:.0f}", f"{t[True]:.0f}", f"{t[False] / t[True]:.2f}x"])
    return rows


def _table(head: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    return "\n".join(lines + ["| " + " | ".join(r) + " |" for r in rows])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="fewer rounds")
    ap.add_argument("--no-torch", action="store_true", help="leave PyTorch's column out")
    args = ap.parse_args(argv)
    torch_ok = False
    if not args.no_torch:
        try:
            import torch  # noqa: F401

            torch_ok = True
        except ImportError:
            pass
    rounds = 2 if args.quick else 4
    print("single products, ms at 1 thread (B 32-byte aligned | B 16 bytes past)")
    print(_table(["C = A @ B", "aligned: off", "on", "gain", "+16 B: off", "on", "gain", "torch.mm"],
                 products(rounds, torch_ok)))
    print()
    print("training steps, ms at 1 thread (the weights wherever this process put them)")
    print(_table(["step", "padding off", "on", "gain"], steps(rounds)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
