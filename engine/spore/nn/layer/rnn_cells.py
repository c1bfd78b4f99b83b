"""Single-step recurrent cells: RNNCell, GRUCell and LSTMCell (MindSpore's signatures and names).

Parameters are ``weight_ih`` (gates * hidden, input), ``weight_hh`` (gates * hidden, hidden),
``bias_ih`` and ``bias_hh`` as in MindSpore (and PyTorch), gates in the order i, f, g, o (LSTM) and
r, z, n (GRU), all drawn from U(-1/sqrt(hidden), 1/sqrt(hidden)). Inputs are (batch, input_size)
or unbatched (input_size,); the state defaults to zeros.
"""

from __future__ import annotations

import math
from typing import Any

from ...common import dtype as mstype
from ...common.initializer import Uniform
from ...ops import functional as F
from ...tensor import Tensor
from ..cell import Cell
from ._common import check_bool, check_int, make_param, shape_error

__all__ = ["RNNCell", "GRUCell", "LSTMCell"]


class _CellBase(Cell):
    _gates = 1

    def __init__(self, input_size: int, hidden_size: int, has_bias: bool, dtype: Any) -> None:
        super().__init__()
        name = type(self).__name__
        self.input_size = check_int(input_size, "input_size", name)
        self.hidden_size = check_int(hidden_size, "hidden_size", name)
        self.has_bias = check_bool(has_bias, "has_bias", name)
        init = Uniform(1 / math.sqrt(hidden_size))
        g = self._gates * hidden_size
        self.weight_ih = make_param(init, (g, input_size), dtype, "weight_ih")
        self.weight_hh = make_param(init, (g, hidden_size), dtype, "weight_hh")
        self.bias_ih = make_param(init, (g,), dtype, "bias_ih") if has_bias else None
        self.bias_hh = make_param(init, (g,), dtype, "bias_hh") if has_bias else None

    def _batched(self, x: Tensor) -> tuple[Tensor, bool]:
        name = type(self).__name__
        if x.ndim not in (1, 2) or x.shape[-1] != self.input_size:
            raise shape_error(name, f"input of shape (batch, {self.input_size}) or ({self.input_size},)", x)
        return (F.expand_dims(x, 0), True) if x.ndim == 1 else (x, False)

    def _state(self, hx: Tensor | None, x: Tensor, unbatched: bool) -> Tensor:
        if hx is None:
            return F.zeros((x.shape[0], self.hidden_size), x.dtype)
        h = F.expand_dims(hx, 0) if unbatched and hx.ndim == 1 else hx
        if tuple(h.shape) != (x.shape[0], self.hidden_size):
            raise shape_error(type(self).__name__, f"a state of shape ({x.shape[0]}, {self.hidden_size})", h)
        return h

    def extend_repr(self) -> str:
        return f"input_size={self.input_size}, hidden_size={self.hidden_size}, has_bias={self.has_bias}"


class RNNCell(_CellBase):
    """h' = act(x W_ih^T + b_ih + h W_hh^T + b_hh), act 'tanh' or 'relu' (`nonlinearity`)."""

    def __init__(self, input_size: int, hidden_size: int, has_bias: bool = True, nonlinearity: str = "tanh",
                 dtype: Any = mstype.float32) -> None:
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"RNNCell: nonlinearity must be 'tanh' or 'relu', got {nonlinearity!r}")
        super().__init__(input_size, hidden_size, has_bias, dtype)
        self.nonlinearity = nonlinearity

    def construct(self, x: Tensor, hx: Tensor | None = None) -> Tensor:
        x, unbatched = self._batched(x)
        h = self._state(hx, x, unbatched)
        pre = F.add(F.dense(x, self.weight_ih, self.bias_ih), F.dense(h, self.weight_hh, self.bias_hh))
        out = F.tanh(pre) if self.nonlinearity == "tanh" else F.relu(pre)
        return F.squeeze(out, 0) if unbatched else out


class GRUCell(_CellBase):
    """One GRU step: r, z = sigmoid(...), n = tanh(x W_in + b_in + r * (h W_hn + b_hn)),
    h' = (1 - z) * n + z * h. Returns h'."""

    _gates = 3

    def __init__(self, input_size: int, hidden_size: int, has_bias: bool = True,
                 dtype: Any = mstype.float32) -> None:
        super().__init__(input_size, hidden_size, has_bias, dtype)

    def construct(self, x: Tensor, hx: Tensor | None = None) -> Tensor:
        x, unbatched = self._batched(x)
        h = self._state(hx, x, unbatched)
        x_r, x_z, x_n = F.split(F.dense(x, self.weight_ih, self.bias_ih), self.hidden_size, axis=1)
        h_r, h_z, h_n = F.split(F.dense(h, self.weight_hh, self.bias_hh), self.hidden_size, axis=1)
        r = F.sigmoid(F.add(x_r, h_r))
        z = F.sigmoid(F.add(x_z, h_z))
        n = F.tanh(F.add(x_n, F.mul(r, h_n)))
        out = F.add(n, F.mul(z, F.sub(h, n)))
        return F.squeeze(out, 0) if unbatched else out


class LSTMCell(_CellBase):
    """One LSTM step: returns ``(h', c')``; `hx` is ``(h, c)`` or None (zeros)."""

    _gates = 4

    def __init__(self, input_size: int, hidden_size: int, has_bias: bool = True,
                 dtype: Any = mstype.float32) -> None:
        super().__init__(input_size, hidden_size, has_bias, dtype)

    def construct(self, x: Tensor, hx: Any = None) -> tuple[Tensor, Tensor]:
        x, unbatched = self._batched(x)
        if hx is None:
            h = c = self._state(None, x, unbatched)
        else:
            h, c = self._state(hx[0], x, unbatched), self._state(hx[1], x, unbatched)
        gates = F.add(F.dense(x, self.weight_ih, self.bias_ih), F.dense(h, self.weight_hh, self.bias_hh))
        i, f, g, o = F.split(gates, self.hidden_size, axis=1)
        c_new = F.add(F.mul(F.sigmoid(f), c), F.mul(F.sigmoid(i), F.tanh(g)))
        h_new = F.mul(F.sigmoid(o), F.tanh(c_new))
        if unbatched:
            return F.squeeze(h_new, 0), F.squeeze(c_new, 0)
        return h_new, c_new
