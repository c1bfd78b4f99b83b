"""`Tensor` and `Parameter`: the user-facing n-dimensional array of Spore.

A Tensor owns a NumPy array (`_data`) and, while a gradient is being taken, a pointer to the tape
node that made it. Every method and operator goes through `spore.ops.functional`, so each is an
op from the registry: checked by its shape rule, differentiable, and visible to Graph mode.
"""

from __future__ import annotations

import numbers
from collections.abc import Iterator
from typing import Any

import numpy as np

from .common import dtype as mstype
from .common.dtype import DType


def _infer_np(data: Any, dtype: DType | None) -> np.ndarray:
    """Turn user input into an ndarray with MindSpore's default dtypes: Python floats become
    float32, Python ints int64, bools bool; NumPy data keeps its dtype; `dtype` casts. Strings,
    ragged sequences, complex numbers and dtypes Spore lacks are refused with a clear error."""
    if isinstance(data, Tensor):
        arr = data._data
    elif isinstance(data, np.ndarray):
        arr = data
    elif isinstance(data, np.generic):
        arr = np.asarray(data)
    else:
        if isinstance(data, (str, bytes)):
            raise TypeError(f"Tensor: cannot make a tensor from a {type(data).__name__} ({data!r})")
        if isinstance(data, (list, tuple)) and any(isinstance(x, Tensor) for x in _flatten(data)):
            data = _to_nested(data)
        try:
            arr = np.asarray(data)
        except ValueError:
            raise ValueError("Tensor: input_data is a ragged nested sequence (its rows have different "
                             "lengths); every row must have the same length") from None
        if dtype is None:
            if arr.dtype.kind == "f":
                arr = arr.astype(np.float32)
            elif arr.dtype.kind in "iu":
                arr = arr.astype(np.int64)
            elif arr.dtype.kind == "c":  # Python complex numbers: complex64, as Python floats are float32
                arr = arr.astype(np.complex64)
    if arr.dtype.kind in "OUSVc" and arr.dtype not in mstype._BY_NP:
        what = {"O": "Python objects", "U": "strings", "S": "bytes", "c": "complex numbers"}.get(
            arr.dtype.kind, str(arr.dtype))
        raise TypeError(f"Tensor: cannot make a tensor from {what} (NumPy dtype {arr.dtype}); "
                        "Spore tensors hold bool, integer, floating-point or complex numbers")
    if dtype is not None:
        dt = mstype.to_dtype(dtype).np
        if arr.dtype.kind == "c" and dt.kind != "c":
            raise TypeError(f"Tensor: cannot make a {mstype.to_dtype(dtype)} tensor from complex numbers "
                            "(the imaginary part would be dropped); take ops.real or ops.abs first")
        if arr.dtype != dt:
            arr = arr.astype(dt)
    elif arr.dtype not in mstype._BY_NP:
        mstype.from_numpy(arr.dtype)  # raises a clear TypeError
    return arr


PRINT_THRESHOLD = 1000  # NumPy's defaults (and MindSpore's print): above this many elements ...
PRINT_EDGEITEMS = 3     # ... each long axis shows this many entries at each end


def _printable(arr: np.ndarray) -> np.ndarray:
    """bfloat16 prints through float32 (NumPy would show it without a decimal point)."""
    return arr.astype(np.float32) if arr.dtype.kind == "V" else arr


def _shown(arr: np.ndarray, threshold: int, edgeitems: int) -> tuple[np.ndarray, int]:
    """The part of `arr` NumPy's summarisation prints, and the threshold that prints it so.

    Printing a 2.5e8-element bfloat16 tensor must not cast (copy) all of it to float32 when only
    the corners are shown. Above `threshold` elements NumPy shows `edgeitems` entries at each end
    of every axis longer than 2*edgeitems; so each such axis is cut to those ends plus one middle
    entry, and the small result is printed with threshold 0: its long axes (2*edgeitems+1 > 2*edgeitems)
    are summarised again, the middle entry dropped, and the text (values, widths, precision, "...")
    is the text of the whole array. What is copied is at most (2*edgeitems+1) entries per long axis.
    """
    if arr.size <= threshold:
        return arr, threshold
    keep = []
    for n in arr.shape:
        if n > 2 * edgeitems:
            keep.append(np.r_[0:edgeitems, edgeitems, n - edgeitems:n])
        else:
            keep.append(np.arange(n))
    return arr[np.ix_(*keep)], 0


def _array_text(arr: np.ndarray, separator: str) -> str:
    shown, threshold = _shown(arr, PRINT_THRESHOLD, PRINT_EDGEITEMS)
    return np.array2string(_printable(shown), separator=separator, threshold=threshold,
                           edgeitems=PRINT_EDGEITEMS)


def _flatten(seq: Any) -> Iterator[Any]:
    for x in seq:
        if isinstance(x, (list, tuple)):
            yield from _flatten(x)
        else:
            yield x


def _to_nested(seq: Any) -> Any:
    if isinstance(seq, Tensor):
        return seq._data
    if isinstance(seq, (list, tuple)):
        return [_to_nested(x) for x in seq]
    return seq


class Tensor:
    """An n-dimensional array with MindSpore's API: ``Tensor(input_data, dtype)``.

    ``input_data`` may be a NumPy array, a (nested) list/tuple, a Python number or another Tensor.
    With ``shape`` and ``init`` instead, the tensor is filled by an initializer (MindSpore's lazy
    init, done eagerly here).
    """

    __slots__ = ("_data", "_node", "_out_index", "__weakref__", "__dict__")
    __array_priority__ = 100  # make numpy defer to Tensor's reflected operators
    _traced = False  # True on Graph mode's Tracer: a tensor that has a shape and dtype but no values yet
    _version = 0  # bumped (per instance) by in-place writes, so the tape can refuse stale reads

    def __init__(self, input_data: Any = None, dtype: Any = None, shape: Any = None,
                 init: Any = None, const_arg: bool = False, device: Any = None) -> None:
        if input_data is None:
            if shape is None:
                raise ValueError("Tensor: give input_data, or shape with init")
            from .common.initializer import initializer

            shape = (shape,) if isinstance(shape, int) else tuple(shape)
            arr = initializer(init if init is not None else "zeros", shape, dtype or mstype.float32)._data
        else:
            if init is not None:
                raise ValueError("Tensor: give either input_data or init, not both")
            arr = _infer_np(input_data, dtype)
        self._data = arr
        self._node = None
        self._out_index = 0

    @classmethod
    def _wrap(cls, arr: np.ndarray) -> Tensor:
        """Fast constructor for kernel outputs: no conversion, no checks."""
        t = object.__new__(Tensor)
        t._data = arr if isinstance(arr, np.ndarray) else np.asarray(arr)
        t._node = None
        t._out_index = 0
        return t

    # --- basic properties -------------------------------------------------------------------
    @property
    def shape(self) -> tuple[int, ...]:
        return self._data.shape

    @property
    def dtype(self) -> DType:
        return mstype._BY_NP[self._data.dtype]

    @property
    def ndim(self) -> int:
        return self._data.ndim

    @property
    def size(self) -> int:
        return self._data.size

    @property
    def itemsize(self) -> int:
        return self._data.itemsize

    @property
    def nbytes(self) -> int:
        return self._data.nbytes

    @property
    def strides(self) -> tuple[int, ...]:
        return self._data.strides

    def dim(self) -> int:
        return self.ndim

    def numel(self) -> int:
        return self.size

    def nelement(self) -> int:
        return self.size

    def asnumpy(self) -> np.ndarray:
        """The values as a NumPy array (shares memory, as MindSpore's CPU tensors do)."""
        return self._data

    numpy = asnumpy

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        if dtype is not None and np.dtype(dtype) != self._data.dtype:
            return self._data.astype(dtype)
        return self._data.copy() if copy else self._data

    def item(self, *index: int) -> Any:
        if not index and self._data.size != 1:
            raise ValueError(f"Tensor.item: only a one-element tensor can be converted, shape is {self.shape}")
        return self._data.item(*index)

    def tolist(self) -> Any:
        return self._data.tolist()

    def __len__(self) -> int:
        if self.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self.shape[0]

    def __iter__(self) -> Iterator[Tensor]:
        if self.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(self.shape[0]))

    def __bool__(self) -> bool:
        if self._data.size != 1:
            raise ValueError(f"The truth value of a tensor with {self._data.size} elements is ambiguous; "
                             "use .any() or .all()")
        return bool(self._data.reshape(()))

    def __float__(self) -> float:
        return float(self.item())

    def __int__(self) -> int:
        return int(self.item())

    def __complex__(self) -> complex:
        return complex(self.item())

    def __index__(self) -> int:
        if self._data.dtype.kind not in "iub":
            raise TypeError("only integer tensors can be used as an index")
        return int(self.item())

    __hash__ = object.__hash__

    def __repr__(self) -> str:
        """MindSpore's layout: scalars and vectors inline, matrices from the next line."""
        body = _array_text(self._data, ", ")
        if self._data.ndim <= 1:
            return f"Tensor(shape={list(self.shape)}, dtype={self.dtype}, value= {body})"
        return f"Tensor(shape={list(self.shape)}, dtype={self.dtype}, value=\n{body})"

    def __str__(self) -> str:
        return _array_text(self._data, " ")

    def __format__(self, spec: str) -> str:
        if self._data.size == 1 and spec:
            return format(self.item(), spec)
        return str(self)

    def __reduce__(self):  # pickles by value (for dataset workers); never by loading untrusted data
        return (Tensor, (self._data,))

    def __deepcopy__(self, memo: dict) -> Tensor:
        return type(self)._wrap(self._data.copy()) if type(self) is Tensor else _copy_param(self)

    # --- conversions ------------------------------------------------------------------------
    def astype(self, dtype: Any, copy: bool = True) -> Tensor:
        return F.cast(self, dtype)

    def to(self, dtype: Any) -> Tensor:
        return F.cast(self, dtype)

    def float(self) -> Tensor:
        return F.cast(self, mstype.float32)

    def half(self) -> Tensor:
        return F.cast(self, mstype.float16)

    def double(self) -> Tensor:
        return F.cast(self, mstype.float64)

    def int(self) -> Tensor:
        return F.cast(self, mstype.int32)

    def long(self) -> Tensor:
        return F.cast(self, mstype.int64)

    def bool(self) -> Tensor:
        return F.cast(self, mstype.bool_)

    def copy(self) -> Tensor:
        return F.identity(self)

    def clone(self) -> Tensor:
        return F.identity(self)

    def detach(self) -> Tensor:
        return F.stop_gradient(self)

    def set_dtype(self, dtype: Any) -> Tensor:
        """Change the dtype in place (a compiled graph rebinds the traced value to the cast)."""
        if self._traced:
            return self._rebind(F.cast(self, dtype))
        self._data = self._data.astype(mstype.to_dtype(dtype).np)
        return self

    def assign_value(self, value: Any) -> Tensor:
        """Replace the contents in place (shape may change), as MindSpore's `assign_value`."""
        if self._traced:
            v = value if isinstance(value, Tensor) else Tensor(value, self.dtype)
            v = v if v.dtype is self.dtype else F.cast(v, self.dtype)
            return self._rebind(v if v._traced else F.identity(v))
        self._data = _infer_np(value, self.dtype).copy() if not isinstance(value, np.ndarray) \
            else value.astype(self._data.dtype, copy=True)
        return self

    # --- arithmetic operators ---------------------------------------------------------------
    def __add__(self, o: Any) -> Tensor:
        return F.add(self, o)

    def __radd__(self, o: Any) -> Tensor:
        return F.add(o, self)

    def __sub__(self, o: Any) -> Tensor:
        return F.sub(self, o)

    def __rsub__(self, o: Any) -> Tensor:
        return F.sub(o, self)

    def __mul__(self, o: Any) -> Tensor:
        return F.mul(self, o)

    def __rmul__(self, o: Any) -> Tensor:
        return F.mul(o, self)

    def __truediv__(self, o: Any) -> Tensor:
        return F.div(self, o)

    def __rtruediv__(self, o: Any) -> Tensor:
        return F.div(o, self)

    def __floordiv__(self, o: Any) -> Tensor:
        return F.floor_divide(self, o)

    def __rfloordiv__(self, o: Any) -> Tensor:
        return F.floor_divide(o, self)

    def __mod__(self, o: Any) -> Tensor:
        return F.remainder(self, o)

    def __rmod__(self, o: Any) -> Tensor:
        return F.remainder(o, self)

    def __pow__(self, o: Any) -> Tensor:
        return F.pow(self, o)

    def __rpow__(self, o: Any) -> Tensor:
        return F.pow(o, self)

    def __matmul__(self, o: Any) -> Tensor:
        return F.matmul(self, o)

    def __rmatmul__(self, o: Any) -> Tensor:
        return F.matmul(o, self)

    def __neg__(self) -> Tensor:
        return F.neg(self)

    def __pos__(self) -> Tensor:
        return self

    def __abs__(self) -> Tensor:
        return F.abs(self)

    def __invert__(self) -> Tensor:
        return F.logical_not(self)

    def __and__(self, o: Any) -> Tensor:
        return F.logical_and(self, o)

    def __or__(self, o: Any) -> Tensor:
        return F.logical_or(self, o)

    def __xor__(self, o: Any) -> Tensor:
        return F.logical_xor(self, o)

    __rand__ = __and__
    __ror__ = __or__
    __rxor__ = __xor__

    # --- comparisons ------------------------------------------------------------------------
    def __eq__(self, o: Any) -> Tensor:  # type: ignore[override]
        return F.equal(self, o)

    def __ne__(self, o: Any) -> Tensor:  # type: ignore[override]
        return F.not_equal(self, o)

    def __lt__(self, o: Any) -> Tensor:
        return F.less(self, o)

    def __le__(self, o: Any) -> Tensor:
        return F.less_equal(self, o)

    def __gt__(self, o: Any) -> Tensor:
        return F.greater(self, o)

    def __ge__(self, o: Any) -> Tensor:
        return F.greater_equal(self, o)

    # --- indexing ---------------------------------------------------------------------------
    def __getitem__(self, index: Any) -> Tensor:
        return F.getitem(self, index)

    def __setitem__(self, index: Any, value: Any) -> None:
        """In-place update, recorded as a functional scatter so gradients stay right."""
        F.setitem_(self, index, value)

    @property
    def T(self) -> Tensor:
        return F.transpose(self, tuple(range(self.ndim - 1, -1, -1)))

    @property
    def mT(self) -> Tensor:
        return F.swapaxes(self, -1, -2)

    # MindSpore marks whether a tensor has been initialised; eager tensors always are
    @property
    def has_init(self) -> bool:
        return False

    def init_data(self) -> Tensor:
        return self


class Parameter(Tensor):
    """A trainable Tensor with a name, as MindSpore's ``Parameter(default_input, name, requires_grad)``.

    Assigned as a Cell attribute it is registered in that Cell; optimizers update it in place.
    """

    def __init__(self, default_input: Any, name: str | None = None, requires_grad: bool = True,
                 layerwise_parallel: bool = False, parallel_optimizer: bool = True,
                 storage_format: str = "", device: Any = None) -> None:
        from .common.initializer import Initializer

        if isinstance(default_input, Initializer):
            arr = default_input.to_tensor()._data
        elif isinstance(default_input, numbers.Number) and not isinstance(default_input, (bool, np.bool_)):
            real_float = isinstance(default_input, (float, np.floating))
            arr = np.asarray(default_input, dtype=np.float32 if real_float else np.int32)
        else:
            arr = _infer_np(default_input, None)
            if isinstance(default_input, (Tensor, np.ndarray)):
                arr = arr.copy()  # the Parameter owns its storage: in-place updates stay inside it
        self._data = arr
        self._node = None
        self._out_index = 0
        self.name = name if name is not None else "Parameter"
        self.requires_grad = requires_grad
        self.layerwise_parallel = layerwise_parallel
        self.parallel_optimizer = parallel_optimizer
        self._user_named = name is not None

    @property
    def data(self) -> Parameter:
        return self

    def set_data(self, data: Any, slice_shape: bool = False) -> Parameter:
        """Replace the value (same dtype); shape may change only like MindSpore allows."""
        new = _infer_np(data, self.dtype)
        if not slice_shape and new.shape != self.shape and self.size != 1:
            raise ValueError(f"Parameter {self.name}: set_data got shape {new.shape}, "
                             f"the parameter has {self.shape}")
        self._data = np.array(new, copy=True)
        return self

    def clone(self, init: str = "same") -> Parameter:  # type: ignore[override]
        p = _copy_param(self)
        if init != "same":
            from .common.initializer import initializer

            p._data = initializer(init, self.shape, self.dtype)._data
        return p

    def __repr__(self) -> str:
        return f"Parameter (name={self.name}, shape={self.shape}, dtype={self.dtype}, " \
               f"requires_grad={self.requires_grad})"

    __str__ = __repr__

    def __reduce__(self):
        return (Parameter, (self._data, self.name, self.requires_grad))


def _copy_param(p: Parameter) -> Parameter:
    q = Parameter(p._data.copy(), name=p.name, requires_grad=p.requires_grad)
    q._user_named = p._user_named
    return q


class ParameterTuple(tuple):
    """A tuple of Parameters, as MindSpore's; `clone(prefix, init)` copies them (e.g. optimizer moments)."""

    def __new__(cls, iterable: Any = ()) -> ParameterTuple:
        items = tuple(iterable)
        for p in items:
            if not isinstance(p, Parameter):
                raise TypeError(f"ParameterTuple holds Parameters only, got {type(p).__name__}")
        return super().__new__(cls, items)

    def clone(self, prefix: str, init: str = "same") -> ParameterTuple:
        out = []
        for p in self:
            q = p.clone(init)
            q.name = f"{prefix}.{p.name}"
            out.append(q)
        return ParameterTuple(out)


def tensor_method(*names: str):
    """Install a function as a Tensor method under one or more names (used by the ops modules).

    Methods are real class attributes, so completion, `dir()` and static tools all see them.
    """

    def deco(fn: Any) -> Any:
        for n in names or (fn.__name__,):
            if n in Tensor.__dict__ and not callable(Tensor.__dict__[n]):
                raise ValueError(f"Tensor.{n} is a property; not overriding it with a method")
            setattr(Tensor, n, fn)
        return fn

    return deco


from .ops import functional as F  # noqa: E402  (ops import Tensor: load them once Tensor exists)
