"""Module-level operations and sources for the dataset tests.

Worker processes are spawned and load operations by module and name, so whatever a
``python_multiprocessing=True`` test sends to workers must live in an importable module, not
inside a test function.
"""

from __future__ import annotations

import gzip
import os
import struct

import numpy as np

import spore.dataset.vision as vision


def square_plus_one(x):
    """A pure NumPy per-sample operation."""
    return x * x + 1


def fails_on_five(x):
    """Raises on the sample whose value is 5, so the error must name sample 5."""
    if int(x) == 5:
        raise ValueError("value five is not allowed")
    return x


def crop_flip_pipeline():
    """Random transforms whose draws must not depend on which worker runs a sample."""
    return [vision.RandomCrop(6, padding=1), vision.RandomHorizontalFlip(0.5), vision.HWC2CHW()]


class SquaresSource:
    """A random-accessible source: row i is (i, i*i) as Python ints."""

    def __init__(self, n: int) -> None:
        self.n = n

    def __getitem__(self, i):
        return i, i * i

    def __len__(self):
        return self.n


def write_idx(path: str, array: np.ndarray, gz: bool = False) -> None:
    """Write ``array`` (uint8) as an idx file: magic 0x0800|ndim, big-endian dims, raw bytes."""
    header = struct.pack(">I", 0x0800 | array.ndim) + b"".join(struct.pack(">I", d) for d in array.shape)
    data = header + np.ascontiguousarray(array, dtype=np.uint8).tobytes()
    opener = gzip.open if gz else open
    with opener(path, "wb") as f:
        f.write(data)


def write_mnist(root: str, n_train: int, n_test: int, gz: bool = False, seed: int = 0):
    """Small MNIST-format files; returns (train_images, train_labels, test_images, test_labels)."""
    rng = np.random.default_rng(seed)
    out = []
    for prefix, n in (("train", n_train), ("t10k", n_test)):
        images = rng.integers(0, 256, (n, 28, 28), dtype=np.uint8)
        labels = rng.integers(0, 10, n, dtype=np.uint8)
        suffix = ".gz" if gz else ""
        write_idx(os.path.join(root, f"{prefix}-images-idx3-ubyte{suffix}"), images, gz)
        write_idx(os.path.join(root, f"{prefix}-labels-idx1-ubyte{suffix}"), labels, gz)
        out += [images, labels]
    return tuple(out)


def write_cifar_bin(path: str, images_chw: np.ndarray, labels: np.ndarray) -> None:
    """CIFAR-10 binary records: one label byte, then 3072 bytes of R, G, B planes."""
    with open(path, "wb") as f:
        for img, lab in zip(images_chw, labels, strict=True):
            f.write(bytes([int(lab)]))
            f.write(np.ascontiguousarray(img, dtype=np.uint8).tobytes())


def with_pid(image):
    """Tags a sample with the id of the process that ran the operation."""
    return image, np.int64(os.getpid())
