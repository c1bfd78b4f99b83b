"""MindSpore's bitwise and integer ops (issue 14): `bitwise_and/or/xor`, the shifts,
`Tensor.bitwise_not`, `gcd`, and the NaN-ignoring `fmax`/`fmin`.

The bitwise ops and `gcd` take integer (and, where MindSpore does, bool) tensors of one dtype after
the usual promotion of Python numbers; they have no gradient. A right shift of a signed integer is
arithmetic (the sign is kept), as NumPy's and MindSpore's CPU kernels compute it; a shift by a
negative count or by at least the bit width gives what NumPy gives (MindSpore leaves it
unspecified). `fmax`/`fmin` return the other operand where one is NaN (NaN only where both are); the
gradient goes to the operand that was chosen (to `input` on ties).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import DTypeError
from ..tensor import Tensor, tensor_method
from ._rules import broadcast_shapes, require_same_dtype
from .array import sum_to, where
from .comparison import isnan
from .elementwise import _generate_wrappers
from .primitive import Api, Aval, primitive


def _int_infer(name: str, bools: bool):
    """Integer (and bool when `bools`) operands of one dtype, broadcast."""

    def infer(a: Any, b: Any) -> Aval:
        require_same_dtype(name, a, b)
        if not (a.dtype.is_int or (bools and a.dtype.np == np.bool_)):
            raise DTypeError(name, "integer" + (" or bool" if bools else "") + " tensors", str(a.dtype))
        return Aval(broadcast_shapes(name, a.shape, b.shape), a.dtype)

    return infer


@primitive
class BitwiseAnd:
    """Bitwise AND of two integer (or bool) tensors, element-wise with broadcasting."""

    api = Api("bitwise_and", cls="BitwiseAnd")
    nondiff = True
    infer = _int_infer("BitwiseAnd", True)

    def impl(a, b):
        return np.bitwise_and(a, b)


@primitive
class BitwiseOr:
    """Bitwise OR of two integer (or bool) tensors, element-wise with broadcasting."""

    api = Api("bitwise_or", cls="BitwiseOr")
    nondiff = True
    infer = _int_infer("BitwiseOr", True)

    def impl(a, b):
        return np.bitwise_or(a, b)


@primitive
class BitwiseXor:
    """Bitwise XOR of two integer (or bool) tensors, element-wise with broadcasting."""

    api = Api("bitwise_xor", cls="BitwiseXor")
    nondiff = True
    infer = _int_infer("BitwiseXor", True)

    def impl(a, b):
        return np.bitwise_xor(a, b)


@primitive
class BitwiseLeftShift:
    """`input` shifted left by `other` bits, element-wise with broadcasting (integers)."""

    api = Api("bitwise_left_shift")
    nondiff = True
    infer = _int_infer("BitwiseLeftShift", False)

    def impl(a, b):
        return np.left_shift(a, b)


@primitive
class BitwiseRightShift:
    """`input` shifted right by `other` bits (arithmetic for signed integers), with broadcasting."""

    api = Api("bitwise_right_shift")
    nondiff = True
    infer = _int_infer("BitwiseRightShift", False)

    def impl(a, b):
        return np.right_shift(a, b)


@primitive
class BitwiseNot:
    """Bitwise NOT of an integer tensor (logical NOT of a bool tensor)."""

    nondiff = True

    def infer(a: Any) -> Aval:
        if not (a.dtype.is_int or a.dtype.np == np.bool_):
            raise DTypeError("bitwise_not", "an integer or bool tensor", str(a.dtype))
        return Aval(tuple(a.shape), a.dtype)

    def impl(a):
        return np.invert(a)


@tensor_method("bitwise_not")
def _bitwise_not(input: Tensor) -> Tensor:
    """Bitwise NOT of each element (``~x``; logical NOT for bool)."""
    return BitwiseNot(input)


@primitive
class Gcd:
    """Greatest common divisor of two integer tensors, element-wise with broadcasting (non-negative;
    gcd(0, 0) = 0)."""

    api = Api("gcd", cls="Gcd")
    nondiff = True
    infer = _int_infer("Gcd", False)

    def impl(a, b):
        return np.gcd(a, b)


def _num_infer(name: str):
    def infer(a: Any, b: Any) -> Aval:
        require_same_dtype(name, a, b)
        if a.dtype.np == np.bool_:
            raise DTypeError(name, "numeric tensors", "Bool")
        return Aval(broadcast_shapes(name, a.shape, b.shape), a.dtype)

    return infer


def _pick_vjp(first_wins: Any):
    def vjp(g, out, a, b):
        take_a = first_wins(a, b)
        if a.dtype.is_float:
            take_a = take_a | isnan(b)
        return sum_to(where(take_a, g, 0.0), a.shape), sum_to(where(take_a, 0.0, g), b.shape)

    return vjp


@primitive
class Fmax:
    """Element-wise maximum that ignores NaN: where one operand is NaN the other is returned."""

    api = Api("fmax", cls="Fmax")
    infer = _num_infer("Fmax")

    def impl(a, b):
        return np.fmax(a, b)

    vjp = _pick_vjp(lambda a, b: a >= b)


@primitive
class Fmin:
    """Element-wise minimum that ignores NaN: where one operand is NaN the other is returned."""

    api = Api("fmin", cls="Fmin")
    infer = _num_infer("Fmin")

    def impl(a, b):
        return np.fmin(a, b)

    vjp = _pick_vjp(lambda a, b: a <= b)


_generate_wrappers(globals())  # ops.bitwise_and, Tensor.gcd, ops.Fmax, ... from the declarations' `api`
