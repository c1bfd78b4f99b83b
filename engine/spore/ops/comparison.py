"""Comparisons, logical ops and value tests: element-wise, broadcasting, bool results, no gradient.

Their wrappers convert Python numbers and promote mixed dtypes exactly as the arithmetic ops do
(``Tensor(int) < 2.5`` compares in float32). Logical ops take any dtype and read it as truth values
(non-zero is True), as MindSpore does.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..common import dtype as mstype
from ..onnx.spec import OnnxMap, same
from ..tensor import Tensor, tensor_method
from ._rules import broadcast_shapes, require_same_dtype
from .array import cast
from .elementwise import _binary, _promoted
from .primitive import Aval, primitive


def _cmp_infer(name: str):
    def infer(a: Any, b: Any) -> Aval:
        require_same_dtype(name, a, b)
        return Aval(broadcast_shapes(name, a.shape, b.shape), mstype.bool_)

    return infer


def _test_infer(a: Any) -> Aval:
    return Aval(a.shape, mstype.bool_)


@primitive
class Equal:
    """Whether the elements of two tensors are equal (broadcasting; bool result)."""
    onnx = same("Equal")

    nondiff = True
    infer = _cmp_infer("Equal")

    def impl(a, b):
        return np.equal(a, b)


@primitive
class NotEqual:
    """Whether the elements of two tensors differ (broadcasting; bool result)."""
    onnx = OnnxMap(export="not_equal")

    nondiff = True
    infer = _cmp_infer("NotEqual")

    def impl(a, b):
        return np.not_equal(a, b)


@primitive
class Less:
    """Whether x < y element-wise (broadcasting; bool result)."""
    onnx = same("Less")

    nondiff = True
    infer = _cmp_infer("Less")

    def impl(a, b):
        return np.less(a, b)


@primitive
class LessEqual:
    """Whether x <= y element-wise (broadcasting; bool result)."""
    onnx = same("LessOrEqual")

    nondiff = True
    infer = _cmp_infer("LessEqual")

    def impl(a, b):
        return np.less_equal(a, b)


@primitive
class Greater:
    """Whether x > y element-wise (broadcasting; bool result)."""
    onnx = same("Greater")

    nondiff = True
    infer = _cmp_infer("Greater")

    def impl(a, b):
        return np.greater(a, b)


@primitive
class GreaterEqual:
    """Whether x >= y element-wise (broadcasting; bool result)."""
    onnx = same("GreaterOrEqual")

    nondiff = True
    infer = _cmp_infer("GreaterEqual")

    def impl(a, b):
        return np.greater_equal(a, b)


@primitive
class LogicalAnd:
    """Element-wise logical AND of two bool tensors (broadcasting)."""
    onnx = same("And")

    nondiff = True
    infer = _cmp_infer("LogicalAnd")

    def impl(a, b):
        return np.logical_and(a, b)


@primitive
class LogicalOr:
    """Element-wise logical OR of two bool tensors (broadcasting)."""
    onnx = same("Or")

    nondiff = True
    infer = _cmp_infer("LogicalOr")

    def impl(a, b):
        return np.logical_or(a, b)


@primitive
class LogicalXor:
    """Element-wise logical XOR of two bool tensors (broadcasting)."""
    onnx = same("Xor")

    nondiff = True
    infer = _cmp_infer("LogicalXor")

    def impl(a, b):
        return np.logical_xor(a, b)


@primitive
class LogicalNot:
    """Element-wise logical NOT of a bool tensor."""
    onnx = same("Not")

    nondiff = True
    infer = _test_infer

    def impl(a):
        return np.logical_not(a)


@primitive
class IsNan:
    """Whether each element is NaN (always False for integer and bool tensors)."""
    onnx = same("IsNaN")

    nondiff = True
    infer = _test_infer

    def impl(a):
        return np.isnan(a) if a.dtype.kind in "fV" else np.zeros(a.shape, np.bool_)


@primitive
class IsInf:
    """Whether each element is +inf or -inf (always False for integer and bool tensors)."""

    nondiff = True
    infer = _test_infer

    def impl(a):
        return np.isinf(a) if a.dtype.kind in "fV" else np.zeros(a.shape, np.bool_)


@primitive
class IsFinite:
    """Whether each element is finite: neither NaN nor infinite (always True for integers and bools)."""

    nondiff = True
    infer = _test_infer

    def impl(a):
        return np.isfinite(a) if a.dtype.kind in "fV" else np.ones(a.shape, np.bool_)


@primitive
class IsClose:
    """Whether |x - y| <= atol + rtol * |y| element-wise (broadcasting; NaNs equal if `equal_nan`)."""

    nondiff = True

    def infer(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
        require_same_dtype("IsClose", a, b)
        return Aval(broadcast_shapes("IsClose", a.shape, b.shape), mstype.bool_)

    def impl(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
        return np.isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)


# --- functional wrappers --------------------------------------------------------------------------

@tensor_method("equal", "eq")
def equal(input: Any, other: Any) -> Tensor:
    """Computes the equivalence between two tensors element-wise (bool result)."""
    return _binary(Equal, input, other)


@tensor_method("not_equal", "ne")
def not_equal(input: Any, other: Any) -> Tensor:
    """Computes the non-equivalence of two tensors element-wise (bool result)."""
    return _binary(NotEqual, input, other)


@tensor_method("less", "lt")
def less(input: Any, other: Any) -> Tensor:
    """Computes the boolean value of input < other element-wise."""
    return _binary(Less, input, other)


@tensor_method("less_equal", "le")
def less_equal(input: Any, other: Any) -> Tensor:
    """Computes the boolean value of input <= other element-wise."""
    return _binary(LessEqual, input, other)


@tensor_method("greater", "gt")
def greater(input: Any, other: Any) -> Tensor:
    """Computes the boolean value of input > other element-wise."""
    return _binary(Greater, input, other)


@tensor_method("greater_equal", "ge")
def greater_equal(input: Any, other: Any) -> Tensor:
    """Computes the boolean value of input >= other element-wise."""
    return _binary(GreaterEqual, input, other)


ne, lt, le, gt, ge = not_equal, less, less_equal, greater, greater_equal


def _bools(a: Any, b: Any) -> tuple[Tensor, Tensor]:
    a, b = _promoted(a, b)
    return cast(a, mstype.bool_), cast(b, mstype.bool_)


@tensor_method("logical_and")
def logical_and(input: Any, other: Any) -> Tensor:
    """Computes the logical AND of two tensors element-wise (inputs read as truth values)."""
    return LogicalAnd(*_bools(input, other))


@tensor_method("logical_or")
def logical_or(input: Any, other: Any) -> Tensor:
    """Computes the logical OR of two tensors element-wise (inputs read as truth values)."""
    return LogicalOr(*_bools(input, other))


@tensor_method("logical_xor")
def logical_xor(input: Any, other: Any) -> Tensor:
    """Computes the logical XOR of two tensors element-wise (inputs read as truth values)."""
    return LogicalXor(*_bools(input, other))


@tensor_method("logical_not")
def logical_not(input: Tensor) -> Tensor:
    """Computes the logical NOT of a tensor element-wise (input read as truth values)."""
    return LogicalNot(cast(input, mstype.bool_))


@tensor_method("isnan")
def isnan(input: Tensor) -> Tensor:
    """Determines which elements are NaN."""
    return IsNan(input)


@tensor_method("isinf")
def isinf(input: Tensor) -> Tensor:
    """Determines which elements are positive or negative infinity."""
    return IsInf(input)


@tensor_method("isfinite")
def isfinite(input: Tensor) -> Tensor:
    """Determines which elements are finite."""
    return IsFinite(input)


@tensor_method("isclose")
def isclose(input: Any, other: Any, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> Tensor:
    """Whether each pair of elements is close: |input - other| <= atol + rtol * |other|."""
    a, b = _promoted(input, other)
    return IsClose(a, b, rtol=float(rtol), atol=float(atol), equal_nan=bool(equal_nan))


@tensor_method("allclose")
def allclose(input: Any, other: Any, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> bool:
    """Whether all pairs of elements are close (see `isclose`); a Python bool."""
    return bool(isclose(input, other, rtol, atol, equal_nan).all())  # a Graph-mode tracer refuses bool()
