"""Differential cases (Graph vs PyNative) for the complex-number and FFT slice of issue 14: the complex
ops (angle, imag, polar, view_as_real, Complex, ComplexAbs, ...), the fft family, stft, eig/eigvals,
orgqr/ormqr and their class forms and Tensor methods. Complex tensors are construct inputs like any
other: each case must be "identical" (or an error in both modes where the note says so)."""

from __future__ import annotations

from typing import Any

import numpy as np

import spore as ms
from spore import ops

from .cases_ops import K, _classes, _functions
from .cases_tensor_nn import C, G, fl


def cx(*shape: int, dt: Any = np.complex64) -> G:
    """Complex numbers with standard normal real and imaginary parts."""
    return G(lambda r: (r.standard_normal(shape) + 1j * r.standard_normal(shape)).astype(dt))


def rfft_abs_grad(x):
    """d sum |rfft(x)| / dx: a real -> complex -> real chain with its gradient, compiled whole."""
    return ms.grad(lambda t: ops.sum(ops.abs(ops.rfft(t))))(x)


def complex_grad(z):
    """The conjugate-Wirtinger gradient of sum |fft(z) * z|^2 w.r.t. a complex z."""
    return ms.grad(lambda t: ops.sum(ops.real(ops.fft(t) * ops.conj(ops.fft(t)))))(z)


def get_H(x):
    return x.H


def eig_grad(a):
    """The gradient of a phase-invariant loss of eig's eigenvalues and eigenvectors."""
    return ms.grad(lambda t: ops.sum(ops.abs(ops.eig(t)[1])) + ops.sum(ops.abs(ops.eig(t)[0])))(a)


def angle_grad(z):
    return ms.grad(lambda t: ops.sum(ops.angle(t) * 2))(z)


_FFT_1D = ("fft", "ifft", "hfft")
_RFFT_1D = ("rfft", "ihfft")
_ND = ("fft2", "ifft2", "fftn", "ifftn", "hfft2", "hfftn", "irfft2", "irfftn")
_RND = ("rfft2", "rfftn", "ihfft2", "ihfftn")


def _qr_raw(r: np.random.Generator, m: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    import scipy.linalg

    (h, tau), _ = scipy.linalg.qr(r.standard_normal((m, n)), mode="raw")
    return h.astype(np.float32), tau.astype(np.float32)


def _qr_h(m: int, n: int) -> G:
    return G(lambda r: _qr_raw(r, m, n)[0])


def _qr_tau(m: int, n: int) -> G:
    return G(lambda r: _qr_raw(r, m, n)[1])


@_functions
def _complex_functions() -> list:
    out = [
        C("ops.angle[0]", ops.angle, cx(2, 3)), C("ops.angle[f64]", ops.angle, cx(4, dt=np.complex128)),
        C("ops.angle[grad]", angle_grad, cx(3, 2)),
        C("ops.imag[0]", ops.imag, cx(2, 3)), C("ops.imag[real]", ops.imag, fl(3)),
        C("ops.polar[0]", ops.polar, fl(2, 3, lo=0.1, hi=2.0), fl(2, 3)),
        C("ops.polar[f64]", ops.polar, fl(4, lo=0.1, hi=2.0, dt=np.float64), fl(4, dt=np.float64)),
        C("ops.view_as_real[0]", ops.view_as_real, cx(2, 3)), C("ops.view_as_real[1-d]", ops.view_as_real, cx(5)),
        C("ops.rfftfreq[0]", ops.rfftfreq, 8), C("ops.rfftfreq[d]", ops.rfftfreq, 7, 0.5),
        C("ops.stft[0]", ops.stft, fl(64), 16, kw={"return_complex": True}),
        C("ops.stft[window]", ops.stft, fl(2, 40), 8, 2, 6, fl(6), kw={"return_complex": True}),
        C("ops.stft[real out]", ops.stft, fl(30), 8, kw={"center": False, "normalized": True}),
        C("ops.eig[0]", ops.eig, fl(3, 3)), C("ops.eig[batch]", ops.eig, fl(2, 3, 3, dt=np.float64)),
        C("ops.eig[grad]", eig_grad, fl(3, 3, dt=np.float64)),
        C("ops.eigvals[0]", ops.eigvals, fl(4, 4)), C("ops.eigvals[complex]", ops.eigvals, cx(3, 3)),
        C("ops.orgqr[0]", ops.orgqr, _qr_h(4, 3), _qr_tau(4, 3)), C("ops.orgqr[square]", ops.orgqr, _qr_h(3, 3),
                                                                      _qr_tau(3, 3)),
        C("ops.ormqr[0]", ops.ormqr, _qr_h(4, 3), _qr_tau(4, 3), fl(4, 2)),
        C("ops.ormqr[right T]", ops.ormqr, _qr_h(4, 3), _qr_tau(4, 3), fl(2, 4), kw={"left": False, "transpose": True}),
        C("ops.real[complex]", ops.real, cx(2, 3)), C("ops.conj[complex]", ops.conj, cx(2, 3)),
        C("ops.isreal[complex]", ops.isreal, G(lambda r: np.array([1 + 0j, 2 - 1j, 0j], np.complex64))),
        C("ops.adjoint[complex]", ops.adjoint, cx(2, 3, 4)), C("ops.norm[complex]", ops.norm, cx(3, 4)),
        C("ops.inverse[complex]", ops.inverse,
          G(lambda r: (np.eye(3) + 0.3 * (r.standard_normal((3, 3)) + 1j * r.standard_normal((3, 3))))
            .astype(np.complex64))),
        C("ops.rfft[grad of abs-sum]", rfft_abs_grad, fl(3, 8)),
        C("ops.fft[complex grad]", complex_grad, cx(6)),
    ]
    for n in _FFT_1D:
        f = getattr(ops, n)
        out += [C(f"ops.{n}[0]", f, cx(3, 8)), C(f"ops.{n}[n ortho]", f, cx(3, 8), kw={"n": 5, "norm": "ortho"}),
                C(f"ops.{n}[real in, dim 0]", f, fl(6, 2), kw={"dim": 0, "norm": "forward"})]
    out += [C("ops.irfft[0]", ops.irfft, cx(3, 5)), C("ops.irfft[n]", ops.irfft, cx(3, 5), kw={"n": 7}),
            C("ops.irfft[ortho]", ops.irfft, cx(4, 3), kw={"dim": 0, "norm": "ortho"})]
    for n in _RFFT_1D:
        f = getattr(ops, n)
        out += [C(f"ops.{n}[0]", f, fl(3, 8)), C(f"ops.{n}[n]", f, fl(3, 8), kw={"n": 5, "norm": "ortho"}),
                C(f"ops.{n}[complex in]", f, cx(4), note="an error in both modes: real input only")]
    for n in _ND:
        f = getattr(ops, n)
        out += [C(f"ops.{n}[0]", f, cx(3, 4)), C(f"ops.{n}[s]", f, cx(2, 3, 4), kw={"s": (4, 6), "norm": "ortho"}),
                C(f"ops.{n}[dim]", f, cx(4, 3, 2), kw={"dim": (0, 2), "norm": "forward"})]
    for n in _RND:
        f = getattr(ops, n)
        out += [C(f"ops.{n}[0]", f, fl(3, 4)), C(f"ops.{n}[s]", f, fl(2, 3, 4), kw={"s": (4, 6), "norm": "ortho"}),
                C(f"ops.{n}[dim]", f, fl(4, 3, 2), kw={"dim": (0, 2)})]
    return out


@_classes
def _complex_classes() -> list:
    return [
        K("Angle[0]", ops.Angle(), cx(2, 3)), K("Imag[0]", ops.Imag(), cx(4)),
        K("Complex[0]", ops.Complex(), fl(2, 3), fl(2, 3)),
        K("Real[complex]", ops.Real(), cx(2, 3)), K("Conj[complex]", ops.Conj(), cx(2, 3)),
        K("Complex[f64]", ops.Complex(), fl(3, dt=np.float64), fl(3, dt=np.float64)),
        K("ComplexAbs[0]", ops.ComplexAbs(), cx(2, 3)),
        K("Polar[0]", ops.Polar(), fl(3, lo=0.1, hi=2.0), fl(3)),
        K("FFTWithSize[c2c]", ops.FFTWithSize(1, False, False), cx(3, 8)),
        K("FFTWithSize[ifft2]", ops.FFTWithSize(2, True, False, norm="ortho"), cx(2, 4, 4)),
        K("FFTWithSize[rfft]", ops.FFTWithSize(1, False, True), fl(3, 8)),
        K("FFTWithSize[irfft]", ops.FFTWithSize(1, True, True, signal_sizes=(8,)), cx(3, 5)),
        K("STFT[0]", ops.STFT(16, 4, 16, False, True, True), fl(64), fl(16)),
        K("Eig[0]", ops.Eig(True), fl(3, 3)), K("Eig[values]", ops.Eig(), fl(4, 4)),
        K("MatrixLogarithm[0]", ops.MatrixLogarithm(),
          G(lambda r: (np.eye(3) * 2 + 0.3 * r.standard_normal((3, 3))).astype(np.complex64))),
        K("Orgqr[0]", ops.Orgqr(), _qr_h(4, 3), _qr_tau(4, 3)),
        K("Ormqr[0]", ops.Ormqr(), _qr_h(4, 3), _qr_tau(4, 3), fl(4, 2)),
        K("Ormqr[right]", ops.Ormqr(left=False), _qr_h(3, 3), _qr_tau(3, 3), fl(2, 3)),
    ]


def complex_tensor_cases() -> list:
    """Tensor.angle / imag / eigvals / orgqr / ormqr."""
    return [
        C("Tensor.angle[0]", ms.Tensor.angle, cx(2, 3)),
        C("Tensor.angle[f64]", ms.Tensor.angle, cx(4, dt=np.complex128)),
        C("Tensor.angle[real]", ms.Tensor.angle, fl(3), note="an error in both modes: complex input only"),
        C("Tensor.imag[0]", ms.Tensor.imag, cx(2, 3)), C("Tensor.imag[f64]", ms.Tensor.imag, cx(5, dt=np.complex128)),
        C("Tensor.imag[real]", ms.Tensor.imag, fl(3)),
        C("Tensor.eigvals[0]", ms.Tensor.eigvals, fl(3, 3)), C("Tensor.eigvals[batch]", ms.Tensor.eigvals, fl(2, 4, 4)),
        C("Tensor.eigvals[complex]", ms.Tensor.eigvals, cx(3, 3)),
        C("Tensor.real[complex]", ms.Tensor.real, cx(2, 3)), C("Tensor.conj[complex]", ms.Tensor.conj, cx(4)),
        C("Tensor.var[complex]", ms.Tensor.var, cx(3, 4)), C("Tensor.H[complex]", get_H, cx(2, 3)),
        C("Tensor.orgqr[0]", ms.Tensor.orgqr, _qr_h(4, 3), _qr_tau(4, 3)),
        C("Tensor.orgqr[square]", ms.Tensor.orgqr, _qr_h(3, 3), _qr_tau(3, 3)),
        C("Tensor.orgqr[2 reflectors]", ms.Tensor.orgqr, _qr_h(4, 2), _qr_tau(4, 2)),
        C("Tensor.ormqr[0]", ms.Tensor.ormqr, _qr_h(4, 3), _qr_tau(4, 3), fl(4, 2)),
        C("Tensor.ormqr[T]", ms.Tensor.ormqr, _qr_h(4, 3), _qr_tau(4, 3), fl(4, 2), True, True),
        C("Tensor.ormqr[right]", ms.Tensor.ormqr, _qr_h(3, 3), _qr_tau(3, 3), fl(2, 3), False),
    ]
