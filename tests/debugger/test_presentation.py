"""The debugger's tensor presentation, in process: value strings, children, paging, bounded work.

These call the same functions pydevd calls (through `presentation_pydevd`'s providers) on real
Spore objects; tests/debugger/test_presentation_dap.py checks the same over real DAP sessions.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tracemalloc

import numpy as np
import pytest

import spore as ms
from spore import nn
from spore_debug import presentation as P
from spore_debug import presentation_stats as S
from spore_debug.presentation_pydevd import SporeResolver, SporeStrProvider, contents, present

RESOLVER = SporeResolver()
STR = SporeStrProvider()


def kids(obj):
    return {name: (value, ev) for name, value, ev in RESOLVER.get_contents_debug_adapter_protocol(obj)}


def eval_name(ev, parent):
    return ev(parent) if callable(ev) else parent + ev


def test_summary_of_a_float_tensor_has_shape_dtype_mean_std_and_range():
    arr = np.random.default_rng(0).standard_normal((32, 16, 16, 16)).astype(np.float32)
    t = ms.Tensor(arr)
    text = STR.get_str(t)
    wide = arr.astype(np.float64)
    expected = (f"Tensor[32, 16, 16, 16] f32 μ={S.num(wide.mean())} σ={S.num(wide.std())} "
                f"[{S.num(wide.min())}, {S.num(wide.max())}]")
    assert text == expected
    assert STR.can_provide(type(t), "Tensor") and RESOLVER.can_provide(type(t), "Tensor")
    assert not STR.can_provide(np.ndarray, "ndarray") and not RESOLVER.can_provide(dict, "dict")


def test_nan_and_inf_are_counted_and_left_out_of_the_statistics():
    arr = np.arange(20, dtype=np.float32)
    arr[[1, 5, 7]] = np.nan
    arr[[2, 9]] = [np.inf, -np.inf]
    text = present(ms.Tensor(arr))
    finite = arr[np.isfinite(arr)].astype(np.float64)
    assert text.endswith("nan=3 inf=2")
    assert f"μ={S.num(finite.mean())} σ={S.num(finite.std())} [0, 19]" in text
    st = kids(ms.Tensor(arr))["stats"][0]
    fields = {n: v for n, v, _ in st.children()}
    assert (fields["nan"], fields["+inf"], fields["-inf"], fields["min"], fields["max"]) == (3, 1, 1, 0.0, 19.0)


def test_small_tensors_show_their_values_and_other_dtypes_their_own_figures():
    assert present(ms.Tensor(np.array([1.5, -2.0, np.nan], np.float32))) == "Tensor[3] f32 [1.5, -2, nan]"
    assert present(ms.Tensor(3.25)) == "Tensor[] f32 3.25"
    assert present(ms.Tensor(np.arange(12, dtype=np.int32) > 3)) == "Tensor[12] bool true=8/12"
    assert present(ms.Tensor(np.arange(10, dtype=np.int64))) == "Tensor[10] i64 μ=4.5 σ=2.872 [0, 9]"
    assert present(ms.Tensor(np.zeros((0, 3), np.float32))) == "Tensor[0, 3] f32 (empty)"
    half = ms.Tensor(np.linspace(-1, 1, 9, dtype=np.float32), ms.float16)
    assert present(half) == "Tensor[9] f16 μ=0 σ=0.6455 [-1, 1]"


def test_a_parameter_shows_its_name_and_grad_state():
    p = ms.Parameter(ms.Tensor(np.full((4, 4), 0.5, np.float32)), name="fc.weight", requires_grad=False)
    assert present(p) == "Parameter[4, 4] f32 'fc.weight' μ=0.5 σ=0 [0.5, 0.5]"
    k = kids(p)
    assert k["name"] == ("fc.weight", ".name")
    assert k["requires_grad"] == (False, ".requires_grad")
    assert "value_and_grad" in k["grad"][0]  # Spore keeps no .grad: the child says where gradients are


def test_a_tensor_on_the_gradient_tape_names_the_op_that_made_it():
    w = ms.Parameter(ms.Tensor(np.ones((3,), np.float32)), name="w")
    seen = {}

    def loss(x):
        y = x * w
        seen["y"] = kids(y)
        return y.sum()

    ms.value_and_grad(loss, grad_position=None, weights=[w])(ms.Tensor(np.ones((3,), np.float32)))
    assert seen["y"]["grad_fn"][0] == "Mul"


def test_children_are_shape_dtype_stats_grad_a_numpy_view_and_slices():
    arr = np.random.default_rng(1).standard_normal((250, 3)).astype(np.float32)
    t = ms.Tensor(arr)
    names = [n for n, _, _ in contents(t)]
    assert names == ["shape", "dtype", "stats", "grad", "numpy", "[0:100]", "[100:200]", "[200:250]"]
    k = kids(t)
    assert k["shape"] == ((250, 3), ".shape")
    assert k["dtype"] == (ms.float32, ".dtype")
    view, ev = k["numpy"]
    assert view is t.asnumpy() and ev == ".asnumpy()"  # the tensor's own buffer: no copy
    assert RESOLVER.get_dictionary(t)["[100:200]"].view.base is not None


def test_slices_page_recursively_and_their_evaluate_names_index_the_tensor():
    arr = np.random.default_rng(2).standard_normal((250, 3)).astype(np.float32)
    x = ms.Tensor(arr)
    page, ev = kids(x)["[200:250]"]
    assert present(page).startswith("[50, 3] f32 μ=")
    assert np.shares_memory(page.view, arr)
    name = eval_name(ev, "x")
    assert name == "x[200:250]"
    rows = kids(page)
    assert list(rows) == [f"[{i}]" for i in range(200, 250)]
    row, row_ev = rows["[203]"]
    row_name = eval_name(row_ev, name)
    assert row_name == "x[203]"
    elems = kids(row)
    assert list(elems) == ["[0]", "[1]", "[2]"]
    value, el_ev = elems["[1]"]
    assert eval_name(el_ev, row_name) == "x[203, 1]"
    assert value == float(str(arr[203, 1]))
    assert float(eval(eval_name(el_ev, row_name), {"x": x})) == pytest.approx(value, rel=1e-6)
    assert np.array_equal(eval(name, {"x": x}).asnumpy(), page.view)


def test_a_long_axis_pages_as_ranges_of_ranges_never_more_than_a_page_of_children():
    x = ms.Tensor(np.arange(1_234_567, dtype=np.int32))
    top = contents(x)
    ranges = [n for n, _, _ in top if n.startswith("[")]
    assert ranges[:2] == ["[0:1000000]", "[1000000:1234567]"]
    level, depth = kids(x)["[1000000:1234567]"][0], 0
    while isinstance(level, P.Slice):
        children = contents(level)
        assert 0 < len(children) <= P.PAGE
        level = children[-1][1]
        depth += 1
    assert depth == 3 and level == 1_234_566  # ranges of 10^4, of 10^2, then elements: the last one last


def test_a_hundred_million_element_tensor_is_summarised_and_paged_without_a_copy():
    arr = np.zeros(10**8, dtype=np.float32)
    arr[::1000] = 1.0
    arr[12_345_678] = np.nan
    t = ms.Tensor(arr)
    assert t.asnumpy() is arr
    tracemalloc.start()
    try:
        text = present(t)
        top = contents(t)
        level = top[-1][1]
        while isinstance(level, P.Slice):
            present(level)
            level = contents(level)[0][1]
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert text.startswith("Tensor[100000000] f32 μ≈")  # a documented sample above EXACT_LIMIT
    assert peak < 8 * 2**20, peak  # the tensor is 400 MB: nothing near a copy of it was made
    stats = kids(t)["stats"][0]
    assert stats.stats.sampled and stats.stats.n_read == S.SAMPLE
    assert "from 65,536 of 100,000,000 values" in present(stats)


def test_exact_statistics_of_a_huge_tensor_are_chunked_on_request():
    arr = np.zeros(10**8, dtype=np.float32)
    arr[::1000] = 1.0
    arr[12_345_678] = np.nan
    exact = {n: v for n, v, _ in kids(ms.Tensor(arr))["stats"][0].children()}["exact"]
    tracemalloc.start()
    try:
        fields = {n: v for n, v, _ in exact.children()}
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 16 * 2**20, peak
    assert fields["nan"] == 1 and fields["max"] == 1.0 and fields["sampled"] is False
    finite = 10**8 - 1
    assert fields["mean"] == pytest.approx(100_000 / finite, rel=1e-9)
    assert fields["std"] == pytest.approx(np.sqrt(100_000 / finite - (100_000 / finite) ** 2), rel=1e-6)


@pytest.mark.parametrize("make", [
    lambda a: a.T,                        # F-contiguous
    lambda a: a[::3, 1::2],               # strided view: nditer's bounded buffer
    lambda a: a.astype(np.float16),
])
def test_chunked_statistics_equal_numpy_on_any_layout(make, monkeypatch):
    monkeypatch.setattr(S, "CHUNK", 1000)  # many chunks, so the merge is exercised
    base = np.random.default_rng(3).standard_normal((300, 200)).astype(np.float32) * 3 + 1
    arr = make(base)
    st = S.compute(arr, exact=True)
    wide = arr.astype(np.float64)
    assert (st.min, st.max) == (wide.min(), wide.max())
    assert st.mean == pytest.approx(wide.mean(), rel=1e-12)
    assert st.std == pytest.approx(wide.std(), rel=1e-10)


def test_bfloat16_statistics():
    t = ms.Tensor(np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0], np.float32), ms.bfloat16)
    assert present(t) == "Tensor[7] bf16 μ=4 σ=2 [1, 7]"


class Block(nn.Cell):
    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3)
        self.head = nn.SequentialCell([nn.Dense(4, 8), nn.ReLU()])
        self.scale = ms.Parameter(ms.Tensor(np.ones((4,), np.float32)), name="scale")
        self.hidden = 8

    def construct(self, x):
        return self.head(self.conv(x) * self.scale)


def test_a_cell_shows_training_parameters_sub_cells_and_its_own_attributes_not_its_dict():
    net = Block()
    net.set_train(True)
    n_values = sum(int(p.size) for p in net.get_parameters())
    # scale, conv.weight (MindSpore's Conv2d has no bias by default), head.0.weight, head.0.bias
    assert n_values == 4 + 4 * 3 * 3 * 3 + 8 * 4 + 8
    assert present(net) == f"Block(training=True, 4 sub-cells, 4 parameters, {n_values:,} values)"
    k = kids(net)
    assert list(k) == ["training", "scale", "conv", "head", "parameters (all)", "attributes"]
    assert k["training"] == (True, ".training")
    assert k["scale"][0] is net.scale and k["conv"] == (net.conv, ".conv")
    assert not any(name.startswith("_") for name in k)
    seq = kids(k["head"][0])
    assert seq["0"][1] == "[0]" and seq["0"][0] is net.head[0]
    all_params = kids(k["parameters (all)"][0])
    assert list(all_params) == [path for path, _ in net.parameters_and_names()]
    attrs = kids(k["attributes"][0])
    assert attrs["hidden"] == (8, ".hidden")


def test_a_failing_format_falls_back_to_repr_and_never_raises(monkeypatch):
    t = ms.Tensor(np.ones((3, 3), np.float32))

    def boom(*_a, **_k):
        raise RuntimeError("formatting failed")

    monkeypatch.setattr(P, "summary", boom)
    monkeypatch.setattr(P, "tensor_children", boom)
    assert present(t) == repr(t)
    assert RESOLVER.get_dictionary(t) == {"error": "RuntimeError: formatting failed", "repr": repr(t)}


def test_a_tensor_without_values_shows_shape_and_dtype_only():
    class NoValues(ms.Tensor):  # what Graph mode's tracer looks like from outside: reading values raises
        def asnumpy(self):
            raise TypeError("no values while tracing")

    t = NoValues(np.ones((2, 5), np.float32))
    assert present(t).startswith("NoValues[2, 5] f32 (traced by Graph mode")
    assert [n for n, _, _ in contents(t)] == ["shape", "dtype", "values"]


def test_importing_the_presentation_loads_neither_numpy_nor_the_engine():
    code = ("import sys, spore_debug.presentation_pydevd as g\n"
            "assert not g.is_spore_type(int) and not g.is_spore_type(dict)\n"
            "print(sorted(m for m in ('numpy', 'spore.tensor', 'spore.nn', 'spore.ops') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_summary_text_stays_one_short_line_for_any_shape():
    t = ms.Tensor(np.ones((7, 1, 5, 2, 3), np.float32))
    text = present(t)
    assert "\n" not in text and len(text) < 120
    assert re.fullmatch(r"Tensor\[7, 1, 5, 2, 3\] f32 μ=1 σ=0 \[1, 1\]", text)
