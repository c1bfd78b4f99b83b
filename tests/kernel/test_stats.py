"""Bounded tensor statistics (no kernel needed: these are plain functions)."""

from __future__ import annotations

import numpy as np
import pytest

import spore as ms
from spore_kernel import stats
from spore_kernel.tensor_view import jsonable, summary, value_table


def test_small_arrays_are_read_in_full() -> None:
    arr = np.array([[1, -2], [3, np.nan]], np.float32)
    st = stats.compute(arr, "float32")
    assert not st.sampled and st.n_read == 4
    assert (st.min, st.max, st.n_nan) == (-2.0, 3.0, 1)
    assert st.mean == pytest.approx(2 / 3)


def test_large_arrays_are_sampled_without_copying_them() -> None:
    huge = np.broadcast_to(np.float32(2.0), (50_000, 50_000))  # 2.5e9 elements, no memory behind them
    st = stats.compute(huge, "float32")
    assert st.sampled and st.n_read == stats.SAMPLE and st.size == 2_500_000_000
    assert (st.min, st.max, st.std) == (2.0, 2.0, 0.0)


def test_sample_spreads_over_the_whole_array() -> None:
    arr = np.arange(4_000_000, dtype=np.float32).reshape(2000, 2000)[:, ::-1]  # non-contiguous
    values, sampled = stats.bounded_values(arr)
    assert sampled and values.size == stats.SAMPLE
    assert values.min() < 2000 and values.max() > 3_998_000  # first and last rows are both reached


def test_nan_found_in_a_sample_is_reported_as_an_estimate_never_zero() -> None:
    arr = np.zeros(4_000_000, np.float32)
    arr[::1000] = np.nan
    st = stats.compute(arr, "float32")
    assert st.sampled and st.n_nan > 0 and st.flags()[0].startswith("NaN!≈")


def test_bfloat16_and_bool_summaries() -> None:
    t = ms.Tensor(np.array([1.5, -0.5], np.float32), ms.bfloat16)
    assert summary(t) == "Tensor[2] bfloat16 n=2 4 B x∈[-0.5, 1.5] μ=0.5 σ=1"
    b = ms.Tensor(np.array([True, True, False]))
    assert summary(b) == "Tensor[3] bool n=3 3 B true=2/3"


def test_value_table_shows_edges_of_long_axes_only() -> None:
    html = value_table(np.arange(100 * 3).reshape(100, 3))
    assert html.count("<tr>") == 9 and "<td>299</td>" in html and "<td>150</td>" not in html


def test_json_has_no_bare_nan_or_inf() -> None:
    assert jsonable({"a": [float("nan"), float("inf"), -float("inf"), 1.0]}) == {
        "a": ["NaN", "Infinity", "-Infinity", 1.0]}


@pytest.mark.parametrize(("n", "text"), [(12, "12 B"), (1536, "1.5 KiB"), (3 << 20, "3.0 MiB"), (5 << 30, "5.0 GiB")])
def test_human_bytes(n: int, text: str) -> None:
    assert stats.human_bytes(n) == text
