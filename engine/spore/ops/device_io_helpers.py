"""Small device and I/O helpers of MindSpore's (issue 14): `move_to`/`Tensor.move_to` (only the CPU
exists here), `tensordump` (writes a .npy file), `Tensor.to_dlpack`, and `real`/`Tensor.real` (Spore
has no complex dtypes, so the real part of a tensor is the tensor), with the class forms `MoveTo`,
`TensorDump`, `Real`."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..tensor import Tensor
from .operation import Operation

_CPU = ("CPU", "cpu")


def move_to(input: Tensor, to: str = "CPU", blocking: bool = True) -> Tensor:
    """`input` on device `to`: Spore runs on the CPU only, so 'CPU' returns it and anything else is refused."""
    if to not in _CPU:
        raise ValueError(f"move_to: Spore runs on the CPU only, got to={to!r}")
    return input


Tensor.move_to = lambda self, to, blocking=True: move_to(self, to, blocking)  # noqa: E731


def tensordump(file_name: str, tensor: Tensor, mode: str = "out") -> None:
    """Saves `tensor` to `file_name` as NumPy .npy (the suffix added when missing)."""
    if mode not in ("out", "in", "all"):
        raise ValueError(f"tensordump: mode must be 'out', 'in' or 'all', got {mode!r}")
    if not isinstance(file_name, str) or not file_name:
        raise ValueError(f"tensordump: file_name must be a non-empty str, got {file_name!r}")
    np.save(file_name if file_name.endswith(".npy") else file_name + ".npy", tensor.asnumpy())


def real(input: Tensor) -> Tensor:
    """The real part of `input`: Re z of a complex tensor (ops/complex_ops.py), a real tensor itself."""
    if not isinstance(input, Tensor):
        raise TypeError(f"real: input must be a Tensor, got {type(input).__name__}")
    if input.dtype.is_complex:
        from .complex_ops import _Real as Real

        return Real(input)
    return input


def _to_dlpack(self: Tensor) -> Any:
    """A DLPack capsule of this tensor's (CPU) data, for torch.from_dlpack and friends."""
    return np.ascontiguousarray(self.asnumpy()).__dlpack__()


Tensor.to_dlpack = _to_dlpack
Tensor.real = real


class MoveTo(Operation):
    """``MoveTo()(input, to='CPU', blocking=True)``."""

    def construct(self, input: Tensor, to: str = "CPU", blocking: bool = True) -> Tensor:
        return move_to(input, to, blocking)


class TensorDump(Operation):
    """``TensorDump(input_output='out')(file, input_x)``: saves input_x to file (.npy)."""

    def __init__(self, input_output: str = "out") -> None:
        self.input_output = input_output

    def construct(self, file: str, input_x: Tensor) -> None:
        tensordump(file, input_x, self.input_output)


class Real(Operation):
    """``Real()(input)``: the real part (the tensor itself)."""

    def construct(self, input: Tensor) -> Tensor:
        return real(input)


__all__ = ["MoveTo", "TensorDump", "Real"]
