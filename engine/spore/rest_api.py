"""Small top-level MindSpore names: the dtype classes (`Type`, `Int`, `TensorType`), `Symbol`,
DLPack exchange (`to_dlpack`/`from_dlpack`) and `get_current_device`.

They live together because each is a thin, self-contained piece of MindSpore's top-level API that a
ported script meets (``isinstance(x.dtype, ms.Type)``, ``ms.from_dlpack(torch_tensor)``) and none
needs the op registry.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from .common import dtype as _dt


class _TypeMeta(type):
    """`isinstance(ms.float32, ms.Type)`: Spore's dtypes are `DType` objects, so the MindSpore type
    classes are checked by what the dtype is, not by inheritance."""

    def __instancecheck__(cls, obj: object) -> bool:
        return cls._accepts(obj)  # type: ignore[attr-defined]


class Type(metaclass=_TypeMeta):
    """The base of MindSpore's types: every Spore dtype (`spore.float32`, ...) and `TensorType` is
    an instance. Calling it gives the dtype of the name given (``Type("float32")``), as MindSpore's
    types are built from their names."""

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:  # noqa: D102
        if kwargs or len(args) != 1:
            raise TypeError("Type: expects one argument, a dtype name such as 'float32'")
        return _dt.to_dtype(args[0])

    @classmethod
    def _accepts(cls, obj: object) -> bool:
        return isinstance(obj, (_dt.DType, TensorType))


class Int(metaclass=_TypeMeta):
    """MindSpore's class of the signed integer types: ``isinstance(ms.int32, ms.Int)`` is True, and
    ``Int(32)`` is `spore.int32` (the width must be 8, 16, 32 or 64)."""

    def __new__(cls, nbits: int = 32) -> Any:  # noqa: D102
        if nbits not in (8, 16, 32, 64):
            raise ValueError(f"Int: nbits must be 8, 16, 32 or 64, got {nbits!r}")
        return _dt.get_dtype(f"int{nbits}")

    @classmethod
    def _accepts(cls, obj: object) -> bool:
        return isinstance(obj, _dt.DType) and obj.np.kind == "i"


class TensorType:
    """The type of a tensor of a given element type (MindSpore's ``TensorType(mstype.float32)``,
    printed ``Tensor[Float32]``); equal when the element types are."""

    __slots__ = ("_element",)

    def __init__(self, element: Any = None) -> None:
        self._element = None if element is None else _dt.to_dtype(element)

    def element_type(self) -> Any:
        """The element dtype (None for an unspecified tensor type)."""
        return self._element

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TensorType) and other._element == self._element

    def __hash__(self) -> int:
        return hash(("TensorType", self._element))

    def __repr__(self) -> str:
        return "Tensor" if self._element is None else f"Tensor[{self._element!r}]"

    __str__ = __repr__


class Symbol:
    """A symbolic dimension for a dynamic-shape input (``Tensor(shape=[Symbol(max=64), 3], dtype=...)``):
    the bounds and divisibility MindSpore's compiler may assume about that dimension. Spore checks
    the arguments as MindSpore does and `check` tests a concrete size against them."""

    def __init__(self, max: int = 0, min: int = 1, divisor: int = 1, remainder: int = 0,  # noqa: A002
                 unique: bool = False, **kwargs: Any) -> None:
        for name, v in (("max", max), ("min", min), ("divisor", divisor), ("remainder", remainder)):
            if not isinstance(v, int) or isinstance(v, bool):
                raise TypeError(f"Symbol: {name} must be an int, got {type(v).__name__}")
        if not isinstance(unique, bool):
            raise TypeError(f"Symbol: unique must be a bool, got {type(unique).__name__}")
        if min <= 0:
            raise ValueError(f"Symbol: min must be positive, got {min}")
        if divisor <= 0:
            raise ValueError(f"Symbol: divisor must be positive, got {divisor}")
        if max > 0 and max < min:
            raise ValueError(f"Symbol: max ({max}) must be 0 (unbounded) or at least min ({min})")
        if not 0 <= remainder < divisor:
            raise ValueError(f"Symbol: remainder must be in [0, divisor), got {remainder} for divisor {divisor}")
        unknown = set(kwargs) - {"name"}
        if unknown:
            raise TypeError(f"Symbol: unexpected keyword arguments {sorted(unknown)}")
        self.max, self.min, self.divisor, self.remainder, self.unique = max, min, divisor, remainder, unique
        self.name = kwargs.get("name")

    def check(self, size: int) -> bool:
        """Whether a concrete dimension size satisfies this symbol's constraints."""
        return (size >= self.min and (self.max <= 0 or size <= self.max)
                and size % self.divisor == self.remainder)

    def __repr__(self) -> str:
        return (f"Symbol(max={self.max}, min={self.min}, divisor={self.divisor}, remainder={self.remainder}, "
                f"unique={self.unique})")


class _Capsule:
    """Gives NumPy's `from_dlpack` a raw DLPack capsule (it takes only objects with `__dlpack__`)."""

    def __init__(self, capsule: Any) -> None:
        self._capsule = capsule

    def __dlpack__(self, *args: Any, **kwargs: Any) -> Any:
        return self._capsule

    def __dlpack_device__(self) -> tuple[int, int]:
        return (1, 0)  # kDLCPU: a capsule handed to Spore must hold host memory


def to_dlpack(tensor: Any) -> Any:
    """A DLPack capsule sharing `tensor`'s host memory (for PyTorch/JAX/CuPy ``from_dlpack``)."""
    from .tensor import Tensor

    if not isinstance(tensor, Tensor):
        raise TypeError(f"to_dlpack: tensor must be a Tensor, got {type(tensor).__name__}")
    arr = np.ascontiguousarray(tensor.asnumpy())
    return arr.__dlpack__()


def from_dlpack(dlpack: Any) -> Any:
    """A Tensor from a DLPack capsule or any object with ``__dlpack__`` (a PyTorch CPU tensor, a
    NumPy array). The data must live in host memory; the Tensor holds a copy-free NumPy view."""
    from .tensor import Tensor

    src = dlpack if hasattr(dlpack, "__dlpack__") else _Capsule(dlpack)
    if type(dlpack).__name__ != "PyCapsule" and src is not dlpack:
        raise TypeError(f"from_dlpack: expected a DLPack capsule or an object with __dlpack__, "
                        f"got {type(dlpack).__name__}")
    try:
        arr = np.from_dlpack(src)
    except (BufferError, RuntimeError, TypeError) as e:
        raise TypeError(f"from_dlpack: cannot import the DLPack data ({e})") from e
    return Tensor(arr)


class DeviceInfo(NamedTuple):
    """What `get_current_device` returns: the device type and its index."""

    device_target: str
    device_id: int


def get_current_device() -> DeviceInfo:
    """The device Spore runs on: always ``DeviceInfo('CPU', 0)`` (the target set in the context)."""
    from . import context

    target = context.get_context("device_target") or "CPU"
    device_id = context.get_context("device_id") or 0
    return DeviceInfo(str(target), int(device_id))
