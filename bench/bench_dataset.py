"""Benchmark: does ``map(num_parallel_workers=2)`` actually run twice as fast?

A CPU-heavy per-sample transform is mapped over a dataset with one worker (inline) and with two
workers as threads and as spawned processes; the table shows samples/s and the speed-up over one
worker. Two transforms are measured: a NumPy one (matrix products, which release the GIL, so
threads scale) and a pure-Python one (holds the GIL, so only processes scale). Every pipeline is
warmed up by one untimed epoch (process start-up is paid once per pipeline); then epochs of the
six configurations are interleaved and the best epoch of each is reported, so load from other
processes on a shared machine biases none of them.

    .venv/bin/python bench/bench_dataset.py [--samples 64] [--repeats 5]
"""

from __future__ import annotations

import os

for _k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_k, "1")  # one BLAS thread per worker: the parallelism measured is ours

import argparse  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "engine"))
import spore.dataset as ds  # noqa: E402

SIZE = 128


def numpy_blur(image: np.ndarray) -> np.ndarray:
    """Repeated separable blur of each channel as matrix products (BLAS releases the GIL)."""
    band = np.eye(SIZE, k=-1) + np.eye(SIZE) + np.eye(SIZE, k=1)
    band /= band.sum(axis=1, keepdims=True)
    planes = [np.ascontiguousarray(image[..., c], dtype=np.float64) for c in range(image.shape[2])]
    for _ in range(8):
        planes = [band @ p @ band.T for p in planes]
    return np.stack(planes, axis=-1).astype(np.float32)


def python_checksum(image: np.ndarray) -> np.ndarray:
    """A pure-Python loop over pixels (holds the GIL)."""
    total = 0
    for v in image[::2, ::2, 0].ravel().tolist():
        total = (total * 31 + v) % 1_000_003
    for _ in range(60000):
        total = (total * 17 + 3) % 1_000_003
    return np.int64(total)


def dataset(samples: int) -> ds.Dataset:
    rng = np.random.default_rng(0)
    return ds.NumpySlicesDataset({"image": rng.integers(0, 256, (samples, SIZE, SIZE, 3), dtype=np.uint8)},
                                 shuffle=False)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=64)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    configs = [(fn, mode, workers, procs) for fn in (numpy_blur, python_checksum)
               for mode, workers, procs in (("inline", 1, False), ("threads", 2, False), ("processes", 2, True))]
    iterators, outputs = [], []
    for fn, _, workers, procs in configs:  # build every pipeline and run one untimed warm-up epoch
        d = dataset(args.samples).map(fn, num_parallel_workers=workers, python_multiprocessing=procs)
        it = d.create_tuple_iterator(num_epochs=args.repeats + 1, output_numpy=True)
        outputs.append([r[0] for r in it])
        iterators.append(it)
    best = [0.0] * len(configs)
    for _ in range(args.repeats):  # interleaved, so a burst of load elsewhere hits every config alike
        for k, it in enumerate(iterators):
            t0 = time.perf_counter()
            n = sum(1 for _ in it)
            best[k] = max(best[k], n / (time.perf_counter() - t0))
    print(f"CPU cores: {os.cpu_count()}, samples per epoch: {args.samples}, image {SIZE}x{SIZE}x3, "
          f"best of {args.repeats} interleaved epochs, load average: {os.getloadavg()[0]:.2f}\n")
    print(f"{'transform':<16}{'mode':<11}{'workers':>8}{'samples/s':>12}{'speed-up':>10}")
    for k, (fn, mode, workers, _) in enumerate(configs):
        base = k - k % 3
        same = all(np.array_equal(a, b) for a, b in zip(outputs[base], outputs[k], strict=True))
        name = fn.__name__ if k % 3 == 0 else ""
        note = "" if same else "  (results differ from inline!)"
        print(f"{name:<16}{mode:<11}{workers:>8}{best[k]:>12.1f}{best[k] / best[base]:>9.2f}x{note}")


if __name__ == "__main__":
    main()
