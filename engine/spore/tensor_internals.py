"""MindSpore's lower-level Tensor methods (issue 14): memory (`data_ptr`, `storage`,
`untyped_storage`, `set_`, DLPack in both directions, `get_bytes` / `convert_bytes_to_tensor`),
the framework flags (`is_init` / `set_init_flag`, `set_param_info`, `set_cast_dtype`), advanced
indexing by a list of index tensors (`index`), the index analysis of ``x[i]`` / ``x[i] = v``
(`getitem_index_info` / `setitem_index_info`), and the device/pipeline hooks.

A Spore tensor is a NumPy array on the host, so the device hooks do what MindSpore's own code
does for a tensor that lives on the CPU: `data_sync` (copy device -> host), `wait_pipeline` (wait
for queued asynchronous ops), `flush_from_cache` (write an embedding-cache back) and `delete_`
(free the device copy) have nothing to wait for or copy, and leave the values as they are.
`assign_value_cpp` is the C++ half of `assign_value` in MindSpore; here it is `assign_value`.

Installed on `Tensor` when `spore.ops` loads (ops/misc_ops.py imports this module); each method
reads values through `asnumpy()`, so inside a compiled construct (a tracer has no values yet)
Graph mode refuses the call at the user's line.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .common import dtype as mstype
from .tensor import Tensor


def _host(self: Tensor) -> np.ndarray:
    return self.asnumpy()


class UntypedStorage:
    """The bytes under a tensor, shared with it (MindSpore/PyTorch ``UntypedStorage``): writing a
    byte through the storage changes the tensor, and the other way round.

    `size()` and `nbytes()` are the length in bytes, `data_ptr()` the address of the first byte,
    `element_size()` is 1 (a byte), `device` is ``'cpu'``.
    """

    def __init__(self, buffer: np.ndarray) -> None:
        if buffer.dtype != np.uint8 or buffer.ndim != 1:
            raise TypeError("UntypedStorage: expects a 1-D uint8 buffer")
        self._bytes = buffer

    device = "cpu"

    def size(self) -> int:
        return int(self._bytes.size)

    def nbytes(self) -> int:
        return int(self._bytes.size)

    def __len__(self) -> int:
        return int(self._bytes.size)

    def element_size(self) -> int:
        return 1

    def data_ptr(self) -> int:
        return int(self._bytes.ctypes.data)

    def __getitem__(self, i: Any) -> Any:
        v = self._bytes[i]
        return int(v) if np.ndim(v) == 0 else UntypedStorage(np.ascontiguousarray(v))

    def __setitem__(self, i: Any, value: Any) -> None:
        self._bytes[i] = value

    def tolist(self) -> list[int]:
        return self._bytes.tolist()

    def fill_(self, value: int) -> UntypedStorage:
        self._bytes[...] = value
        return self

    def copy_(self, src: UntypedStorage) -> UntypedStorage:
        if not isinstance(src, UntypedStorage) or src.size() != self.size():
            raise ValueError("UntypedStorage.copy_: src must be an UntypedStorage of the same size")
        self._bytes[...] = src._bytes
        return self

    def cpu(self) -> UntypedStorage:
        return self

    def __repr__(self) -> str:
        return f"UntypedStorage(nbytes={self.size()}, device='cpu')"


def _contiguous(self: Tensor) -> np.ndarray:
    """The tensor's array, made C-contiguous in place first when it is a strided view (so a
    storage can cover it byte for byte)."""
    arr = _host(self)
    if not arr.flags.c_contiguous:
        arr = np.ascontiguousarray(arr)
        self._data = arr
    return arr


def data_ptr(self: Tensor) -> int:
    """The address of the tensor's first element (its host buffer: Spore tensors live there)."""
    return int(_host(self).ctypes.data)


def untyped_storage(self: Tensor) -> UntypedStorage:
    """The tensor's bytes as an `UntypedStorage` sharing its memory (a strided view is made
    contiguous first). MindSpore documents this for Ascend only; on the CPU the host buffer is
    the storage."""
    arr = _contiguous(self)
    return UntypedStorage(arr.reshape(-1).view(np.uint8))


def storage(self: Tensor) -> UntypedStorage:
    """As `untyped_storage` (MindSpore's ``storage()`` returns the untyped storage too)."""
    return untyped_storage(self)


def set_(self: Tensor, source: Any = None, storage_offset: int = 0, size: Any = None,
         stride: Any = None) -> Tensor:
    """Make this tensor a view of `source` (PyTorch's ``set_``): of another Tensor (its shape,
    dtype and memory), or of an `UntypedStorage` read as this tensor's dtype from element
    `storage_offset`, with `size` (default: all of it, 1-D) and element `stride` (default:
    contiguous). With no source, an empty tensor of this dtype. Returns self."""
    if self._traced:
        _host(self)  # refused in Graph mode: rebinding memory has no graph form
    if source is None:
        self._data = np.empty((0,), self._data.dtype)
        return self
    if isinstance(source, Tensor):
        if storage_offset or size is not None or stride is not None:
            src_store = untyped_storage(source)
            self._data = np.empty((0,), _host(source).dtype)
            return set_(self, src_store, storage_offset, size, stride)
        self._data = _host(source)
        return self
    if not isinstance(source, UntypedStorage):
        raise TypeError(f"Tensor.set_: source must be a Tensor or an UntypedStorage, got {type(source).__name__}")
    dt = self._data.dtype
    if isinstance(storage_offset, bool) or not isinstance(storage_offset, int) or storage_offset < 0:
        raise ValueError(f"Tensor.set_: storage_offset must be a non-negative int, got {storage_offset!r}")
    n = source.size() // dt.itemsize
    flat = source._bytes[:n * dt.itemsize].view(dt)
    if size is None:
        shape: tuple[int, ...] = (n - storage_offset,)
    else:
        shape = (int(size),) if isinstance(size, int) else tuple(int(s) for s in size)
    if stride is None:
        st, acc = [], 1
        for d in reversed(shape):
            st.append(acc)
            acc *= d
        strides = tuple(reversed(st))
    else:
        strides = (int(stride),) if isinstance(stride, int) else tuple(int(s) for s in stride)
    if len(strides) != len(shape):
        raise ValueError(f"Tensor.set_: size {shape} and stride {strides} differ in length")
    last = storage_offset + sum((d - 1) * s for d, s in zip(shape, strides) if d > 0)
    if any(d == 0 for d in shape):
        last = storage_offset - 1
    if last >= n:
        raise ValueError(f"Tensor.set_: size {shape} with stride {strides} from offset {storage_offset} needs "
                         f"{last + 1} elements; the storage holds {n}")
    self._data = np.lib.stride_tricks.as_strided(flat[storage_offset:], shape, tuple(s * dt.itemsize for s in strides))
    return self


class _Capsule:
    """Wraps a DLPack capsule (as `Tensor.to_dlpack` and other frameworks' ``to_dlpack`` give)
    into the object protocol `numpy.from_dlpack` reads."""

    def __init__(self, capsule: Any) -> None:
        self.capsule = capsule

    def __dlpack__(self, **_: Any) -> Any:
        return self.capsule

    def __dlpack_device__(self) -> tuple[int, int]:
        return (1, 0)  # kDLCPU


def from_dlpack(dlpack: Any) -> Tensor:
    """A Tensor sharing memory with a DLPack capsule or any object with ``__dlpack__`` (a PyTorch
    CPU tensor, a NumPy array), through NumPy's ``from_dlpack``."""
    obj = dlpack if hasattr(dlpack, "__dlpack__") else _Capsule(dlpack)
    try:
        arr = np.from_dlpack(obj)
    except (TypeError, ValueError, RuntimeError, BufferError) as e:
        raise TypeError(f"Tensor.from_dlpack: cannot read {type(dlpack).__name__} as a CPU DLPack tensor ({e})") \
            from None
    if arr.dtype not in mstype._BY_NP:
        mstype.from_numpy(arr.dtype)  # raises a TypeError naming the dtype
    return Tensor._wrap(arr)


def _dlpack(self: Tensor, stream: Any = None, **kwargs: Any) -> Any:
    """The DLPack protocol: lets ``torch.from_dlpack(t)`` / ``np.from_dlpack(t)`` share this tensor."""
    return np.ascontiguousarray(_host(self)).__dlpack__(**kwargs)


def _dlpack_device(self: Tensor) -> tuple[int, int]:
    return (1, 0)


def get_bytes(self: Tensor) -> bytes:
    """The tensor's values as raw bytes (C order, native byte order)."""
    return _host(self).tobytes()


def convert_bytes_to_tensor(bytes_data: bytes, shape: Any, dtype: Any) -> Tensor:
    """A Tensor of `shape` and `dtype` read from `bytes_data` (the inverse of `get_bytes`)."""
    if not isinstance(bytes_data, (bytes, bytearray, memoryview)):
        raise TypeError(f"Tensor.convert_bytes_to_tensor: bytes_data must be bytes, got {type(bytes_data).__name__}")
    dt = mstype.to_dtype(dtype).np
    shape = (shape,) if isinstance(shape, int) else tuple(int(s) for s in shape)
    need = int(np.prod(shape, dtype=np.int64)) * np.dtype(dt).itemsize
    if len(bytes_data) != need:
        raise ValueError(f"Tensor.convert_bytes_to_tensor: shape {shape} of {dtype} needs {need} bytes, "
                         f"got {len(bytes_data)}")
    return Tensor._wrap(np.frombuffer(bytes(bytes_data), dt).reshape(shape).copy())


def is_init(self: Tensor) -> bool:
    """The framework's init flag: whether the tensor has been handed to a compiled graph's device
    memory (set by `set_init_flag`; False for a new tensor, as in MindSpore)."""
    return bool(self.__dict__.get("_init_flag", False))


def set_init_flag(self: Tensor, flag: bool) -> None:
    """Set the init flag `is_init` reports."""
    if not isinstance(flag, (bool, np.bool_)):
        raise TypeError(f"Tensor.set_init_flag: flag must be a bool, got {type(flag).__name__}")
    self.__dict__["_init_flag"] = bool(flag)


def set_param_info(self: Tensor, param_info: Any) -> None:
    """Attach the framework's parameter record (MindSpore's ``ParamInfo``); kept as `param_info`."""
    self.__dict__["param_info"] = param_info


def set_cast_dtype(self: Tensor, dtype: Any = None) -> None:
    """Record the dtype a compiled graph casts this parameter to on entry (mixed precision);
    None clears it. The stored values are not changed (as in MindSpore)."""
    self.__dict__["cast_dtype"] = None if dtype is None else mstype.to_dtype(dtype)


def index(self: Tensor, indices: Any) -> Tensor:
    """Advanced indexing by a list of index tensors, one per leading dimension (MindSpore's
    ``Index`` op, PyTorch's ``aten::index``): ``x.index([i, j])`` is ``x[i, j]``; a None entry
    keeps that whole dimension; a bool tensor selects by mask."""
    if not isinstance(indices, (list, tuple)):
        raise TypeError(f"Tensor.index: indices must be a list or tuple of Tensors, got {type(indices).__name__}")
    if len(indices) > self.ndim:
        raise ValueError(f"Tensor.index: {len(indices)} indices for a tensor of rank {self.ndim}")
    items = []
    for k, i in enumerate(indices):
        if i is None:
            items.append(slice(None))
        elif isinstance(i, Tensor):
            if not (i.dtype.is_int or i.dtype == mstype.bool_):
                raise TypeError(f"Tensor.index: indices[{k}] must be an integer or bool Tensor, got {i.dtype}")
            items.append(i)
        else:
            raise TypeError(f"Tensor.index: indices[{k}] must be a Tensor or None, got {type(i).__name__}")
    return self[tuple(items)]


def _index_info(shape: tuple[int, ...], index: Any, op: str) -> dict:
    from .ops.indexing import index_shape, normalize_index

    entries = normalize_index(op, shape, index)
    kinds = {e[0] for e in entries}
    return {"index": entries, "shape": tuple(index_shape(op, shape, entries)),
            "is_view": not (kinds & {"array", "tensor"}), "ndim": len(shape)}


def getitem_index_info(self: Tensor, index: Any) -> dict:
    """The analysis ``self[index]`` runs before it reads (what MindSpore's C++ `getitem_index_info`
    feeds its graph): the normalised index entries (an Ellipsis expanded, negative positions made
    positive, a bool mask turned into integer arrays), the result shape, and whether the result
    is a view (basic indexing only). Out-of-range integers raise as indexing does."""
    return _index_info(tuple(self.shape), index, "Tensor.getitem_index_info")


def setitem_index_info(self: Tensor, index: Any, value: Any) -> dict:
    """As `getitem_index_info`, for ``self[index] = value``; also checks that `value` broadcasts
    to the indexed region (ValueError otherwise) and reports its shape as ``value_shape``."""
    info = _index_info(tuple(self.shape), index, "Tensor.setitem_index_info")
    vshape = tuple(value.shape) if isinstance(value, Tensor) else np.shape(value)
    try:
        np.broadcast_shapes(vshape, info["shape"])
    except ValueError:
        raise ValueError(f"Tensor.setitem_index_info: a value of shape {vshape} does not broadcast to the "
                         f"indexed shape {info['shape']}") from None
    if len(np.broadcast_shapes(vshape, info["shape"])) > len(info["shape"]):
        raise ValueError(f"Tensor.setitem_index_info: a value of shape {vshape} has more dimensions than the "
                         f"indexed shape {info['shape']}")
    info["value_shape"] = vshape
    return info


def data_sync(self: Tensor, need_wait: bool = True) -> None:
    """Copy device data to the host: a Spore tensor's data is on the host already (MindSpore's
    CPU tensors likewise have no device copy to fetch), so the values are left as they are."""
    _host(self)


def wait_pipeline(self: Tensor) -> None:
    """Wait until the asynchronous ops writing this tensor have run: Spore runs each op when it
    is called, so nothing is pending."""
    _host(self)


def flush_from_cache(self: Tensor) -> None:
    """Write an embedding-cache-enabled parameter's device cache back to the host: Spore has no
    device cache (MindSpore does this only when the parameter's cache is enabled), so nothing moves."""
    _host(self)


def delete_(self: Tensor, non_blocking: bool = False) -> None:
    """Free the tensor's device memory: a Spore tensor has none (its only copy is the host array,
    which Python frees with the last reference), so the values stay readable."""
    _host(self)


def assign_value_cpp(self: Tensor, value: Any) -> Tensor:
    """MindSpore's C++ half of `assign_value`: replace the contents by `value` in place."""
    return self.assign_value(value)


for _n, _f in (("data_ptr", data_ptr), ("untyped_storage", untyped_storage), ("storage", storage),
               ("set_", set_), ("get_bytes", get_bytes), ("is_init", is_init), ("set_init_flag", set_init_flag),
               ("set_param_info", set_param_info), ("set_cast_dtype", set_cast_dtype), ("index", index),
               ("getitem_index_info", getitem_index_info), ("setitem_index_info", setitem_index_info),
               ("data_sync", data_sync), ("wait_pipeline", wait_pipeline), ("flush_from_cache", flush_from_cache),
               ("delete_", delete_), ("assign_value_cpp", assign_value_cpp),
               ("__dlpack__", _dlpack), ("__dlpack_device__", _dlpack_device)):
    setattr(Tensor, _n, _f)
Tensor.from_dlpack = staticmethod(from_dlpack)  # type: ignore[attr-defined]
Tensor.convert_bytes_to_tensor = staticmethod(convert_bytes_to_tensor)  # type: ignore[attr-defined]
