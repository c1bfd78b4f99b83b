"""Complex numbers (issue 14): the primitives `Complex`, `Real`, `Imag`, `Conj`, `Angle`, `ComplexAbs`,
`ViewAsReal`, `Eig`, `MatrixLogarithm`; the functions `imag`, `angle`, `polar`, `view_as_real`, `eig`,
`eigvals`, `orgqr`, `ormqr` (with their class forms and Tensor methods); and the table that says which
of Spore's existing primitives accept complex tensors.

Gradients follow MindSpore's and PyTorch's convention: the gradient of a real loss L with respect to
a complex z is the conjugate Wirtinger derivative, dL/d(re z) + i dL/d(im z). For a holomorphic op
w = f(z) that makes grad_z = conj(f'(z)) * grad_w; the existing rules compute g * f'(z) from the
op's inputs and output, so for the ops whose Taylor coefficients are real (mul, div, matmul, exp, log,
sqrt, sin, ...) the rule run on conj(grad_w), conjugated, gives the right answer. `COMPLEX_OK` lists
those ops (and the structural ones: reshape, slicing, sums, whose rules are right as written);
`_guard_registry` wraps the holomorphic ones' gradient rules so and makes every other primitive refuse a
complex input with a DTypeError naming it, so no op silently drops an imaginary part or orders
complex numbers (NumPy would: max/relu/argmax of complex). A gradient that reaches a real input
from a complex path is the real part (a real x moves only along re).
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from ..common import dtype as mstype
from ..errors import DTypeError
from ..tensor import Tensor, tensor_method
from .operation import Op, op_classes
from .primitive import INTERNAL, REGISTRY, Aval, primitive

_REAL_OF = {"complex64": mstype.float32, "complex128": mstype.float64}
_COMPLEX_OF = {"float32": mstype.complex64, "float64": mstype.complex128}


def _real_dtype(dt: Any) -> Any:
    """float32 for complex64, float64 for complex128; a real dtype is itself."""
    return _REAL_OF.get(dt.name, dt)


def _complex_dtype(dt: Any) -> Any:
    """complex64 for float32 (and for ints, bools, float16, bfloat16), complex128 for float64."""
    if dt.is_complex:
        return dt
    return _COMPLEX_OF.get(dt.name, mstype.complex64)


def _is_complex(t: Any) -> bool:
    return bool(getattr(getattr(t, "dtype", None), "is_complex", False))


def _any_complex(items: Any) -> bool:
    """Whether a tensor among `items` (or in a tuple/list among them: Concat's inputs) is complex;
    written for speed, as every op's shape rule and gradient rule asks it."""
    for t in items:
        dt = getattr(t, "dtype", None)
        if dt is not None:
            if getattr(dt, "is_complex", False):
                return True
        elif type(t) in (tuple, list) and _any_complex(t):
            return True
    return False


def _require_complex(op: str, a: Any) -> None:
    if not a.dtype.is_complex:
        raise DTypeError(op, "a complex64 or complex128 tensor", f"{a.dtype}",
                         hint="make one with ops.Complex()(real, imag) or x.astype(ms.complex64)")


def _require_real_float(op: str, *avals: Any) -> None:
    for a in avals:
        if a.dtype not in (mstype.float32, mstype.float64):
            raise DTypeError(op, "a float32 or float64 tensor", f"{a.dtype}")


# --- primitives ---------------------------------------------------------------------------------------
@primitive
class Complex:
    """``real + i * imag`` elementwise (float32 -> complex64, float64 -> complex128; shapes broadcast)."""

    def infer(real, imag):
        from ._rules import broadcast_shapes

        _require_real_float("Complex", real, imag)
        if real.dtype is not imag.dtype:
            raise DTypeError("Complex", "real and imag of one dtype", f"{real.dtype} and {imag.dtype}")
        return Aval(broadcast_shapes("Complex", real.shape, imag.shape), _COMPLEX_OF[real.dtype.name])

    def impl(real, imag):
        return (real + 1j * imag).astype(_COMPLEX_OF[real.dtype.name].np)

    def vjp(g, out, real, imag):
        from .array import SumTo

        gr, gi = (_Real(g), _Imag(g)) if _is_complex(g) else (g, None)
        gr = gr if tuple(gr.shape) == tuple(real.shape) else SumTo(gr, shape=tuple(real.shape))
        if gi is None:
            from .functional import zeros_like

            return gr, zeros_like(imag)
        gi = gi if tuple(gi.shape) == tuple(imag.shape) else SumTo(gi, shape=tuple(imag.shape))
        return gr, gi


@primitive
class Real:
    """The real part of a complex tensor (float32 for complex64, float64 for complex128)."""

    def infer(a):
        _require_complex("Real", a)
        return Aval(tuple(a.shape), _real_dtype(a.dtype))

    def impl(a):
        return a.real.copy()

    def vjp(g, out, a):  # L depends on re z only: dL/d(re) + i * 0
        return (_Complex(g, _zeros(g)),)


@primitive
class Imag:
    """The imaginary part of a complex tensor (float32 for complex64, float64 for complex128)."""

    def infer(a):
        _require_complex("Imag", a)
        return Aval(tuple(a.shape), _real_dtype(a.dtype))

    def impl(a):
        return a.imag.copy()

    def vjp(g, out, a):  # L depends on im z only: 0 + i * dL/d(im)
        return (_Complex(_zeros(g), g),)


@primitive
class Conj:
    """The complex conjugate re - i * im of a complex tensor."""

    def infer(a):
        _require_complex("Conj", a)
        return Aval(tuple(a.shape), a.dtype)

    def impl(a):
        return np.conj(a)

    def vjp(g, out, a):
        return (_Conj(g),)


@primitive
class Angle:
    """The argument atan2(im, re) of each complex element, in (-pi, pi] (a real tensor)."""

    def infer(a):
        _require_complex("Angle", a)
        return Aval(tuple(a.shape), _real_dtype(a.dtype))

    def impl(a):
        return np.angle(a).astype(_real_dtype(mstype.from_numpy(a.dtype)).np, copy=False)

    def vjp(g, out, a):  # d angle = (re d im - im d re) / |z|^2: grad = g * (-im + i re) / |z|^2
        from .elementwise import div, mul, neg

        re, im = _Real(a), _Imag(a)
        r2 = _ComplexAbs(a)
        r2 = mul(r2, r2)
        return (_Complex(div(mul(g, neg(im)), r2), div(mul(g, re), r2)),)


@primitive
class ComplexAbs:
    """|z| = sqrt(re^2 + im^2) of each complex element (a real tensor; the gradient at 0 is 0)."""

    def infer(a):
        _require_complex("ComplexAbs", a)
        return Aval(tuple(a.shape), _real_dtype(a.dtype))

    def impl(a):
        return np.abs(a)

    def vjp(g, out, a):  # grad = g * z / |z| (0 where z = 0)
        from .elementwise import div, mul
        from .functional import where

        safe = where(out == 0, _ones(out), out)
        return (_Complex(div(mul(g, _Real(a)), safe), div(mul(g, _Imag(a)), safe)),)


@primitive
class ViewAsReal:
    """A complex (...,) tensor as a real (..., 2) one: [..., 0] the real parts, [..., 1] the imaginary."""

    def infer(a):
        _require_complex("ViewAsReal", a)
        return Aval(tuple(a.shape) + (2,), _real_dtype(a.dtype))

    def impl(a):
        return np.stack([a.real, a.imag], axis=-1)

    def vjp(g, out, a):
        return (_Complex(g[..., 0], g[..., 1]),)


@primitive
class Eig:
    """Eigenvalues (and, with `compute_v`, unit-length right eigenvectors as columns) of square matrices
    (*, N, N), through LAPACK's geev (``numpy.linalg.eig``); complex64 out for float32/complex64 in,
    complex128 for float64/complex128. Without `compute_v` the second output is an empty tensor, as
    MindSpore's. The eigenvalues come in LAPACK's order (MindSpore promises none)."""

    multi_output = True

    def infer(a, compute_v=False):
        if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
            from ..errors import ShapeError

            raise ShapeError("Eig", "square matrices (*, N, N)", f"{tuple(a.shape)}")
        if a.dtype not in (mstype.float32, mstype.float64, mstype.complex64, mstype.complex128):
            raise DTypeError("Eig", "a float32, float64, complex64 or complex128 tensor", f"{a.dtype}")
        dt = _complex_dtype(a.dtype)
        return Aval(tuple(a.shape[:-1]), dt), Aval(tuple(a.shape) if compute_v else (0,), dt)

    def impl(a, compute_v=False):
        dt = np.complex128 if a.dtype in (np.float64, np.complex128) else np.complex64
        w, v = np.linalg.eig(a)
        return w.astype(dt), (v.astype(dt) if compute_v else np.zeros((0,), dt))

    def vjp(g, out, a, compute_v=False):
        """A = V diag(w) V^-1. Conjugate Wirtinger, as PyTorch's linalg_eig_backward: grad_A =
        V^-H (diag(g_w) + F) V^H with F_ij = (V^H g_V - V^H V diag(re diag(V^H g_V)))_ij /
        (conj(w_j) - conj(w_i)) off the diagonal. Each eigenvector is unit length with a phase of
        LAPACK's choosing, so only losses that do not depend on that phase have a gradient (as PyTorch)."""
        from .elementwise import div, mul, sub
        from .functional import expand_dims, matmul, reduce_sum

        gw, gv = g
        w, v = out if compute_v else _Eig(a, compute_v=True)
        vh = _adjoint(v)
        eye = _eye_like(v)
        inner = mul(expand_dims(gw, -2), eye)  # diag(g_w)
        if compute_v:
            vhgv = matmul(vh, gv if _is_complex(gv) else mul(gv, _ones(v)))
            dre = _Real(reduce_sum(mul(vhgv, eye), -2))  # re of diag(V^H g_V)
            num = sub(vhgv, matmul(vh, mul(v, expand_dims(dre, -2))))
            wc = _Conj(w)
            gap = sub(expand_dims(wc, -2), expand_dims(wc, -1))  # conj(w_j) - conj(w_i)
            off = mul(div(num, gap + eye), Tensor(1 - eye.asnumpy()))  # diagonal (gap 0 -> 1) dropped
            inner = inner + off
        inv = REGISTRY["MatrixInverse"](v)  # the primitive: ops.inverse casts non-float input to float32
        ga = matmul(matmul(_adjoint(inv), inner), vh)
        return (_fit_grad(ga, a),)  # a real A moves along its real part only


@primitive
class MatrixLogarithm:
    """The principal matrix logarithm of complex square matrices (*, N, N) (``scipy.linalg.logm``);
    MindSpore's op takes complex64/complex128 only, and has no gradient."""

    nondiff = True

    def infer(a):
        if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
            from ..errors import ShapeError

            raise ShapeError("MatrixLogarithm", "square matrices (*, N, N)", f"{tuple(a.shape)}")
        _require_complex("MatrixLogarithm", a)
        return Aval(tuple(a.shape), a.dtype)

    def impl(a):
        from scipy.linalg import logm

        out = np.empty_like(a)
        for idx in np.ndindex(a.shape[:-2]):
            out[idx] = logm(a[idx].astype(np.complex128))  # complex64 in double: logm warns at single precision
        return out


def _adjoint(t: Tensor) -> Tensor:
    from .functional import swapaxes

    t = swapaxes(t, -1, -2)
    return _Conj(t) if t.dtype.is_complex else t


def _eye_like(t: Tensor) -> Tensor:
    n = t.shape[-1]
    return Tensor(np.eye(n, dtype=_real_dtype(t.dtype).np))


# the primitives under private names: the class forms below take the public ones (ops.Complex())
_Complex = Complex
_Real = Real
_Imag = Imag
_Conj = Conj
_Angle = Angle
_ComplexAbs = ComplexAbs
_ViewAsReal = ViewAsReal
_Eig = Eig
_MatrixLogarithm = MatrixLogarithm


def _zeros(t: Tensor) -> Tensor:
    from .functional import zeros_like

    return zeros_like(t)


def _ones(t: Tensor) -> Tensor:
    from .functional import ones_like

    return ones_like(t)


# --- functions ----------------------------------------------------------------------------------------
@tensor_method("imag")
def imag(input: Tensor) -> Tensor:
    """The imaginary part of `input`: zeros for a real tensor (as MindSpore's), Im z for a complex one."""
    if not isinstance(input, Tensor):
        raise TypeError(f"imag: input must be a Tensor, got {type(input).__name__}")
    return _Imag(input) if input.dtype.is_complex else _zeros(input)


@tensor_method("angle")
def angle(input: Tensor) -> Tensor:
    """The element-wise argument of a complex tensor, in (-pi, pi] radians (a real tensor)."""
    if not isinstance(input, Tensor):
        raise TypeError(f"angle: input must be a Tensor, got {type(input).__name__}")
    return _Angle(input)


def polar(abs: Tensor, angle: Tensor) -> Tensor:  # noqa: A002  (MindSpore's names)
    """``abs * (cos(angle) + i sin(angle))``: the complex tensor with those magnitudes and arguments."""
    from .elementwise import mul
    from .functional import cos, sin

    if not isinstance(abs, Tensor) or not isinstance(angle, Tensor):
        raise TypeError("polar: abs and angle must be Tensors")
    _require_real_float("Polar", abs, angle)
    return _Complex(mul(abs, cos(angle)), mul(abs, sin(angle)))


def view_as_real(input: Tensor) -> Tensor:
    """The complex `input` of shape (...,) as a real tensor of shape (..., 2): real and imaginary parts."""
    if not isinstance(input, Tensor):
        raise TypeError(f"view_as_real: input must be a Tensor, got {type(input).__name__}")
    return _ViewAsReal(input)


def _complex_abs(x: Tensor) -> Tensor:
    """|z| of each element of a complex tensor (``ComplexAbs()(x)``)."""
    return _ComplexAbs(x)


@tensor_method("eigvals")
def eigvals(A: Tensor) -> Tensor:
    """The eigenvalues of square matrices (*, N, N), complex (differentiable: see `Eig`)."""
    if not isinstance(A, Tensor):
        raise TypeError(f"eigvals: A must be a Tensor, got {type(A).__name__}")
    return _Eig(A, compute_v=False)[0]


def eig(A: Tensor) -> tuple[Tensor, Tensor]:
    """(eigenvalues, eigenvectors) of square matrices (*, N, N); A v = lambda v for each column v
    (unit length; its phase is LAPACK's)."""
    if not isinstance(A, Tensor):
        raise TypeError(f"eig: A must be a Tensor, got {type(A).__name__}")
    return _Eig(A, compute_v=True)


def _householder(op: str, input: Tensor, tau: Tensor, full: bool) -> Tensor:
    """H_1 H_2 ... H_k, H_i = I - tau_i v_i v_i^H, v_i the i-th column of `input` below the diagonal
    with a 1 on it (LAPACK's geqrf storage); built from differentiable ops, so gradients and Graph mode
    come from theirs. `full`: the m x m product, else its first n columns (orgqr)."""
    from .elementwise import mul, sub
    from .functional import expand_dims, matmul

    if not isinstance(input, Tensor) or not isinstance(tau, Tensor):
        raise TypeError(f"{op}: input and tau must be Tensors")
    if input.ndim < 2 or tau.ndim != input.ndim - 1 or tuple(tau.shape[:-1]) != tuple(input.shape[:-2]):
        from ..errors import ShapeError

        raise ShapeError(op, "input (*, m, n) and tau (*, k) with the same batch dimensions",
                         f"{tuple(input.shape)} and {tuple(getattr(tau, 'shape', ()))}")
    m, n = input.shape[-2:]
    k = tau.shape[-1]
    if n > m or k > n:
        raise ValueError(f"{op}: need m >= n >= k for input (*, {m}, {n}) and tau (*, {k})")
    if input.dtype not in (mstype.float32, mstype.float64, mstype.complex64, mstype.complex128):
        raise DTypeError(op, "a float32, float64, complex64 or complex128 tensor", f"{input.dtype}")
    if tau.dtype is not input.dtype:
        raise DTypeError(op, "input and tau of one dtype", f"{input.dtype} and {tau.dtype}")
    below = np.tril(np.ones((m, n)), -1).astype(_real_dtype(input.dtype).np)
    refl = mul(input, Tensor(below)) + Tensor(np.eye(m, n, dtype=input.dtype.np))
    eye = Tensor(np.eye(m, dtype=input.dtype.np))
    q = None
    for i in range(k):
        v = refl[..., :, i:i + 1]
        h = sub(eye, mul(expand_dims(tau[..., i:i + 1], -1), matmul(v, _adjoint(v))))
        q = h if q is None else matmul(q, h)
    if q is None:  # no reflectors: Q is the identity
        q = mul(eye, Tensor(np.ones(tuple(input.shape[:-2]) + (1, 1), _real_dtype(input.dtype).np)))
    return q if full else q[..., :, :n]


@tensor_method("orgqr")
def orgqr(input: Tensor, input2: Tensor) -> Tensor:
    """The first n columns of Q = H_1 ... H_k from geqrf's reflectors (`input` (*, m, n), `input2` = tau (*, k))."""
    return _householder("orgqr", input, input2, full=False)


def ormqr(input: Tensor, tau: Tensor, other: Tensor, left: bool = True, transpose: bool = False) -> Tensor:
    """Q @ other (`left`) or other @ Q, with Q = H_1 ... H_k from geqrf's reflectors (`input`, `tau`);
    `transpose` uses Q^H (Q^T for real input)."""
    from .functional import matmul

    if not isinstance(other, Tensor):
        raise TypeError(f"ormqr: other must be a Tensor, got {type(other).__name__}")
    m = input.shape[-2] if isinstance(input, Tensor) and input.ndim >= 2 else None
    if other.ndim < 2 or (other.shape[-2] if left else other.shape[-1]) != m:
        from ..errors import ShapeError

        raise ShapeError("ormqr", f"other with {m} {'rows' if left else 'columns'} (input is (*, {m}, n))",
                         f"{tuple(other.shape)}")
    q = _householder("ormqr", input, tau, full=True)
    if other.dtype is not q.dtype:
        raise DTypeError("ormqr", "input and other of one dtype", f"{input.dtype} and {other.dtype}")
    q = _adjoint(q) if transpose else q
    return matmul(q, other) if left else matmul(other, q)


def _tensor_ormqr(self: Tensor, input2: Tensor, input3: Tensor, left: bool = True,
                  transpose: bool = False) -> Tensor:
    return ormqr(self, input2, input3, left, transpose)


Tensor.ormqr = _tensor_ormqr


# --- which existing primitives take complex input ------------------------------------------------------
# structural / real-linear: their gradient rules use only shapes and indices, never the values
_LINEAR = frozenset({
    "Add", "Sub", "Neg", "Reshape", "Transpose", "Concat", "Stack", "Split", "Unstack", "Tile", "BroadcastTo",
    "SumTo", "ReduceSum", "ReduceMean", "CumSum", "Gather", "GatherD", "GatherDGrad", "GatherGrad", "GatherNd",
    "GetItem", "GetItemGrad", "SetItem", "Select", "Pad", "Identity", "StopGradient", "TensorScatterUpdate",
    "TensorScatterAdd", "Assign", "Print",
})
# holomorphic with real Taylor coefficients: the rule run on conjugated inputs/outputs is the complex one
_HOLOMORPHIC = frozenset({
    "Mul", "RealDiv", "MatMul", "BatchMatMul", "Einsum", "Exp", "Expm1", "Log", "Log1p", "Sqrt", "Rsqrt",
    "Square", "Pow", "Reciprocal", "Sin", "Cos", "Tan", "Sinh", "Cosh", "Tanh", "TanhGrad", "ReduceProd",
    "MatrixInverse", "Det", "Log2", "Log10", "ACos", "Asin", "Atan", "Asinh", "Atanh",
})  # not Acosh: its rule 1/sqrt(z^2 - 1) is off the principal branch of acosh' = 1/(sqrt(z-1) sqrt(z+1))
# no gradient to speak of (predicates, sign) or rules that are already complex-correct as written
_OTHER = frozenset({"Equal", "NotEqual", "IsNan", "IsInf", "IsFinite", "IsClose", "Sign", "Abs", "Cast"})
_OWN = frozenset({"Complex", "Real", "Imag", "Conj", "Angle", "ComplexAbs", "ViewAsReal", "FFTN", "Eig",
                  "MatrixLogarithm"})
COMPLEX_OK = _LINEAR | _HOLOMORPHIC | _OTHER | _OWN


def _conj_any(x: Any) -> Any:
    if isinstance(x, tuple):
        return tuple(_conj_any(t) for t in x)
    return _Conj(x) if _is_complex(x) else x


def _fit_grad(g: Any, t: Any) -> Any:
    """A gradient for input `t`: the real part when `t` is real and the path made it complex."""
    if g is not None and _is_complex(g) and not _is_complex(t):
        if not getattr(t.dtype, "is_float", False):
            return None
        from .array import cast

        re = _Real(g)
        return re if re.dtype is t.dtype else cast(re, t.dtype)
    return g


def _wrap_vjp(prim: Any) -> None:
    orig, conj = prim.vjp, prim.name in _HOLOMORPHIC

    @functools.wraps(orig)
    def vjp(g: Any, out: Any, *inputs: Any, **attrs: Any) -> Any:
        if not (_any_complex(inputs) or _any_complex(out if type(out) is tuple else (out,))):  # the hot path
            return orig(g, out, *inputs, **attrs)
        if conj:  # conj(f'(z)) g = conj(f'(z) conj(g)): the real rule on conj(g), conjugated
            grads = tuple(None if gr is None else _conj_any(gr)
                          for gr in orig(_conj_any(g), out, *inputs, **attrs))
        else:
            grads = orig(g, out, *inputs, **attrs)
        return tuple(_fit_grad(gr, t) for gr, t in zip(grads, inputs))

    vjp._complex_wrapped = True  # type: ignore[attr-defined]
    prim.vjp = vjp


def _cast_vjp(g: Any, out: Any, a: Any, dtype: Any) -> tuple:
    """Cast's rule with complex numbers: real -> complex sends back the real part; complex -> complex casts."""
    from .array import cast

    if a.dtype.is_complex:
        return (cast(g, a.dtype) if g.dtype is not a.dtype else g,)
    if not a.dtype.is_float:
        return (None,)
    g = _Real(g) if _is_complex(g) else g
    return (cast(g, a.dtype) if g.dtype is not a.dtype else g,)


def _abs_infer(orig: Any) -> Any:
    @functools.wraps(orig)
    def infer(a: Any) -> Aval:
        if _is_complex(a):
            return Aval(tuple(a.shape), _real_dtype(a.dtype))
        return orig(a)

    return infer


def _refusing_infer(prim: Any) -> Any:
    orig = prim.infer

    @functools.wraps(orig)
    def infer(*args: Any, **attrs: Any) -> Any:
        if _any_complex(args):
            got = next((str(a.dtype) for a in args if _is_complex(a)), "a complex tensor")
            raise DTypeError(prim.name, "real tensors (this op has no complex kernel)", got,
                             hint="take ops.real(x), ops.imag(x) or ops.abs(x) first")
        return orig(*args, **attrs)

    infer._complex_guard = True  # type: ignore[attr-defined]
    return infer


def _guard_registry() -> None:
    """Make every registered primitive complex-aware or complex-refusing (idempotent: the declaration
    modules registered after this one are covered when `ops.functional` calls it again at its end)."""
    for prim in (*REGISTRY.values(), *INTERNAL.values()):
        if getattr(prim.infer, "_complex_guard", False) or getattr(prim.vjp, "_complex_wrapped", False):
            continue
        if prim.name in _OWN or prim.name.startswith(("GraphCall[", "GraphBackward[")):
            continue
        if prim.name not in COMPLEX_OK:
            if not prim.internal:
                prim.infer = _refusing_infer(prim)
            continue
        if prim.name == "Cast":
            prim.vjp = _cast_vjp
            _cast_vjp._complex_wrapped = True  # type: ignore[attr-defined]
            continue
        if prim.name == "Abs":
            prim.infer = _abs_infer(prim.infer)
            prim.infer._complex_guard = True  # type: ignore[attr-defined]
        if prim.vjp is not None and prim.name in _HOLOMORPHIC:  # the structural rules are right as written:
            _wrap_vjp(prim)  # their inputs share one dtype, so no gradient changes kind on the way back


# --- class forms --------------------------------------------------------------------------------------
def _complex_cls(real: Tensor, imag: Tensor) -> Tensor:
    return _Complex(real, imag)


def _imag_cls(input: Tensor) -> Tensor:
    return imag(input)


def _eig_cls(x: Tensor, compute_v: bool = False) -> tuple[Tensor, Tensor]:
    if not isinstance(compute_v, bool):
        raise TypeError(f"Eig: compute_v must be a bool, got {type(compute_v).__name__}")
    return _Eig(x, compute_v=compute_v)


def _logm_cls(x: Tensor) -> Tensor:
    return _MatrixLogarithm(x)


_TABLE = {
    "Complex": Op(_complex_cls, "real: Tensor, imag: Tensor", "real + i * imag (float32 -> complex64)."),
    "Imag": Op(_imag_cls, "input: Tensor", "the imaginary part of a complex tensor."),
    "Angle": Op(angle, "input: Tensor", "the argument of each complex element, in (-pi, pi]."),
    "ComplexAbs": Op(_complex_abs, "x: Tensor", "|z| of each complex element."),
    "Polar": Op(polar, "abs: Tensor, angle: Tensor", "abs * exp(i * angle)."),
    "Eig": Op(_eig_cls, "x: Tensor -> tuple[Tensor, Tensor]", "eigenvalues and (with compute_v) eigenvectors.",
              "compute_v: bool = False"),
    "MatrixLogarithm": Op(_logm_cls, "x: Tensor", "the principal logarithm of complex square matrices."),
    "Orgqr": Op(orgqr, "x: Tensor, tau: Tensor", "Q's first n columns from geqrf's reflectors."),
    "Ormqr": Op(ormqr, "x: Tensor, tau: Tensor, other: Tensor", "Q @ other (or other @ Q, or with Q^H).",
                "left: bool = True, transpose: bool = False"),
}
_CLASSES = op_classes(_TABLE, __name__)
globals().update(_CLASSES)
__all__ = [*_CLASSES]  # the class forms (ops/__init__.py CLASS_MODULES); the functions come from functional

_guard_registry()
