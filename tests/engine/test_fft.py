"""The FFT family, stft, eig/eigvals, matrix logarithm and orgqr/ormqr (issue 14) against NumPy/SciPy:
numpy.fft for the transforms, a NumPy framing oracle for stft, A v = lambda v for eig (the
eigenvectors' phase is LAPACK's), scipy's raw QR (Householder reflectors) for orgqr/ormqr."""

import numpy as np
import pytest
import scipy.linalg

import spore as ms
from spore import ops
from spore.errors import DTypeError, ShapeError

rng = np.random.default_rng(41)


def cx(*shape, dt=np.complex128):
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dt)


def T(a):
    return ms.Tensor(a)


NORMS = (None, "backward", "ortho", "forward")


@pytest.mark.parametrize("norm", NORMS)
def test_1d_transforms_match_numpy(norm):
    z, x = cx(3, 8), rng.standard_normal((3, 8))
    cases = [
        (ops.fft(T(z), norm=norm), np.fft.fft(z, norm=norm)),
        (ops.fft(T(z), n=5, dim=0, norm=norm), np.fft.fft(z, n=5, axis=0, norm=norm)),
        (ops.ifft(T(z), n=11, norm=norm), np.fft.ifft(z, n=11, norm=norm)),
        (ops.rfft(T(x), n=7, norm=norm), np.fft.rfft(x, n=7, norm=norm)),
        (ops.irfft(T(z), norm=norm), np.fft.irfft(z, norm=norm)),
        (ops.irfft(T(z), n=9, dim=0, norm=norm), np.fft.irfft(z, n=9, axis=0, norm=norm)),
        (ops.hfft(T(z), norm=norm), np.fft.hfft(z, norm=norm)),
        (ops.hfft(T(z), n=5, norm=norm), np.fft.hfft(z, n=5, norm=norm)),
        (ops.ihfft(T(x), norm=norm), np.fft.ihfft(x, norm=norm)),
        (ops.ihfft(T(x), n=6, dim=0, norm=norm), np.fft.ihfft(x, n=6, axis=0, norm=norm)),
    ]
    for got, want in cases:
        assert got.asnumpy().dtype == want.dtype and got.shape == want.shape
        np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("norm", NORMS)
def test_2d_and_nd_transforms_match_numpy(norm):
    z, x = cx(2, 4, 6), rng.standard_normal((2, 4, 6))
    cases = [
        (ops.fft2(T(z), norm=norm), np.fft.fft2(z, norm=norm)),
        (ops.ifft2(T(z), s=(3, 8), norm=norm), np.fft.ifft2(z, s=(3, 8), norm=norm)),
        (ops.fftn(T(z), norm=norm), np.fft.fftn(z, norm=norm)),
        (ops.fftn(T(z), s=(5, 5), norm=norm), np.fft.fftn(z, s=(5, 5), axes=(1, 2), norm=norm)),
        (ops.ifftn(T(z), dim=(0, 2), norm=norm), np.fft.ifftn(z, axes=(0, 2), norm=norm)),
        (ops.rfft2(T(x), norm=norm), np.fft.rfft2(x, norm=norm)),
        (ops.rfftn(T(x), s=(3, 7), norm=norm), np.fft.rfftn(x, s=(3, 7), axes=(1, 2), norm=norm)),
        (ops.irfft2(T(z), norm=norm), np.fft.irfft2(z, norm=norm)),
        (ops.irfftn(T(z), s=(4, 9), norm=norm), np.fft.irfftn(z, s=(4, 9), axes=(1, 2), norm=norm)),
        (ops.irfftn(T(z), norm=norm), np.fft.irfftn(z, norm=norm)),
    ]
    for got, want in cases:
        assert got.shape == want.shape
        np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("norm", NORMS)
def test_hermitian_nd_transforms_match_their_definition(norm):
    """hfftn(x) = irfftn(conj x) with the norm reversed; ihfftn(x) = conj(rfftn(x)) likewise (PyTorch's)."""
    swap = {None: "forward", "backward": "forward", "forward": "backward", "ortho": "ortho"}[norm]
    z, x = cx(3, 4, 5), rng.standard_normal((3, 4, 6))
    np.testing.assert_allclose(ops.hfftn(T(z), norm=norm).asnumpy(), np.fft.irfftn(np.conj(z), norm=swap),
                               rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(ops.hfft2(T(z), s=(4, 6), norm=norm).asnumpy(),
                               np.fft.irfftn(np.conj(z), s=(4, 6), axes=(1, 2), norm=swap), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(ops.ihfftn(T(x), norm=norm).asnumpy(), np.conj(np.fft.rfftn(x, norm=swap)),
                               rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(ops.ihfft2(T(x), norm=norm).asnumpy(),
                               np.conj(np.fft.rfftn(x, axes=(1, 2), norm=swap)), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(ops.hfft(T(z[0, 0]), norm=norm).asnumpy(), np.fft.hfft(z[0, 0], norm=norm),
                               rtol=1e-10, atol=1e-12)


def test_dtypes_follow_the_input_precision():
    x32 = rng.standard_normal((2, 8)).astype(np.float32)
    assert ops.fft(T(x32)).dtype is ms.complex64 and ops.rfft(T(x32)).dtype is ms.complex64
    assert ops.fft(T(x32.astype(np.float64))).dtype is ms.complex128
    assert ops.irfft(T(cx(2, 5, dt=np.complex64))).dtype is ms.float32
    assert ops.fft(T(np.arange(8))).dtype is ms.complex64  # ints compute in complex64
    np.testing.assert_allclose(ops.fft(T(x32)).asnumpy(), np.fft.fft(x32), rtol=1e-5, atol=1e-5)


def test_bad_arguments_are_refused_by_name():
    with pytest.raises(ValueError, match="fft: norm"):
        ops.fft(T(cx(4)), norm="half")
    with pytest.raises(DTypeError, match="rfft.*real"):
        ops.rfft(T(cx(4)))
    with pytest.raises(ShapeError, match="fft2.*dim"):
        ops.fft2(T(cx(4)))
    with pytest.raises(ShapeError, match="fftn.*s and dim"):
        ops.fftn(T(cx(3, 4)), s=(2, 2), dim=(0,))
    with pytest.raises(ValueError, match="irfft.*n"):
        ops.irfft(T(cx(1)))
    with pytest.raises(ShapeError, match="fft.*scalar"):
        ops.fft(T(np.complex64(1)))


def test_rfftfreq_matches_numpy():
    np.testing.assert_allclose(ops.rfftfreq(9, 0.1).asnumpy(), np.fft.rfftfreq(9, 0.1), rtol=1e-6)
    assert ops.rfftfreq(4).dtype is ms.float32 and ops.rfftfreq(4, dtype=ms.float64).dtype is ms.float64
    with pytest.raises(ValueError, match="rfftfreq"):
        ops.rfftfreq(0)


def test_fft_with_size_maps_onto_the_transforms():
    z, x = cx(2, 4, 6), rng.standard_normal((2, 4, 6))
    np.testing.assert_allclose(ops.FFTWithSize(2, False, False)(T(z)).asnumpy(), np.fft.fft2(z), rtol=1e-10)
    np.testing.assert_allclose(ops.FFTWithSize(1, True, False, norm="ortho")(T(z)).asnumpy(),
                               np.fft.ifft(z, norm="ortho"), rtol=1e-10)
    np.testing.assert_allclose(ops.FFTWithSize(2, False, True)(T(x)).asnumpy(), np.fft.rfft2(x), rtol=1e-10)
    np.testing.assert_allclose(ops.FFTWithSize(2, False, True, onesided=False)(T(x)).asnumpy(), np.fft.fft2(x),
                               rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(ops.FFTWithSize(1, True, True, signal_sizes=(11,))(T(z)).asnumpy(),
                               np.fft.irfft(z, 11), rtol=1e-10)


def _stft_oracle(x, n_fft, hop, win, window, center, mode, normalized, onesided):
    """Frames by hand: pad, cut every hop samples, window (centred in n_fft), DFT each frame."""
    if center:
        p = n_fft // 2
        x = np.pad(x, [(0, 0)] * (x.ndim - 1) + [(p, p)], mode="reflect" if mode == "REFLECT" else "constant")
    w = np.zeros(n_fft)
    left = (n_fft - win) // 2
    w[left:left + win] = 1.0 if window is None else window
    n = 1 + (x.shape[-1] - n_fft) // hop
    frames = np.stack([x[..., i * hop:i * hop + n_fft] * w for i in range(n)], axis=-2)
    spec = np.fft.rfft(frames) if onesided else np.fft.fft(frames)
    if normalized:
        spec = spec / np.sqrt(n_fft)
    return np.swapaxes(spec, -1, -2)


@pytest.mark.parametrize("kw", [
    {"n_fft": 16}, {"n_fft": 16, "hop_length": 3, "win_length": 10, "window": "hann"},
    {"n_fft": 8, "center": False, "normalized": True}, {"n_fft": 8, "pad_mode": "CONSTANT", "onesided": False},
    {"n_fft": 12, "hop_length": 5, "batch": True},
])
def test_stft_matches_a_framing_oracle(kw):
    kw = dict(kw)
    batch = kw.pop("batch", False)
    x = rng.standard_normal((2, 50) if batch else (50,))
    n_fft = kw["n_fft"]
    hop, win = kw.get("hop_length", n_fft // 4), kw.get("win_length", n_fft)
    window = np.hanning(win) if kw.pop("window", None) == "hann" else None
    got = ops.stft(T(x), window=None if window is None else T(window), return_complex=True, **kw)
    want = _stft_oracle(x, n_fft, hop, win, window, kw.get("center", True), kw.get("pad_mode", "REFLECT"),
                        kw.get("normalized", False), kw.get("onesided", True) is not False)
    assert got.shape == want.shape
    np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-9, atol=1e-10)
    real = ops.stft(T(x), window=None if window is None else T(window), return_complex=False, **kw)
    np.testing.assert_allclose(real.asnumpy(), np.stack([want.real, want.imag], -1), rtol=1e-9, atol=1e-10)


def test_stft_class_form_does_not_centre():
    x, w = rng.standard_normal(40), np.hanning(8)
    got = ops.STFT(8, 2, 8, False, True, True)(T(x), T(w))
    np.testing.assert_allclose(got.asnumpy(), _stft_oracle(x, 8, 2, 8, w, False, "", False, True), rtol=1e-9,
                               atol=1e-10)


@pytest.mark.parametrize("dt", [np.float32, np.float64, np.complex64, np.complex128])
def test_eig_satisfies_the_eigen_equation(dt):
    a = rng.standard_normal((2, 4, 4)).astype(dt)
    if np.iscomplexobj(a):
        a = a + 1j * rng.standard_normal((2, 4, 4)).astype(dt)
    w, v = ops.eig(T(a))
    tol = 1e-4 if dt in (np.float32, np.complex64) else 1e-10
    assert w.dtype is (ms.complex64 if dt in (np.float32, np.complex64) else ms.complex128)
    w, v = w.asnumpy(), v.asnumpy()
    np.testing.assert_allclose(a @ v, v * w[..., None, :], atol=tol)
    np.testing.assert_allclose(np.linalg.norm(v, axis=-2), 1.0, rtol=tol)
    np.testing.assert_allclose(np.sort_complex(ops.eigvals(T(a)).asnumpy().ravel()),
                               np.sort_complex(np.linalg.eigvals(a).ravel()), atol=tol)
    np.testing.assert_allclose(T(a).eigvals().asnumpy(), w, atol=tol)
    vals, empty = ops.Eig()(T(a))
    assert empty.shape == (0,)
    np.testing.assert_allclose(vals.asnumpy(), w, atol=tol)


def test_eig_refuses_non_square_and_integer_input():
    with pytest.raises(ShapeError, match="Eig.*square"):
        ops.eig(T(np.ones((2, 3))))
    with pytest.raises(DTypeError, match="Eig"):
        ops.eig(T(np.ones((2, 2), np.int32)))


def test_matrix_logarithm_matches_scipy_and_inverts_expm():
    a = np.eye(3) * 2 + 0.3 * cx(2, 3, 3)
    got = ops.MatrixLogarithm()(T(a)).asnumpy()
    for i in range(2):
        np.testing.assert_allclose(got[i], scipy.linalg.logm(a[i]), rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(scipy.linalg.expm(got[i]), a[i], rtol=1e-10, atol=1e-12)
    with pytest.raises(DTypeError, match="MatrixLogarithm.*complex"):
        ops.MatrixLogarithm()(T(np.eye(2)))


def _raw_qr(a):
    (h, tau), _ = scipy.linalg.qr(a, mode="raw")
    return h, tau


@pytest.mark.parametrize("m,n", [(5, 3), (4, 4)])
def test_orgqr_and_ormqr_match_scipy(m, n):
    a = rng.standard_normal((m, n))
    h, tau = _raw_qr(a)
    q_full = scipy.linalg.qr(a)[0]
    np.testing.assert_allclose(ops.orgqr(T(h), T(tau)).asnumpy(), q_full[:, :n], atol=1e-12)
    np.testing.assert_allclose(T(h).orgqr(T(tau)).asnumpy(), q_full[:, :n], atol=1e-12)
    np.testing.assert_allclose(ops.Orgqr()(T(h), T(tau)).asnumpy(), q_full[:, :n], atol=1e-12)
    c, d = rng.standard_normal((m, 2)), rng.standard_normal((2, m))
    for left, tr, other, want in [(True, False, c, q_full @ c), (True, True, c, q_full.T @ c),
                                  (False, False, d, d @ q_full), (False, True, d, d @ q_full.T)]:
        np.testing.assert_allclose(ops.ormqr(T(h), T(tau), T(other), left, tr).asnumpy(), want, atol=1e-12)
        np.testing.assert_allclose(T(h).ormqr(T(tau), T(other), left, tr).asnumpy(), want, atol=1e-12)
        np.testing.assert_allclose(ops.Ormqr(left, tr)(T(h), T(tau), T(other)).asnumpy(), want, atol=1e-12)


def test_orgqr_batched_and_complex_matches_the_qr_factor():
    a = cx(2, 4, 3)
    got = ops.orgqr(*[T(t) for t in _stack_raw(a)]).asnumpy()
    for i in range(2):
        q = np.linalg.qr(a[i])[0]
        # the same Q up to LAPACK's sign convention: compare the projections Q Q^H
        np.testing.assert_allclose(got[i] @ got[i].conj().T, q @ q.conj().T, atol=1e-12)
        np.testing.assert_allclose(got[i].conj().T @ a[i], np.triu(got[i].conj().T @ a[i]), atol=1e-12)


def _stack_raw(a):
    hs, taus = zip(*[_raw_qr(m) for m in a])
    return np.stack(hs), np.stack(taus)


def test_orgqr_refuses_mismatched_shapes():
    with pytest.raises(ShapeError, match="orgqr"):
        ops.orgqr(T(np.ones((4, 3))), T(np.ones((2, 3))))
    with pytest.raises(ValueError, match="orgqr"):
        ops.orgqr(T(np.ones((4, 3))), T(np.ones(4)))
    with pytest.raises(ShapeError, match="ormqr"):
        ops.ormqr(T(np.ones((4, 3))), T(np.ones(3)), T(np.ones((3, 2))))
