"""The fused 16-bit kernels of O2's fast paths (engine/csrc/lowp.cpp) and the float32 twins of
float16 arrays (spore/amp/lowp.py), against the plain casts they replace (issue 18).

Every kernel is checked bit for bit against `cast(ufunc(cast(a, f32), cast(b, f32)), dt)` computed
with ml_dtypes / NumPy casts, over all 65,536 bit patterns of each operand where that is possible
(NaN, infinities, subnormals and signed zeros included).
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import spore as ms
from spore import _kernels, ops
from spore.amp import lowp

BF16 = np.dtype(ml_dtypes.bfloat16)
F16 = np.dtype(np.float16)
FORMATS = [(BF16, True), (F16, False)]


@pytest.fixture(autouse=True)
def _small_twins(monkeypatch: pytest.MonkeyPatch) -> None:
    """Twins from 4,096 elements (the default starts at 256K, where they pay): these tests' arrays."""
    monkeypatch.setattr(lowp, "_TWIN_MIN", 4096)


def _np32(bits: np.ndarray, dt: np.dtype) -> np.ndarray:
    return bits.view(dt).astype(np.float32)


def _wide(bits: np.ndarray, dt: np.dtype) -> np.ndarray:
    """The reference path's conversion to float32 (C++ for arrays this size: F16C quiets a signaling
    float16 NaN, NumPy keeps it signaling), as uint32 bits."""
    return lowp.cast(bits.view(dt), np.dtype(np.float32)).view(np.uint32)


def _np16(x: np.ndarray, dt: np.dtype) -> np.ndarray:
    return x.astype(dt).view(np.uint16)


def _same_bits(got: np.ndarray, ref: np.ndarray, dt: np.dtype) -> None:
    """Equal bits; NaNs only need to be NaNs with the reference's sign (NumPy's float16 casts and the
    F16C instructions keep different payload bits of a float32 NaN)."""
    got, ref = np.asarray(got), np.asarray(ref)
    assert got.shape == ref.shape and got.dtype == ref.dtype
    nan = np.isnan(ref.view(dt).astype(np.float32))
    np.testing.assert_array_equal(got[~nan], ref[~nan])
    assert np.isnan(got[nan].view(dt).astype(np.float32)).all()
    np.testing.assert_array_equal(got[nan] >> 15, ref[nan] >> 15)


@pytest.mark.parametrize("dt,bf", FORMATS)
def test_add16_equals_numpy_on_every_bit_pattern(dt: np.dtype, bf: bool) -> None:
    rng = np.random.default_rng(0)
    bits = np.arange(65536, dtype=np.uint16)
    a, b = rng.permutation(bits).reshape(256, 256), rng.permutation(bits).reshape(256, 256)
    with np.errstate(all="ignore"):
        ref = _np16(_np32(a, dt) + _np32(b, dt), dt)
    _same_bits(_kernels.add16(a, b, bf), ref, dt)
    # NaN + NaN keeps the first operand's NaN, as NumPy's add does (the kernel must not commute)
    both = np.isnan(_np32(a, dt)) & np.isnan(_np32(b, dt))
    assert both.any()
    np.testing.assert_array_equal(_kernels.add16(a, b, bf)[both] & 0x7fff, (a[both] | (0x40 if bf else 0x200)) & 0x7fff)


@pytest.mark.parametrize("dt,bf", FORMATS)
@pytest.mark.parametrize("shape", [(3, 7), (64, 10), (5, 3000), (2, 3, 1100)])
def test_add16_adds_a_row_to_every_row(dt: np.dtype, bf: bool, shape: tuple[int, ...]) -> None:
    rng = np.random.default_rng(len(shape) * shape[-1])
    a = rng.integers(0, 65536, shape).astype(np.uint16)
    b = rng.integers(0, 65536, shape[-1]).astype(np.uint16)
    with np.errstate(all="ignore"):
        ref = _np16(_np32(a, dt) + _np32(b, dt), dt)
    _same_bits(_kernels.add16(a, b, bf), ref, dt)
    with pytest.raises(ValueError, match="one row"):
        _kernels.add16(a, b[:-1], bf)


@pytest.mark.parametrize("dt,bf", FORMATS)
@pytest.mark.parametrize("shape", [(1, 5), (64, 10), (300, 1500), (7, 2100)])
def test_bias_grad16_sums_columns_in_float32_rows_in_order(dt: np.dtype, bf: bool, shape: tuple[int, int]) -> None:
    rng = np.random.default_rng(shape[0])
    g = (rng.standard_normal(shape) * 4).astype(dt)
    acc = np.zeros(shape[1], np.float32)
    for row in g.astype(np.float32):  # dense.cpp's column_sums order (NumPy's for axis 0)
        acc += row
    ref = acc.astype(dt)
    got = _kernels.bias_grad16(g.view(np.uint16), bf)
    np.testing.assert_array_equal(got, ref.view(np.uint16))
    np.testing.assert_array_equal(_kernels.bias_grad16(g.view(np.uint16), bf, True), ref.astype(np.float32))


@pytest.mark.parametrize("dt,bf", FORMATS)
def test_gemm_epilogues_round_like_the_plain_casts(dt: np.dtype, bf: bool) -> None:
    rng = np.random.default_rng(5)
    c = (rng.standard_normal((41, 1700)) * 10.0 ** rng.integers(-9, 9, (41, 1700))).astype(np.float32)
    c.flat[:6] = [np.inf, -np.inf, -0.0, 1e-45, 7e4, np.nan]
    h = lowp.cast(c, dt)
    got = c.copy()
    _kernels.round16_inplace(got, bf)  # a weight gradient rounded to 16 bits and cast back
    np.testing.assert_array_equal(got.view(np.uint32), _wide(h.view(np.uint16), dt))
    ro = c.copy()
    ro.flags.writeable = False
    with pytest.raises(ValueError):
        _kernels.round16_inplace(ro, bf)
    b = rng.integers(0, 65536, 1700).astype(np.uint16)
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(_kernels.round_add16(c, b, bf), _kernels.add16(h.view(np.uint16), b, bf))
        np.testing.assert_array_equal(_kernels.round_add16(c, b, bf, True),  # the fused Dense + ReLU
                                      _kernels.relu16(_kernels.add16(h.view(np.uint16), b, bf), bf))
    with pytest.raises(ValueError, match="one row"):
        _kernels.round_add16(c, b[:5], bf)


def test_a_float16_cast_is_read_only_and_its_first_conversion_is_kept_and_handed_over() -> None:
    rng = np.random.default_rng(6)
    w = rng.standard_normal((64, 200)).astype(np.float32)
    h = ops.cast(ms.Tensor(w), ms.float16).asnumpy()
    assert h.dtype == F16 and not h.flags.writeable  # an in-place write would leave a twin stale
    with pytest.raises(ValueError, match="read-only"):
        h[0, 0] = 1.0
    assert lowp.twin(h) is None  # made by the first reader, not by the cast
    t = lowp.widen(h)
    np.testing.assert_array_equal(t, h.astype(np.float32))
    assert not t.flags.writeable and lowp.twin(h) is t and lowp.widen(h) is t
    np.testing.assert_array_equal(lowp.twin(h.reshape(200, 64)), h.reshape(200, 64).astype(np.float32))
    assert lowp.twin(h[:, :10]) is None and lowp.twin(h.T) is None  # not the whole array in order
    assert lowp.twin(h.view(BF16)) is None  # another format: the twin's values do not apply
    np.testing.assert_array_equal(lowp.widen(h.T), h.T.astype(np.float32))
    back = lowp.cast_op(h, np.dtype(np.float32))
    assert back is t and back.flags.writeable  # handed over, not copied
    assert lowp.twin(h) is None  # and no longer shared with the 16-bit array
    back[...] = 0.0
    np.testing.assert_array_equal(lowp.widen(h), w.astype(F16).astype(np.float32))


def test_arrays_spore_did_not_make_get_no_twin() -> None:
    mine = np.random.default_rng(9).standard_normal((64, 200)).astype(F16)
    t = lowp.widen(mine)
    np.testing.assert_array_equal(t, mine.astype(np.float32))
    assert mine.flags.writeable and lowp.twin(mine) is None
    p = ms.Parameter(ms.Tensor(mine))  # a float16 Parameter stays writeable for its optimizer
    ops.MatMul(transpose_b=True)(p, p)
    assert p.asnumpy().flags.writeable and lowp.twin(p.asnumpy()) is None


def test_reference_paths_keep_no_twins_and_writeable_results() -> None:
    w = np.random.default_rng(7).standard_normal((64, 200)).astype(np.float32)
    with lowp.reference_paths():
        h = ops.cast(ms.Tensor(w), ms.float16).asnumpy()
        assert h.flags.writeable and lowp.twin(h) is None
    small = ops.cast(ms.Tensor(w[:2, :20]), ms.float16).asnumpy()  # below the size worth a twin
    assert small.flags.writeable and lowp.twin(small) is None
    if lowp.bf16_native():  # bf16 GEMMs read bf16: no twin
        b = ops.cast(ms.Tensor(w), ms.bfloat16).asnumpy()
        assert b.flags.writeable and lowp.twin(b) is None


def test_twins_die_with_their_array() -> None:
    import gc

    before = len(lowp._TWINS)
    h = ops.cast(ms.Tensor(np.ones((100, 100), np.float32)), ms.float16)
    assert len(lowp._TWINS) == before + 1
    del h
    gc.collect()
    assert len(lowp._TWINS) == before


def test_float16_matmul_with_twins_equals_the_plain_conversions() -> None:
    rng = np.random.default_rng(8)
    x = ops.cast(ms.Tensor(rng.standard_normal((48, 300)).astype(np.float32)), ms.float16)
    w = ops.cast(ms.Tensor(rng.standard_normal((200, 300)).astype(np.float32)), ms.float16)
    out = ops.MatMul(transpose_b=True)(x, w).asnumpy()
    xs, ws = x.asnumpy().astype(np.float32), w.asnumpy().astype(np.float32)
    ref = _kernels.sgemm(xs, ws, False, True).astype(F16)
    np.testing.assert_array_equal(out.view(np.uint16), ref.view(np.uint16))
    assert lowp.twin(w.asnumpy()) is not None  # kept by the GEMM that converted it
    g = ops.cast(ms.Tensor(out.astype(np.float32)), ms.float16)
    dx = ops.MatMul()(g, w).asnumpy()  # w's twin again
    np.testing.assert_array_equal(dx.view(np.uint16),
                                  _kernels.sgemm(out.astype(np.float32), ws, False, False).astype(F16).view(np.uint16))


@pytest.mark.parametrize("dt,bf", FORMATS)
@pytest.mark.parametrize("ta,tb", [(False, False), (False, True), (True, False), (True, True)])
def test_sgemm16_is_sgemm_of_the_widened_operands(dt: np.dtype, bf: bool, ta: bool, tb: bool) -> None:
    rng = np.random.default_rng(int(ta) * 2 + int(tb))
    for m, k, n in [(64, 784, 256), (64, 128, 10), (7, 5, 3), (4, 0, 3)]:
        a = rng.standard_normal((k, m) if ta else (m, k)).astype(dt)
        b = rng.standard_normal((n, k) if tb else (k, n)).astype(dt)
        ref = _kernels.sgemm(a.astype(np.float32), b.astype(np.float32), ta, tb)
        got = _kernels.sgemm16(a.view(np.uint16), b.view(np.uint16), ta, tb, bf, False)
        np.testing.assert_array_equal(got.view(np.uint32), ref.view(np.uint32))
        h = _kernels.sgemm16(a.view(np.uint16), b.view(np.uint16), ta, tb, bf, True)
        np.testing.assert_array_equal(h, ref.astype(dt).view(np.uint16))
    with pytest.raises(ValueError, match="inner dimensions"):
        _kernels.sgemm16(np.zeros((2, 3), np.uint16), np.zeros((4, 2), np.uint16), False, False, bf, True)


def _specials(a: np.ndarray, dt: np.dtype) -> np.ndarray:
    """`a` (16-bit values) with NaN, infinities, signed zeros and a subnormal in its first row."""
    a = a.copy()
    a.flat[:6] = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0, 1e-7], np.float32).astype(dt)
    return a


@pytest.mark.parametrize("dt,bf", FORMATS)
@pytest.mark.parametrize("relu", [True, False])
@pytest.mark.parametrize("first_layer", [True, False])
@pytest.mark.parametrize("wide", [(True, True), (False, False), (True, False)])
def test_dense_backward16_is_the_unfused_backward_bit_for_bit(dt: np.dtype, bf: bool, relu: bool, first_layer: bool,
                                                              wide: tuple[bool, bool]) -> None:
    """One call gives what ReluGrad's, MatMul's, SumTo's and the casts' kernels give one by one (the
    unfused mixed-precision backward of a Dense layer), including NaN / inf / -0 gradients and ReLU
    outputs, and with x and w given as their float32 values (twins) instead of 16-bit bits."""
    rng = np.random.default_rng(int(relu) + 2 * int(first_layer))
    n, o, i = 37, 130, 75  # no size a multiple of a vector width or of the kernel's 1024-element runs
    g = _specials((rng.standard_normal((n, o)) * 3).astype(dt), dt)
    x = (rng.standard_normal((n, i))).astype(dt)
    w = (rng.standard_normal((o, i)) * 0.1).astype(dt)
    y = _specials(np.maximum(rng.standard_normal((n, o)), 0).astype(dt), dt) if relu else None
    with np.errstate(all="ignore"):
        r = _kernels.relu_grad16(g.view(np.uint16), y.view(np.uint16), bf).view(dt) if relu else g
        r32 = lowp.cast(r, np.dtype(np.float32))
        ref_dw = _kernels.sgemm(r32, lowp.cast(x, np.dtype(np.float32)), True, False)
        ref_dx = _kernels.sgemm16(r.view(np.uint16), w.view(np.uint16), False, False, bf, True)
        ref_db = _kernels.bias_grad16(r.view(np.uint16), bf, wide[1])
        ref_dw = (lowp.cast(lowp.cast(ref_dw, dt), np.dtype(np.float32)) if wide[0] else lowp.cast(ref_dw, dt)
                  .view(np.uint16))
        for operands in ("bits", "float32"):
            xs = x.view(np.uint16) if operands == "bits" else lowp.cast(x, np.dtype(np.float32))
            ws = w.view(np.uint16) if operands == "bits" else lowp.cast(w, np.dtype(np.float32))
            dx, dw, db = _kernels.dense_backward16(g.view(np.uint16), xs, None if first_layer else ws,
                                                   y.view(np.uint16) if relu else None, bf, True, True, *wide)
            assert (dx is None) is first_layer
            if not first_layer:
                _same_bits(dx, ref_dx, dt)
            for got, ref, is_wide in ((dw, ref_dw, wide[0]), (db, ref_db, wide[1])):
                if is_wide:
                    assert got.dtype == np.float32
                    np.testing.assert_array_equal(np.isnan(got), np.isnan(ref))
                    np.testing.assert_array_equal(got[~np.isnan(got)].view(np.uint32),
                                                  ref[~np.isnan(ref)].view(np.uint32))
                else:
                    _same_bits(got, ref, dt)
    none = _kernels.dense_backward16(g.view(np.uint16), x.view(np.uint16), None, None, bf, False, False)
    assert none == (None, None, None)


def test_dense_backward16_refuses_mismatched_shapes() -> None:
    g, x = np.zeros((4, 3), np.uint16), np.zeros((4, 5), np.uint16)
    with pytest.raises(ValueError, match="w must be"):
        _kernels.dense_backward16(g, x, np.zeros((5, 3), np.uint16), None, False)
    with pytest.raises(ValueError, match="y must have"):
        _kernels.dense_backward16(g, x, None, np.zeros((4, 4), np.uint16), False)
    with pytest.raises(ValueError, match=r"g \(N, O\)"):
        _kernels.dense_backward16(g, np.zeros((3, 5), np.uint16), None, None, False)


@pytest.mark.parametrize("dt", [F16, BF16])
def test_the_fused_16_bit_dense_backward_runs_only_where_it_gives_the_unfused_bits(dt: np.dtype) -> None:
    """`lowp.dense_backward16` takes the one-call kernel for a layer whose ops would all run in C++,
    and declines (None: the caller runs them one by one) where one of them would not: a product under
    `_SMALL` multiply-adds, a bias gradient under 1024 elements, the reference paths."""
    rng = np.random.default_rng(9)
    g, x, w = (rng.standard_normal(s).astype(dt) for s in ((64, 128), (64, 256), (128, 256)))
    got = lowp.dense_backward16(g, x, w, None, (True, True), (True, True))
    if lowp.is_bf16(dt) and lowp.bf16_native():  # oneDNN's bf16 GEMMs there: not this kernel's float32 ones
        assert got is None
        return
    assert got is not None and [a.dtype for a in got] == [dt, np.float32, np.float32]
    small = lowp.dense_backward16(g[:, :10], x, w[:10], None, (True, True), (True, True))  # 640-element bias
    assert small is None
    assert lowp.dense_backward16(g[:, :10], x, w[:10], None, (True, False), (True, True)) is not None
    with lowp.reference_paths():
        assert lowp.dense_backward16(g, x, w, None, (True, True), (True, True)) is None
