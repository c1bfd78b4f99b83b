"""Elementwise arithmetic primitives and their functional wrappers.

Binary ops broadcast like NumPy; their wrappers convert Python numbers and promote mixed dtypes
(bool < int < float) with explicit casts, so the primitives themselves always see one dtype and
their gradients come back in each input's own dtype and shape. Transcendental functions (exp, log)
compute in floating point: their wrappers turn integer and bool tensors into float32 first, so each
primitive's rule stays "float in, the same float out".
"""

from __future__ import annotations
import __future__

import inspect
from typing import Any

import numpy as np

from ..common import dtype as mstype
from ..onnx.spec import same
from ..tensor import Tensor, tensor_method
from ._rules import as_tensor, broadcast_shapes, promote, require_float, require_same_dtype
from .primitive import Aval, Primitive, primitive


def _binary_infer(name: str):
    def infer(a: Any, b: Any) -> Aval:
        require_same_dtype(name, a, b)
        return Aval(broadcast_shapes(name, a.shape, b.shape), a.dtype)

    return infer


def _float_infer(name: str):
    """Shape rule of a float-only unary op: same shape and dtype, DTypeError on non-float input."""

    def infer(a: Any) -> Aval:
        require_float(name, a)
        return Aval(a.shape, a.dtype)

    return infer


def _same_infer(a: Any) -> Aval:
    """Shape rule of a unary op that keeps shape and dtype and accepts any dtype."""
    return Aval(a.shape, a.dtype)


def _relu_into(a: np.ndarray, out: np.ndarray) -> np.ndarray:
    """max(a, 0) into `out` (ReLU's `ufunc`)."""
    return np.maximum(a, 0, out=out)


@primitive
class Add:
    """Adds two tensors element-wise, with broadcasting."""
    onnx = same("Add")

    ufunc = np.add  # fusion, C++ opcode and in-place reuse: see ops/primitive.py
    opcode = 0
    inplace = True

    infer = _binary_infer("Add")

    def impl(a, b):
        if a.dtype.itemsize == 2 and a.dtype == b.dtype and a.dtype.kind in "fV" and a.size + b.size >= 2048:
            # float16/bfloat16 (a mixed-precision bias add): NumPy's bits, in float32 with C++ casts
            from ..amp import lowp

            if lowp.is_lowp(a.dtype):
                return lowp.binary_via_f32(np.add, a, b)
        return np.add(a, b)

    def vjp(g, out, a, b):
        return sum_to(g, a.shape), sum_to(g, b.shape)


@primitive
class Sub:
    """Subtracts the second tensor from the first element-wise, with broadcasting."""
    onnx = same("Sub")

    ufunc = np.subtract  # fusion, C++ opcode and in-place reuse: see ops/primitive.py
    opcode = 1
    inplace = True

    infer = _binary_infer("Sub")

    def impl(a, b):
        return np.subtract(a, b)

    def vjp(g, out, a, b):
        return sum_to(g, a.shape), sum_to(neg(g), b.shape)


@primitive
class Mul:
    """Multiplies two tensors element-wise, with broadcasting."""
    onnx = same("Mul")

    ufunc = np.multiply  # fusion, C++ opcode and in-place reuse: see ops/primitive.py
    opcode = 2
    inplace = True

    infer = _binary_infer("Mul")

    def impl(a, b):
        return np.multiply(a, b)

    def vjp(g, out, a, b):
        return sum_to(mul(g, b), a.shape), sum_to(mul(g, a), b.shape)


@primitive
class RealDiv:
    """Divides the first tensor by the second element-wise (true division), with broadcasting.

    Integer and bool inputs give a float32 result (true division), as in MindSpore.
    """
    onnx = same("Div")

    ufunc = np.divide  # fusion, C++ opcode and in-place reuse: see ops/primitive.py
    opcode = 3
    inplace = True

    def infer(a, b):
        require_same_dtype("RealDiv", a, b)
        return Aval(broadcast_shapes("RealDiv", a.shape, b.shape),
                    a.dtype if a.dtype.is_float or a.dtype.is_complex else mstype.float32)

    def impl(a, b):
        if a.dtype.kind in "biu":
            return np.true_divide(a, b).astype(np.float32)
        return np.true_divide(a, b)

    def vjp(g, out, a, b):
        ga = div(g, b)
        return sum_to(ga, a.shape), sum_to(neg(mul(ga, out)), b.shape)


@primitive
class Neg:
    """Negates a tensor element-wise."""
    onnx = same("Neg")

    ufunc = np.negative  # fusion, C++ opcode and in-place reuse: see ops/primitive.py
    opcode = 10
    inplace = True

    infer = _same_infer

    def impl(a):
        return np.negative(a)

    def vjp(g, out, a):
        return (neg(g),)


@primitive
class Exp:
    """Computes e raised to each element (float input)."""
    onnx = same("Exp")

    ufunc = np.exp  # fusion, C++ opcode and in-place reuse: see ops/primitive.py
    opcode = 11
    inplace = True

    infer = _float_infer("Exp")

    def impl(a):
        return np.exp(a)

    def vjp(g, out, a):
        return (mul(g, out),)


@primitive
class Log:
    """Computes the natural logarithm of each element (float input; log(0) = -inf)."""
    onnx = same("Log")

    ufunc = np.log  # fusion, C++ opcode and in-place reuse: see ops/primitive.py
    opcode = 12
    inplace = True

    infer = _float_infer("Log")

    def impl(a):
        return np.log(a)

    def vjp(g, out, a):
        return (div(g, a),)


@primitive
class ReLU:
    """Rectified linear unit: max(x, 0) element-wise."""
    onnx = same("Relu")

    ufunc = _relu_into  # fusion, C++ opcode and in-place reuse: see ops/primitive.py
    opcode = 13
    inplace = True

    infer = _same_infer

    def impl(a):
        if a.dtype.itemsize == 2:  # float16/bfloat16 (mixed precision): C++ on the bits, NumPy's loops are scalar
            from ..amp.lowp import relu as _relu16

            out = _relu16(a)
            if out is not None:
                return out
        return np.maximum(a, 0)

    def vjp(g, out, a):
        return (relu_grad(g, out),)


@primitive
class ReluGrad:
    """Gradient of ReLU: passes `g` where the ReLU output is positive."""

    def infer(g, out):
        return Aval(g.shape, g.dtype)

    def impl(g, out):
        # a multiply by the mask (only an inf/NaN `g` at a zero output differs from np.where); in C++ for
        # float32, one vectorised pass instead of NumPy's compare, temporary and multiply
        if g.dtype == np.float32 and out.dtype == np.float32 and g.shape == out.shape:
            from .. import _kernels

            return _kernels.relu_grad(g, out)
        if g.dtype.itemsize == 2:  # float16/bfloat16: the same bits from C++ (NumPy's loops are scalar)
            from ..amp.lowp import relu_grad as _relu_grad16

            r = _relu_grad16(g, out)
            if r is not None:
                return r
        return np.multiply(g, out > 0, dtype=g.dtype)

    def vjp(gg, _, g, out):
        return relu_grad(gg, out), None


def _as_float(x: Tensor) -> Tensor:
    """Integer and bool tensors become float32 (what MindSpore's math functions compute in); complex
    ones stay complex (an op without a complex kernel refuses them by name: ops/complex_ops.py)."""
    return x if x.dtype.is_float or x.dtype.is_complex else cast(x, mstype.float32)


def _promoted(a: Any, b: Any) -> tuple[Tensor, Tensor]:
    """Both operands as Tensors of one dtype: Python numbers take the other side's dtype when the
    kinds agree, then mixed dtypes promote (bool < int < float) with explicit casts."""
    if not isinstance(a, Tensor):
        a = as_tensor(a, b if isinstance(b, Tensor) else None)
    if not isinstance(b, Tensor):
        b = as_tensor(b, a)
    if a.dtype is not b.dtype:
        dt = promote(a.dtype, b.dtype)
        a, b = cast(a, dt), cast(b, dt)
    return a, b


def _generate_wrappers(namespace: dict[str, Any]) -> None:
    """Generate the functional wrappers (and Tensor methods) of the primitives in `namespace` that
    declare an `api` (see `primitive.Api`); a declaration module calls this once, at its end.

    Each wrapper is a real function of the declaring module, compiled under its file name (Spore's
    own code: Graph mode runs it over tracers, tracebacks leave it out), with MindSpore's parameter
    names (``input``; ``input, other`` for binary ops), the primitive's docstring and annotations
    that `inspect.signature` and the stub generator read.
    """
    for prim in [v for v in namespace.values() if isinstance(v, Primitive) and v.api is not None]:
        api = prim.api
        arity = sum(1 for p in inspect.signature(prim.infer).parameters.values()
                    if p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD))
        if arity == 1:
            arg = "_as_float(input)" if api.floats else "input"
            body = f"    def {api.function}(input: Tensor) -> Tensor:\n        return _prim({arg})\n"
        elif arity == 2:
            args = "_as_float(a), _as_float(b)" if api.floats else "a, b"
            body = (f"    def {api.function}(input: Any, other: Any) -> Tensor:\n"
                    f"        a, b = _promoted(input, other)\n"
                    f"        return _prim({args})\n")
        else:
            raise TypeError(f"{prim.name}: `api` generates wrappers of unary and binary ops only")
        # placed at the declaration's `impl` line, so go-to-definition and tracebacks land on the op
        line = max(1, prim.impl.__code__.co_firstlineno - 1)
        src = "\n" * (line - 1) + f"def _make(_prim, _as_float, _promoted):\n{body}    return {api.function}\n"
        code = compile(src, namespace["__file__"], "exec", flags=__future__.annotations.compiler_flag,
                       dont_inherit=True)
        scope: dict[str, Any] = {}
        exec(code, namespace, scope)  # noqa: S102 - Spore's own template, no user text
        fn = scope["_make"](prim, _as_float, _promoted)
        fn.__doc__ = prim.doc
        fn.__qualname__ = api.function
        tensor_method(api.function, *api.aliases)(fn)
        for name in (api.function, *api.aliases):
            namespace[name] = fn


def _binary(prim, a: Any, b: Any) -> Tensor:
    """Apply a binary primitive after converting and promoting its operands (see `_promoted`)."""
    if isinstance(a, Tensor) and isinstance(b, Tensor) and a.dtype.np == b.dtype.np:
        return prim(a, b)  # fast path: the common case of two tensors of one dtype
    return prim(*_promoted(a, b))


@tensor_method("add")
def add(input: Any, other: Any) -> Tensor:
    """Adds `other` to `input` element-wise."""
    return _binary(Add, input, other)


@tensor_method("sub", "subtract")
def sub(input: Any, other: Any) -> Tensor:
    """Subtracts `other` from `input` element-wise."""
    return _binary(Sub, input, other)


@tensor_method("mul")
def mul(input: Any, other: Any) -> Tensor:
    """Multiplies `input` by `other` element-wise."""
    return _binary(Mul, input, other)


def multiply(input: Any, other: Any) -> Tensor:
    """Multiplies `input` by `other` element-wise (same as `mul`)."""
    return _binary(Mul, input, other)


@tensor_method("multiply")
def _multiply_method(self: Tensor, value: Any) -> Tensor:
    """`self` times `value` element-wise (MindSpore's ``Tensor.multiply(value)``)."""
    return _binary(Mul, self, value)


@tensor_method("div", "divide")
def div(input: Any, other: Any, *, rounding_mode: str | None = None) -> Tensor:
    """Divides `input` by `other` element-wise.

    ``rounding_mode`` None is true division (integers give float32); ``'floor'`` rounds the
    quotient down (as `floor_divide`); ``'trunc'`` rounds it toward zero.
    """
    if rounding_mode is None:
        return _binary(RealDiv, input, other)
    if rounding_mode == "floor":
        from .math_ops import floor_divide

        return floor_divide(input, other)
    if rounding_mode == "trunc":
        from .math_ops import trunc

        a, b = _promoted(input, other)
        out = trunc(RealDiv(a, b))
        return out if a.dtype.is_float else cast(out, a.dtype)  # integer inputs stay integer
    raise ValueError(f"div: rounding_mode must be None, 'floor' or 'trunc', got {rounding_mode!r}")


@tensor_method("true_divide")
def true_divide(dividend: Any, divisor: Any) -> Tensor:
    """Divides `dividend` by `divisor` element-wise (true division)."""
    return _binary(RealDiv, dividend, divisor)


@tensor_method("neg", "negative")
def neg(input: Tensor) -> Tensor:
    """Returns -input element-wise."""
    return Neg(input)


@tensor_method("exp")
def exp(input: Tensor) -> Tensor:
    """Computes exponential of the input tensor element-wise."""
    return Exp(_as_float(input))


@tensor_method("log")
def log(input: Tensor) -> Tensor:
    """Computes the natural logarithm of the input tensor element-wise."""
    return Log(_as_float(input))


@tensor_method("relu")
def relu(input: Tensor, inplace: bool = False) -> Tensor:
    """Computes ReLU (rectified linear unit) of the input element-wise."""
    return ReLU(input)


def relu_grad(g: Tensor, out: Tensor) -> Tensor:
    """Gradient of ReLU given the output cotangent `g` and the ReLU output `out`."""
    return ReluGrad(g, out)


from .array import cast, sum_to  # noqa: E402  (array ops use the wrappers above)
