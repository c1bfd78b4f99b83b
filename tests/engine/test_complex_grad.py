"""Gradients through complex numbers (issue 14), against finite differences taken on the real and
imaginary parts separately: for a real loss L of a complex z the gradient is the conjugate Wirtinger
derivative dL/d(re z) + i dL/d(im z) (MindSpore's and PyTorch's convention); for a real input, dL/dx."""

import numpy as np
import pytest

import spore as ms
from spore import ops

rng = np.random.default_rng(7)


def _cx(*shape):
    return rng.standard_normal(shape) + 1j * rng.standard_normal(shape)


def _fd(f, xs, i, eps=1e-6):
    x = xs[i]
    g = np.zeros(x.shape, dtype=x.dtype)
    units = (1.0, 1j) if np.iscomplexobj(x) else (1.0,)
    for idx in np.ndindex(x.shape):
        for u in units:
            old = x[idx]
            x[idx] = old + eps * u
            hi = float(f(*[ms.Tensor(a) for a in xs]).asnumpy())
            x[idx] = old - eps * u
            lo = float(f(*[ms.Tensor(a) for a in xs]).asnumpy())
            x[idx] = old
            g[idx] += u * (hi - lo) / (2 * eps)
    return g


def check(f, *xs, rtol=1e-6, atol=1e-6):
    xs = [np.array(a) for a in xs]
    got = ms.grad(f, grad_position=tuple(range(len(xs))))(*[ms.Tensor(a) for a in xs])
    got = got if isinstance(got, tuple) else (got,)
    for i, x in enumerate(xs):
        assert got[i].asnumpy().dtype == x.dtype, f"gradient {i} has dtype {got[i].dtype}, input {x.dtype}"
        np.testing.assert_allclose(got[i].asnumpy(), _fd(f, xs, i), rtol=rtol, atol=atol)


W = ms.Tensor(_cx(3, 8))
T = ms.Tensor(rng.standard_normal((3, 8)))
T43 = ms.Tensor(rng.standard_normal((4, 3)))


def _w(a):
    return W[:, :a.shape[-1]] if a.shape[-1] <= 8 else ops.concat([W, W[:, :a.shape[-1] - 8]], 1)


CASES = {
    "abs^2": (lambda a: ops.sum(ops.abs(a) ** 2), [_cx(3, 4)]),
    "mul": (lambda a: ops.real(ops.sum(a * a * W[:, :4])), [_cx(3, 4)]),
    "div": (lambda a: ops.imag(ops.sum(W[:, :4] / a)), [_cx(3, 4)]),
    "exp/log/sqrt": (lambda a: ops.real(ops.sum(ops.exp(a) + ops.log(a) * ops.sqrt(a))), [_cx(2, 3)]),
    "inverse trig": (lambda a: ops.real(ops.sum(ops.asin(a) + ops.acos(a) * ops.atan(a) * W[:2, :3])), [_cx(2, 3)]),
    "inverse hyperbolic": (lambda a: ops.imag(ops.sum(ops.asinh(a) * ops.atanh(a))), [_cx(2, 3)]),
    "log2/log10": (lambda a: ops.real(ops.sum(ops.log2(a) * ops.log10(a) * W[:2, :3])), [_cx(2, 3)]),
    "sin/tanh": (lambda a: ops.imag(ops.sum(ops.sin(a) * ops.tanh(a))), [_cx(2, 3)]),
    "matmul conj": (lambda a: ops.real(ops.sum(ops.matmul(a, ops.conj(a).T))), [_cx(3, 4)]),
    "inverse/det": (lambda a: ops.real(ops.sum(ops.inverse(a) * W[:3, :3]) + ops.det(a)),
                    [np.eye(3) + 0.3 * _cx(3, 3)]),
    "angle": (lambda a: ops.sum(ops.angle(a) * T[:, :4]), [_cx(3, 4)]),
    "real/imag": (lambda a: ops.sum(ops.real(a) * ops.imag(a)), [_cx(3, 4)]),
    "view_as_real": (lambda a: ops.sum(ops.view_as_real(a * a) ** 2), [_cx(2, 3)]),
    "complex abs": (lambda a: ops.sum(ops.ComplexAbs()(a) * T[:, :4]), [_cx(3, 4)]),
    "complex(re, im)": (lambda a, b: ops.sum(ops.abs(ops.Complex()(a, b) * W[:, :4])),
                        [rng.standard_normal((3, 4)), rng.standard_normal((3, 4))]),
    "polar": (lambda r, t: ops.real(ops.sum(ops.polar(r, t) * W[:, :4])),
              [rng.uniform(0.5, 2, (3, 4)), rng.standard_normal((3, 4))]),
    "cast real->complex": (lambda a: ops.sum(ops.abs(a.astype(ms.complex128) * W[:, :4])),
                           [rng.standard_normal((3, 4))]),
    "sum/mean/reshape/slice": (lambda a: ops.real(ops.sum(a.reshape(4, 3)[1:, :2].mean(0) * 3j)), [_cx(3, 4)]),
    "rfft->abs->sum": (lambda a: ops.sum(ops.abs(ops.rfft(a))), [rng.standard_normal((3, 8))]),
    "eigvals": (lambda a: ops.sum(ops.real(ops.eigvals(a) * ops.eigvals(a))), [rng.standard_normal((3, 3))]),
    "eigvals complex": (lambda a: ops.sum(ops.abs(ops.eigvals(a))), [_cx(3, 3)]),
    "orgqr": (lambda h, t: ops.sum(ops.orgqr(h, t) * T43),
              [rng.standard_normal((4, 3)), rng.uniform(0.5, 1.5, 3)]),
    "ormqr": (lambda h, t: ops.sum(ops.ormqr(h, t, T43, transpose=True) ** 2),
              [rng.standard_normal((4, 3)), rng.uniform(0.5, 1.5, 3)]),
    "stft": (lambda a: ops.sum(ops.abs(ops.stft(a, 8, 2, return_complex=True))), [rng.standard_normal(20)]),
}
for norm in ("backward", "ortho", "forward"):
    CASES |= {
        f"fft n {norm}": (lambda a, n=norm: ops.real(ops.sum(ops.fft(a, 6, norm=n) * W[:, :6])), [_cx(3, 8)]),
        f"ifft pad {norm}": (lambda a, n=norm: ops.real(ops.sum(ops.ifft(a, 10, norm=n) * _w(ops.zeros((3, 10))))),
                             [_cx(3, 8)]),
        f"rfft {norm}": (lambda a, n=norm: ops.sum(ops.imag(ops.rfft(a, 7, norm=n) * W[:, :4])),
                         [rng.standard_normal((3, 8))]),
        f"irfft odd {norm}": (lambda a, n=norm: ops.sum(ops.irfft(a, 9, norm=n) * ops.concat([T, T[:, :1]], 1)),
                              [_cx(3, 6)]),
        f"irfft even {norm}": (lambda a, n=norm: ops.sum(ops.irfft(a, norm=n) * T[:, :6]), [_cx(3, 4)]),
        f"hfft {norm}": (lambda a, n=norm: ops.sum(ops.hfft(a, norm=n) * T[:, :6]), [_cx(3, 4)]),
        f"ihfft {norm}": (lambda a, n=norm: ops.real(ops.sum(ops.ihfft(a, norm=n) * W[:, :5])),
                          [rng.standard_normal((3, 8))]),
        f"fft2 s {norm}": (lambda a, n=norm: ops.real(ops.sum(ops.fft2(a, (2, 5), norm=n) * W[:2, :5])), [_cx(3, 4)]),
        f"irfftn {norm}": (lambda a, n=norm: ops.sum(ops.irfftn(a, (3, 6), norm=n) * T[:, :6]), [_cx(3, 4)]),
        f"rfftn {norm}": (lambda a, n=norm: ops.sum(ops.real(ops.rfftn(a, norm=n) * W[:, :5])),
                          [rng.standard_normal((3, 8))]),
    }


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradient_matches_wirtinger_finite_differences(name):
    f, xs = CASES[name]
    check(f, *xs)


def test_eigenvector_gradients_of_phase_invariant_losses_match_finite_differences():
    """|v_ij| does not depend on the phase LAPACK gives each eigenvector, so it is differentiable."""
    wv = ms.Tensor(rng.standard_normal((3, 3)))
    check(lambda a: ops.sum(ops.abs(ops.eig(a)[1]) * wv) + ops.sum(ops.abs(ops.eig(a)[0])),
          rng.standard_normal((3, 3)), rtol=1e-5, atol=1e-6)
    check(lambda a: ops.sum(ops.abs(ops.eig(a)[1] * ops.eig(a)[1]) * wv), _cx(3, 3), rtol=1e-5, atol=1e-6)
