"""The FFT family of MindSpore 2.10 (issue 14): `fft`/`ifft`, `rfft`/`irfft`, `hfft`/`ihfft` in 1-d,
2-d and n-d forms, `rfftfreq`, `stft` and the class forms `FFTWithSize` and `STFT`.

One primitive, `FFTN`, does every transform through NumPy's pocketfft (``numpy.fft``), in three kinds:
complex -> complex (``c2c``, forward or inverse), real -> half-spectrum (``r2c``, rfftn) and
half-spectrum -> real (``c2r``, irfftn). The Hermitian transforms are the c2r / r2c ones on the
conjugate with the norm reversed, as NumPy's ``hfft``/``ihfft`` and PyTorch's ``hfftn``/``ihfftn``.

Gradients (conjugate Wirtinger, see ops/complex_ops.py): a transform is linear, so its gradient is its
adjoint. For c2c the adjoint of the normalised DFT is the opposite-direction transform with the
opposite norm ("backward" <-> "forward", "ortho" itself); the zero-padding / cropping that `n`/`s`
asks for becomes the cropping / zero-padding back. For r2c the half spectrum is zero-filled to the
full length first and the real part taken at the end; for c2r the gradient is the rfft of the
cotangent with the interior bins doubled (each of them stands for itself and its mirror image).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..common import dtype as mstype
from ..errors import DTypeError, ShapeError, located
from ..tensor import Tensor
from .complex_ops import _complex_dtype, _Conj, _Real, _real_dtype
from .operation import Op, op_classes
from .primitive import Aval, primitive

_NORMS = ("backward", "forward", "ortho")
_SWAP = {"backward": "forward", "forward": "backward", "ortho": "ortho"}


def _out_shape(shape: Sequence[int], axes: Sequence[int], s: Sequence[int], kind: str) -> tuple[int, ...]:
    out = list(shape)
    for ax, n in zip(axes, s):
        out[ax] = n
    if kind == "r2c":
        out[axes[-1]] = s[-1] // 2 + 1
    return tuple(out)


@primitive
class FFTN:
    """A discrete Fourier transform over `axes` with sizes `s` (each input axis zero-padded or cropped
    to its size first; for ``c2r`` the last size is the real output's length). `kind`: ``c2c``
    (`inverse` picks the direction), ``r2c`` (real in, the non-negative half of the spectrum out) or
    ``c2r`` (that half in, the real signal out). `norm` scales as NumPy's: ``backward`` divides the
    inverse by n, ``forward`` the forward one, ``ortho`` both by sqrt(n)."""

    def infer(a, kind, axes, s, norm, inverse=False):
        op = "FFTN"
        if kind == "r2c":
            if a.dtype not in (mstype.float32, mstype.float64):
                raise DTypeError(op, "a float32 or float64 tensor for a real-input transform", f"{a.dtype}")
            dt = _complex_dtype(a.dtype)
        else:
            if not a.dtype.is_complex:
                raise DTypeError(op, "a complex tensor", f"{a.dtype}")
            dt = _real_dtype(a.dtype) if kind == "c2r" else a.dtype
        if kind not in ("c2c", "r2c", "c2r") or norm not in _NORMS:
            raise ValueError(f"FFTN: bad kind {kind!r} or norm {norm!r}")
        if len(axes) != len(s) or not axes or any(not 0 <= ax < a.ndim for ax in axes) or any(n < 1 for n in s):
            raise ShapeError(op, "axes inside the input and sizes >= 1", f"axes={axes}, s={s} for shape {a.shape}")
        return Aval(_out_shape(a.shape, axes, s, kind), dt)

    def impl(a, kind, axes, s, norm, inverse=False):
        axes, s = list(axes), list(s)
        if kind == "c2c":
            out = (np.fft.ifftn if inverse else np.fft.fftn)(a, s=s, axes=axes, norm=norm)
            return out.astype(a.dtype, copy=False)
        if kind == "r2c":
            return np.fft.rfftn(a, s=s, axes=axes, norm=norm).astype(
                np.complex64 if a.dtype == np.float32 else np.complex128, copy=False)
        return np.fft.irfftn(a, s=s, axes=axes, norm=norm).astype(
            np.float32 if a.dtype == np.complex64 else np.float64, copy=False)

    def vjp(g, out, a, kind, axes, s, norm, inverse=False):
        back = _SWAP[norm]
        if kind != "c2r" and not g.dtype.is_complex:  # a real cotangent of a complex output: its real part
            from .array import cast

            g = cast(g, _complex_dtype(g.dtype))
        if kind == "c2c":
            z = FFTN(g, kind="c2c", axes=axes, s=tuple(g.shape[ax] for ax in axes), norm=back, inverse=not inverse)
            return (_fit(z, a.shape, axes),)
        if kind == "r2c":
            full = _fit(g, _out_shape(g.shape, axes[-1:], s[-1:], "c2c"), axes[-1:])
            z = FFTN(full, kind="c2c", axes=axes, s=tuple(s), norm=back, inverse=True)
            return (_Real(_fit(z, a.shape, axes)),)
        from .elementwise import mul

        z = FFTN(g, kind="r2c", axes=axes, s=tuple(s), norm=back)
        n, m = s[-1], s[-1] // 2 + 1
        w = np.full(m, 2.0)
        w[0] = 1.0
        if n % 2 == 0:
            w[-1] = 1.0
        shape = [1] * len(z.shape)
        shape[axes[-1]] = m
        z = mul(z, Tensor(w.reshape(shape).astype(_real_dtype(z.dtype).np)))
        return (_fit(z, a.shape, axes),)


def _fit(t: Tensor, shape: Sequence[int], axes: Sequence[int]) -> Tensor:
    """`t` cropped or zero-padded at the end of each of `axes` to the sizes in `shape`."""
    from .shape_ops import concat

    for ax in axes:
        have, want = t.shape[ax], shape[ax]
        if have > want:
            t = t[(slice(None),) * ax + (slice(0, want),)]
        elif have < want:
            zshape = list(t.shape)
            zshape[ax] = want - have
            t = concat([t, Tensor(np.zeros(zshape, t.dtype.np))], ax)
    return t


# --- argument handling --------------------------------------------------------------------------------
def _norm(op: str, norm: Any) -> str:
    if norm is None:
        return "backward"
    if norm not in _NORMS:
        raise ValueError(f"{op}: norm must be None, 'backward', 'forward' or 'ortho', got {norm!r}")
    return norm


def _axes_sizes(op: str, x: Tensor, s: Any, dim: Any, kind: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """MindSpore's (s, dim): dim None takes the last len(s) axes (all when s is None too)."""
    nd = x.ndim
    if nd == 0:
        raise located(ShapeError(op, "a tensor of rank >= 1", "a scalar"))
    if isinstance(s, (int, np.integer)):
        s = (int(s),)
    if isinstance(dim, (int, np.integer)):
        dim = (int(dim),)
    if dim is None:
        dim = tuple(range(nd)) if s is None else tuple(range(nd - len(s), nd))
    axes = []
    for d in dim:
        if not -nd <= int(d) < nd:
            raise located(ShapeError(op, f"dim in [{-nd}, {nd})", f"dim={tuple(dim)} for a {nd}-d input"))
        axes.append(int(d) % nd)
    if len(set(axes)) != len(axes):
        raise located(ShapeError(op, "distinct dims", f"dim={tuple(dim)}"))
    if s is None:
        sizes = [x.shape[ax] for ax in axes]
        if kind == "c2r":
            sizes[-1] = 2 * (sizes[-1] - 1)
    else:
        sizes = [int(n) for n in s]
        if len(sizes) != len(axes):
            raise located(ShapeError(op, "s and dim of one length", f"s={tuple(s)}, dim={tuple(dim)}"))
    if any(n < 1 for n in sizes):
        raise ValueError(f"{op}: the signal sizes must be >= 1, got {tuple(sizes)}"
                         + (" (a 1-long input to an inverse real transform needs n)" if kind == "c2r" else ""))
    return tuple(axes), tuple(sizes)


def _to_complex(op: str, x: Any) -> Tensor:
    from .array import cast

    if not isinstance(x, Tensor):
        raise TypeError(f"{op}: input must be a Tensor, got {type(x).__name__}")
    return x if x.dtype.is_complex else cast(x, _complex_dtype(x.dtype))


def _to_real(op: str, x: Any) -> Tensor:
    from .array import cast

    if not isinstance(x, Tensor):
        raise TypeError(f"{op}: input must be a Tensor, got {type(x).__name__}")
    if x.dtype.is_complex:
        raise located(DTypeError(op, "a real tensor", f"{x.dtype}",
                                 hint=f"use the complex transform ({op[1:]}) instead"))
    return x if x.dtype in (mstype.float32, mstype.float64) else cast(x, mstype.float32)


def _c2c(op: str, input: Tensor, s: Any, dim: Any, norm: Any, inverse: bool) -> Tensor:
    x = _to_complex(op, input)
    axes, sizes = _axes_sizes(op, x, s, dim, "c2c")
    return FFTN(x, kind="c2c", axes=axes, s=sizes, norm=_norm(op, norm), inverse=inverse)


def _r2c(op: str, input: Tensor, s: Any, dim: Any, norm: str) -> Tensor:
    x = _to_real(op, input)
    axes, sizes = _axes_sizes(op, x, s, dim, "r2c")
    return FFTN(x, kind="r2c", axes=axes, s=sizes, norm=norm)


def _c2r(op: str, input: Tensor, s: Any, dim: Any, norm: str) -> Tensor:
    x = _to_complex(op, input)
    axes, sizes = _axes_sizes(op, x, s, dim, "c2r")
    return FFTN(x, kind="c2r", axes=axes, s=sizes, norm=norm)


def _hermitian(op: str, input: Tensor, s: Any, dim: Any, norm: Any) -> Tensor:
    """hfft: the real signal whose spectrum is Hermitian with `input` as its first half."""
    x = _to_complex(op, input)
    return _c2r(op, _Conj(x), s, dim, _SWAP[_norm(op, norm)])


def _ihermitian(op: str, input: Tensor, s: Any, dim: Any, norm: Any) -> Tensor:
    return _Conj(_r2c(op, input, s, dim, _SWAP[_norm(op, norm)]))


# --- the public functions -----------------------------------------------------------------------------
def fft(input: Tensor, n: int | None = None, dim: int = -1, norm: str | None = None) -> Tensor:
    """The 1-d discrete Fourier transform along `dim` (`n`: zero-pad or crop that axis first)."""
    return _c2c("fft", input, None if n is None else (n,), (dim,), norm, False)


def ifft(input: Tensor, n: int | None = None, dim: int = -1, norm: str | None = None) -> Tensor:
    """The 1-d inverse discrete Fourier transform along `dim`."""
    return _c2c("ifft", input, None if n is None else (n,), (dim,), norm, True)


def fft2(input: Tensor, s: Any = None, dim: Any = (-2, -1), norm: str | None = None) -> Tensor:
    """The 2-d discrete Fourier transform over `dim` (sizes `s`)."""
    return _c2c("fft2", input, s, dim, norm, False)


def ifft2(input: Tensor, s: Any = None, dim: Any = (-2, -1), norm: str | None = None) -> Tensor:
    """The 2-d inverse discrete Fourier transform over `dim`."""
    return _c2c("ifft2", input, s, dim, norm, True)


def fftn(input: Tensor, s: Any = None, dim: Any = None, norm: str | None = None) -> Tensor:
    """The n-d discrete Fourier transform over `dim` (all axes, or the last len(s), when None)."""
    return _c2c("fftn", input, s, dim, norm, False)


def ifftn(input: Tensor, s: Any = None, dim: Any = None, norm: str | None = None) -> Tensor:
    """The n-d inverse discrete Fourier transform over `dim`."""
    return _c2c("ifftn", input, s, dim, norm, True)


def rfft(input: Tensor, n: int | None = None, dim: int = -1, norm: str | None = None) -> Tensor:
    """The 1-d transform of a real signal: the n//2 + 1 non-negative frequencies."""
    return _r2c("rfft", input, None if n is None else (n,), (dim,), _norm("rfft", norm))


def irfft(input: Tensor, n: int | None = None, dim: int = -1, norm: str | None = None) -> Tensor:
    """The inverse of `rfft`: a real signal of length `n` (default 2 * (len - 1)) from a half spectrum."""
    return _c2r("irfft", input, None if n is None else (n,), (dim,), _norm("irfft", norm))


def rfft2(input: Tensor, s: Any = None, dim: Any = (-2, -1), norm: str | None = None) -> Tensor:
    """The 2-d transform of a real signal (the last of `dim` halved)."""
    return _r2c("rfft2", input, s, dim, _norm("rfft2", norm))


def irfft2(input: Tensor, s: Any = None, dim: Any = (-2, -1), norm: str | None = None) -> Tensor:
    """The inverse of `rfft2`."""
    return _c2r("irfft2", input, s, dim, _norm("irfft2", norm))


def rfftn(input: Tensor, s: Any = None, dim: Any = None, norm: str | None = None) -> Tensor:
    """The n-d transform of a real signal (the last of `dim` halved)."""
    return _r2c("rfftn", input, s, dim, _norm("rfftn", norm))


def irfftn(input: Tensor, s: Any = None, dim: Any = None, norm: str | None = None) -> Tensor:
    """The inverse of `rfftn`."""
    return _c2r("irfftn", input, s, dim, _norm("irfftn", norm))


def hfft(input: Tensor, n: int | None = None, dim: int = -1, norm: str | None = None) -> Tensor:
    """The real spectrum of a signal with Hermitian symmetry given by its first half (NumPy's hfft)."""
    return _hermitian("hfft", input, None if n is None else (n,), (dim,), norm)


def ihfft(input: Tensor, n: int | None = None, dim: int = -1, norm: str | None = None) -> Tensor:
    """The inverse of `hfft`: the first half of the Hermitian inverse transform of a real signal."""
    return _ihermitian("ihfft", input, None if n is None else (n,), (dim,), norm)


def hfft2(input: Tensor, s: Any = None, dim: Any = (-2, -1), norm: str | None = None) -> Tensor:
    """The 2-d `hfft`."""
    return _hermitian("hfft2", input, s, dim, norm)


def ihfft2(input: Tensor, s: Any = None, dim: Any = (-2, -1), norm: str | None = None) -> Tensor:
    """The 2-d `ihfft`."""
    return _ihermitian("ihfft2", input, s, dim, norm)


def hfftn(input: Tensor, s: Any = None, dim: Any = None, norm: str | None = None) -> Tensor:
    """The n-d `hfft`."""
    return _hermitian("hfftn", input, s, dim, norm)


def ihfftn(input: Tensor, s: Any = None, dim: Any = None, norm: str | None = None) -> Tensor:
    """The n-d `ihfft`."""
    return _ihermitian("ihfftn", input, s, dim, norm)


def rfftfreq(n: int, d: float = 1.0, dtype: Any = None) -> Tensor:
    """The sample frequencies of `rfft` for a signal of length `n` and sample spacing `d` (float32 by default)."""
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"rfftfreq: n must be a positive int, got {n!r}")
    dt = mstype.float32 if dtype is None else mstype.to_dtype(dtype)
    return Tensor(np.fft.rfftfreq(int(n), float(d)).astype(dt.np))


# --- short-time Fourier transform ---------------------------------------------------------------------
def stft(x: Tensor, n_fft: int, hop_length: int | None = None, win_length: int | None = None,
         window: Tensor | None = None, center: bool = True, pad_mode: str = "REFLECT",
         normalized: bool = False, onesided: bool | None = None,
         return_complex: bool | None = None) -> Tensor:
    """The short-time Fourier transform of a 1-d signal or a (batch, length) batch of them:
    (..., n_freq, n_frames), complex (or (..., n_freq, n_frames, 2) real when `return_complex` is False).

    Frames of `n_fft` samples every `hop_length` (default n_fft // 4), each multiplied by `window`
    (default all ones; a shorter `win_length` window is centred in the frame); `center` pads
    n_fft // 2 on both sides first (`pad_mode` 'REFLECT' or 'CONSTANT'). `onesided` (default: real
    input and window) keeps the n_fft // 2 + 1 non-negative frequencies; `normalized` multiplies by
    n_fft ** -0.5. `return_complex` None means complex output for complex input or window, as
    MindSpore's (whose default follows the old PyTorch one).
    """
    from .array import cast
    from .elementwise import mul
    from .indexing import gather
    from .shape_ops import transpose

    op = "stft"
    if not isinstance(x, Tensor) or x.ndim not in (1, 2):
        raise ShapeError(op, "a 1-d signal or a 2-d (batch, length) tensor",
                         f"{getattr(x, 'shape', type(x).__name__)}")
    if isinstance(n_fft, bool) or not isinstance(n_fft, (int, np.integer)) or n_fft < 1:
        raise ValueError(f"stft: n_fft must be a positive int, got {n_fft!r}")
    hop = n_fft // 4 if hop_length is None else int(hop_length)
    win = n_fft if win_length is None else int(win_length)
    if hop < 1 or not 0 < win <= n_fft:
        raise ValueError(f"stft: need hop_length >= 1 and 0 < win_length <= n_fft, got {hop} and {win}")
    if pad_mode.upper() not in ("REFLECT", "CONSTANT"):
        raise ValueError(f"stft: pad_mode must be 'REFLECT' or 'CONSTANT', got {pad_mode!r}")
    cplx = x.dtype.is_complex or (window is not None and window.dtype.is_complex)
    if not x.dtype.is_complex and x.dtype not in (mstype.float32, mstype.float64):
        x = cast(x, mstype.float32)
    length = x.shape[-1]
    idx = np.arange(length)
    if center:
        p = n_fft // 2
        if pad_mode.upper() == "REFLECT":
            if p >= length:
                raise ValueError(f"stft: reflect padding of {p} needs a signal longer than {p}, got {length}")
            idx = np.concatenate([idx[1:p + 1][::-1], idx, idx[-p - 1:-1][::-1]])
        else:
            idx = np.concatenate([np.full(p, -1), idx, np.full(p, -1)])
    if len(idx) < n_fft:
        raise ValueError(f"stft: the (padded) signal has {len(idx)} samples, fewer than n_fft={n_fft}")
    frames = 1 + (len(idx) - n_fft) // hop
    pos = idx[np.arange(frames)[:, None] * hop + np.arange(n_fft)[None, :]]  # (frames, n_fft)
    y = gather(x, Tensor(np.where(pos < 0, 0, pos).astype(np.int64)), x.ndim - 1)  # (..., frames, n_fft)
    wnp = np.zeros(n_fft)
    left = (n_fft - win) // 2
    wnp[left:left + win] = 1.0
    zero_pad = (pos < 0).astype(np.float64)
    mask = Tensor((1.0 - zero_pad).astype(_real_dtype(x.dtype).np))
    y = mul(y, mask) if zero_pad.any() else y
    if window is not None:
        if window.ndim != 1 or window.shape[0] != win:
            raise ShapeError(op, f"a 1-d window of win_length={win} samples", f"{tuple(window.shape)}")
        from .shape_ops import concat

        parts = [t for t in (Tensor(np.zeros(left, window.dtype.np)), window,
                             Tensor(np.zeros(n_fft - left - win, window.dtype.np))) if t.shape[0]]
        y = mul(y, concat(parts, 0) if len(parts) > 1 else parts[0])
    elif win < n_fft:
        y = mul(y, Tensor(wnp.astype(_real_dtype(x.dtype).np)))
    one = (not cplx) if onesided is None else bool(onesided)
    if one and cplx:
        raise ValueError("stft: onesided=True needs a real input and window")
    spec = rfft(y, dim=-1) if one and not y.dtype.is_complex else fft(y, dim=-1)
    if normalized:
        spec = mul(spec, float(n_fft) ** -0.5)
    perm = tuple(range(spec.ndim - 2)) + (spec.ndim - 1, spec.ndim - 2)
    spec = transpose(spec, perm)  # (..., n_freq, frames)
    if return_complex is None:
        return_complex = cplx
    if not return_complex:
        from .complex_ops import view_as_real

        return view_as_real(spec)
    return spec


# --- class forms --------------------------------------------------------------------------------------
def _fft_with_size(x: Tensor, signal_ndim: int, inverse: bool, real: bool, norm: str = "backward",
                   onesided: bool = True, signal_sizes: Any = ()) -> Tensor:
    if signal_ndim not in (1, 2, 3) or signal_ndim > x.ndim:
        raise ValueError(f"FFTWithSize: signal_ndim must be 1, 2 or 3 and at most the rank {x.ndim}, got {signal_ndim}")
    dim = tuple(range(-signal_ndim, 0))
    if not real:
        return (ifftn if inverse else fftn)(x, None, dim, norm)
    if not inverse:
        return rfftn(x, None, dim, norm) if onesided else fftn(x, None, dim, norm)
    if not onesided:
        return _Real(ifftn(x, None, dim, norm))
    s = tuple(signal_sizes) if signal_sizes else None
    return irfftn(x, s, dim, norm)


def _stft_cls(x: Tensor, window: Tensor, n_fft: int, hop_length: int, win_length: int, normalized: bool,
              onesided: bool, return_complex: bool) -> Tensor:
    return stft(x, n_fft, hop_length, win_length, window, center=False, normalized=normalized,
                onesided=onesided, return_complex=return_complex)


_TABLE = {
    "FFTWithSize": Op(_fft_with_size, "x: Tensor", "fftn/ifftn/rfftn/irfftn over the last signal_ndim axes.",
                      "signal_ndim: int, inverse: bool, real: bool, norm: str = 'backward', onesided: bool = True, "
                      "signal_sizes: Any = ()"),
    "STFT": Op(_stft_cls, "x: Tensor, window: Tensor", "the short-time Fourier transform (no centre padding).",
               "n_fft: int, hop_length: int, win_length: int, normalized: bool, onesided: bool, return_complex: bool"),
}
_CLASSES = op_classes(_TABLE, __name__)
globals().update(_CLASSES)
__all__ = [*_CLASSES]  # the class forms (ops/__init__.py CLASS_MODULES); the functions come from functional
