"""Printing a Tensor copies only what is shown (issue 15), and shows what NumPy's summarisation shows.

`repr`/`str`/`print` of a large tensor used to cast the whole buffer (bfloat16 -> float32) before
NumPy cut it to its corners: +953 MiB for a 2.5e8-element bfloat16 tensor. These tests pin both
halves: the text is exactly NumPy's (threshold 1000, 3 edge items, as MindSpore prints), and the
memory allocated while printing stays under 1 MB whatever the tensor's size.
"""

from __future__ import annotations

import contextlib
import io
import tracemalloc

import numpy as np
import pytest

import spore as ms

BF16 = ms.bfloat16.np


def numpy_text(arr: np.ndarray, sep: str) -> str:
    """The reference: NumPy printing the whole array (bfloat16 cast whole to float32 first)."""
    full = arr.astype(np.float32) if arr.dtype.kind == "V" else arr
    return np.array2string(full, separator=sep, threshold=1000, edgeitems=3)


def peak_bytes(fn) -> int:
    """Peak memory NumPy and Python allocate while `fn` runs (NumPy reports its buffers to tracemalloc)."""
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


SHAPES = [(), (1,), (7,), (1001,), (0,), (0, 2, 2), (2, 3, 0, 4, 5), (3, 0), (40, 30), (6, 6, 6, 6),
          (7, 7, 7, 7), (2, 1000), (1000, 2), (3, 5, 200), (11, 2, 13, 3)]


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.bool_, np.float16, BF16], ids=str)
def test_str_and_repr_match_numpy_summarisation(shape: tuple[int, ...], dtype: type) -> None:
    rng = np.random.default_rng(len(shape) * 31 + sum(shape))
    arr = (rng.standard_normal(shape) * 50).astype(np.float32)
    arr = (arr > 0) if dtype is np.bool_ else arr.astype(dtype)
    t = ms.Tensor(arr)
    assert str(t) == numpy_text(arr, " ")
    body = numpy_text(arr, ", ")
    head = f"Tensor(shape={list(shape)}, dtype={t.dtype}, value="
    assert repr(t) == (f"{head} {body})" if len(shape) <= 1 else f"{head}\n{body})")


def test_random_shapes_and_magnitudes_print_as_numpy_does() -> None:
    rng = np.random.default_rng(15)
    for _ in range(150):
        shape = tuple(int(n) for n in rng.integers(0, 14, size=rng.integers(0, 5)))
        arr = (rng.standard_normal(shape) * 10.0 ** rng.integers(-4, 7)).astype(np.float32)
        if rng.random() < 0.3:
            arr.flat[:: max(arr.size // 3, 1)] = np.nan
        assert str(ms.Tensor(arr)) == numpy_text(arr, " "), shape
        assert str(ms.Tensor(arr.astype(BF16))) == numpy_text(arr.astype(BF16), " "), shape


def test_printing_a_2e7_element_bfloat16_tensor_allocates_under_1_mb() -> None:
    t = ms.Tensor(np.linspace(-1, 1, 20_000_000, dtype=np.float32).reshape(4000, 5000), ms.bfloat16)
    out = io.StringIO()

    def show() -> None:
        repr(t)
        str(t)
        with contextlib.redirect_stdout(out):
            print(t)

    peak = peak_bytes(show)
    assert peak < 1 << 20, f"printing allocated {peak:,} bytes"
    assert "..." in out.getvalue() and out.getvalue().startswith("[[-1. ")
    # the measurement is real: casting the whole tensor, as printing used to, is caught by it
    assert peak_bytes(lambda: t.asnumpy().astype(np.float32)) > 70_000_000


def test_printing_a_250_million_element_bfloat16_tensor_reads_only_its_corners() -> None:
    # The case without the memory behind it: a broadcast view reads as 2.5e8 elements.
    t = ms.Tensor(np.broadcast_to(np.array(1.5, BF16), (5000, 50_000)))
    assert t.size == 250_000_000 and t.dtype is ms.bfloat16
    peak = peak_bytes(lambda: repr(t))
    assert peak < 1 << 20, f"repr allocated {peak:,} bytes"
    assert repr(t).startswith("Tensor(shape=[5000, 50000], dtype=Bfloat16, value=\n[[1.5, 1.5, 1.5, ..., 1.5")


def test_zero_length_axes_and_scalars_print() -> None:
    assert repr(ms.Tensor(np.zeros((0, 2, 2), np.float32))) == "Tensor(shape=[0, 2, 2], dtype=Float32, value=\n[])"
    assert str(ms.Tensor(np.zeros((2, 3, 0, 4, 5), BF16))) == "[]"
    assert repr(ms.Tensor(np.array(True))) == "Tensor(shape=[], dtype=Bool, value= True)"
    assert repr(ms.Tensor(np.array(2.5, BF16))) == "Tensor(shape=[], dtype=Bfloat16, value= 2.5)"
