"""The spore.tensor/1 bundle's renderer parts (heatmap, histogram), `json_text` for debuggees, and
the chunked statistics behind them — plain functions, no kernel needed."""

from __future__ import annotations

import json
import subprocess
import sys
import tracemalloc

import numpy as np
import pytest

import spore as ms
from spore_kernel import stats
from spore_kernel.tensor_view import heatmap, json_bundle, json_text

from .harness import KERNEL_PATH


def test_a_large_plane_is_downsampled_to_picked_elements_with_their_indices() -> None:
    arr = np.arange(200 * 300, dtype=np.float32).reshape(200, 300)
    hm = heatmap(arr)
    assert hm is not None and hm["shape"] == [200, 300] and hm["downsampled"] is True
    assert len(hm["rows"]) == 64 and len(hm["cols"]) == 64
    assert hm["rows"][0] == 0 and hm["rows"][-1] == 199 and hm["cols"][-1] == 299
    assert hm["rows"] == sorted(set(hm["rows"]))  # distinct, increasing
    for i in (0, 17, 63):
        for j in (0, 40, 63):
            assert hm["data"][i][j] == arr[hm["rows"][i], hm["cols"][j]]  # a real element, not an average
    assert (hm["min"], hm["max"]) == (0.0, float(arr[199, 299]))


def test_heatmap_shows_the_last_two_axes_of_the_first_slice() -> None:
    arr = np.arange(2 * 3 * 5 * 7, dtype=np.int32).reshape(2, 3, 5, 7)
    hm = heatmap(arr)
    assert hm["slice"] == [0, 0] and hm["axes"] == [2, 3] and hm["downsampled"] is False
    assert hm["data"] == arr[0, 0].tolist() and hm["rows"] == list(range(5)) and hm["cols"] == list(range(7))


@pytest.mark.parametrize("shape", [(), (5,), (0, 3), (3, 0), (2, 0, 4)])
def test_no_heatmap_below_two_axes_or_when_empty(shape: tuple[int, ...]) -> None:
    assert heatmap(np.zeros(shape, np.float32)) is None


def test_nan_and_inf_in_the_heatmap_are_strings_and_left_out_of_its_range() -> None:
    arr = np.array([[1.0, np.nan], [-np.inf, 3.0]], np.float32)
    data = json_bundle(ms.Tensor(arr))["heatmap"]
    assert data["data"] == [[1.0, "NaN"], ["-Infinity", 3.0]] and (data["min"], data["max"]) == (1.0, 3.0)


def test_bool_and_bfloat16_heatmaps_are_numbers() -> None:
    assert heatmap(np.array([[True, False]]))["data"] == [[1, 0]]
    bf = heatmap(np.array([[1.5, -2.0]], ms.bfloat16.np))
    assert bf["data"] == [[1.5, -2.0]]


def test_a_huge_plane_copies_only_the_picked_elements() -> None:
    view = np.broadcast_to(np.float32(2.0), (3, 40_000, 40_000))  # 4.8e9 elements, no memory
    tracemalloc.start()
    try:
        hm = heatmap(view)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert hm["shape"] == [40_000, 40_000] and peak < 256 << 10


def test_histogram_counts_every_finite_value_and_bool_has_two_bins() -> None:
    data = json_bundle(ms.Tensor(np.array([0.0, 1.0, 1.0, 2.0, np.nan], np.float32)))["stats"]["histogram"]
    assert sum(data["counts"]) == 4 and len(data["edges"]) == len(data["counts"]) + 1
    assert data["edges"][0] == 0.0 and data["edges"][-1] == 2.0
    b = json_bundle(ms.Tensor(np.array([True, False, True])))["stats"]["histogram"]
    assert b == {"counts": [1, 2], "edges": [-0.5, 0.5, 1.5]}


def test_json_text_is_strict_ascii_json_of_the_bundle() -> None:
    t = ms.Parameter(ms.Tensor(np.array([[np.nan, 1.0]], np.float32)), name="w∈'\"")
    text = json_text(t)
    assert text.isascii()
    parsed = json.loads(text, parse_constant=lambda c: pytest.fail(f"bare {c} in JSON"))
    assert parsed["schema"] == "spore.tensor/1" and parsed["name"] == "w∈'\"" and parsed["type"] == "Parameter"
    assert parsed == json.loads(json.dumps(json_bundle(t)))


def test_json_text_refuses_what_is_not_a_tensor_by_name() -> None:
    with pytest.raises(TypeError, match=r"expected a Spore Tensor or Parameter, got numpy.ndarray"):
        json_text(np.zeros(3))


def test_json_text_works_where_ipython_is_missing() -> None:
    # A debuggee has Spore but maybe not IPython: importing the module must not need it.
    code = ("import sys; sys.modules['IPython'] = None; sys.modules['ipykernel'] = None\n"
            "import numpy as np, spore as ms, spore_kernel.tensor_view as tv\n"
            "print(tv.json_text(ms.Tensor(np.ones((2, 2), np.float32)))[:31])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={"PYTHONPATH": KERNEL_PATH, "OMP_NUM_THREADS": "1"})
    assert out.stdout.strip() == '{"schema":"spore.tensor/1","typ'


@pytest.mark.parametrize("make", [
    lambda r: r.standard_normal((300, 77)).astype(np.float32)[:, ::-2],
    lambda r: r.standard_normal((50, 40, 3)).astype(np.float16).transpose(2, 0, 1),
    lambda r: r.standard_normal(1000).astype(ms.bfloat16.np),
    lambda r: r.integers(-5, 9, size=(30, 30)),
    lambda r: np.where(r.random((40, 40)) < 0.1, np.nan, r.standard_normal((40, 40))),
    lambda r: np.where(r.random(999) < 0.05, np.inf, -r.random(999)).astype(np.float32),
], ids=["strided", "fp16-transposed", "bf16", "int", "nan", "inf"])
def test_chunked_statistics_equal_numpy(make, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(stats, "CHUNK", 37)  # many chunks, odd sizes: the merge is exercised
    arr = make(np.random.default_rng(3))
    st = stats.compute(arr)
    wide = arr.astype(np.float64).reshape(-1)
    finite = wide[np.isfinite(wide)]
    assert not st.sampled and st.n_read == arr.size
    assert st.n_nan == np.isnan(wide).sum() and st.n_posinf == np.isposinf(wide).sum()
    assert (st.min, st.max) == (finite.min(), finite.max())
    assert st.mean == pytest.approx(finite.mean(), abs=1e-12) and st.std == pytest.approx(finite.std(), rel=1e-9)
    assert st.hist_counts == np.histogram(finite, bins=stats.HIST_BINS)[0].tolist()


def test_exact_statistics_of_a_million_strided_elements_need_under_1_mb() -> None:
    arr = np.ones((1000, 1048), np.float32)[:, ::-1]  # 1,048,000 elements, not contiguous
    tracemalloc.start()
    try:
        st = stats.compute(arr)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert not st.sampled and st.n_read == arr.size and peak < 1 << 20
