"""Recurrent layers: LSTM, GRU and RNN with MindSpore's signatures and parameter names.

Weights follow MindSpore (and PyTorch): per layer and direction ``weight_ih_l{k}[_reverse]``
(gate_size, input), ``weight_hh_l{k}[_reverse]`` (gate_size, hidden) and the two biases, with
gates in the order i, f, g, o (LSTM) or r, z, n (GRU). Inputs are (seq, batch, feature) unless
``batch_first``. The input projection of all time steps is one matrix product; only the hidden
projection runs per step.
"""

from __future__ import annotations

import math
from typing import Any

from ...common import dtype as mstype
from ...common.initializer import Uniform
from ...ops import functional as F
from ...tensor import ParameterTuple, Tensor
from ..cell import Cell
from ._common import check_bool, check_int, make_param, shape_error
from .basic import Dropout

__all__ = ["RNN", "GRU", "LSTM"]

_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


def _lstm_dir(xw: Tensor, h: Tensor, c: Tensor, w_hh: Tensor, b_hh: Tensor | None,
              mask: list | None, reverse: bool) -> tuple[list[Tensor], Tensor, Tensor]:
    """One LSTM direction over pre-projected inputs xw (T, B, 4H)."""
    hid = h.shape[-1]
    outs: list[Any] = [None] * xw.shape[0]
    for t in (range(xw.shape[0] - 1, -1, -1) if reverse else range(xw.shape[0])):
        gates = F.add(xw[t], F.dense(h, w_hh, b_hh))
        i, f, g, o = F.split(gates, hid, axis=1)
        c_new = F.add(F.mul(F.sigmoid(f), c), F.mul(F.sigmoid(i), F.tanh(g)))
        h_new = F.mul(F.sigmoid(o), F.tanh(c_new))
        if mask is not None:
            h, c = F.where(mask[t], h_new, h), F.where(mask[t], c_new, c)
            outs[t] = F.where(mask[t], h_new, F.zeros_like(h_new))
        else:
            h, c = h_new, c_new
            outs[t] = h_new
    return outs, h, c


def _gru_dir(xw: Tensor, h: Tensor, w_hh: Tensor, b_hh: Tensor | None, mask: list | None,
             reverse: bool) -> tuple[list[Tensor], Tensor]:
    """One GRU direction over pre-projected inputs xw (T, B, 3H); b_hh stays inside r * (...)."""
    hid = h.shape[-1]
    outs: list[Any] = [None] * xw.shape[0]
    for t in (range(xw.shape[0] - 1, -1, -1) if reverse else range(xw.shape[0])):
        x_r, x_z, x_n = F.split(xw[t], hid, axis=1)
        h_r, h_z, h_n = F.split(F.dense(h, w_hh, b_hh), hid, axis=1)
        r = F.sigmoid(F.add(x_r, h_r))
        z = F.sigmoid(F.add(x_z, h_z))
        n = F.tanh(F.add(x_n, F.mul(r, h_n)))
        h_new = F.add(n, F.mul(z, F.sub(h, n)))  # (1 - z) * n + z * h
        if mask is not None:
            h = F.where(mask[t], h_new, h)
            outs[t] = F.where(mask[t], h_new, F.zeros_like(h_new))
        else:
            h = outs[t] = h_new
    return outs, h


def _rnn_dir(xw: Tensor, h: Tensor, w_hh: Tensor, b_hh: Tensor | None, mask: list | None,
             reverse: bool, relu: bool) -> tuple[list[Tensor], Tensor]:
    outs: list[Any] = [None] * xw.shape[0]
    act = F.relu if relu else F.tanh
    for t in (range(xw.shape[0] - 1, -1, -1) if reverse else range(xw.shape[0])):
        h_new = act(F.add(xw[t], F.dense(h, w_hh, b_hh)))
        if mask is not None:
            h = F.where(mask[t], h_new, h)
            outs[t] = F.where(mask[t], h_new, F.zeros_like(h_new))
        else:
            h = outs[t] = h_new
    return outs, h


class _RNNBase(Cell):
    """Stacked (bi)directional recurrence shared by LSTM, GRU and RNN."""

    def __init__(self, mode: str, input_size: int, hidden_size: int, num_layers: int = 1, has_bias: bool = True,
                 batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False,
                 dtype: Any = mstype.float32) -> None:
        super().__init__()
        name = type(self).__name__
        self.input_size = check_int(input_size, "input_size", name)
        self.hidden_size = check_int(hidden_size, "hidden_size", name)
        self.num_layers = check_int(num_layers, "num_layers", name)
        self.has_bias = check_bool(has_bias, "has_bias", name)
        self.batch_first = check_bool(batch_first, "batch_first", name)
        self.bidirectional = check_bool(bidirectional, "bidirectional", name)
        if not isinstance(dropout, (int, float)) or isinstance(dropout, bool) or not 0 <= dropout < 1:
            raise ValueError(f"{name}: dropout must be a number in [0, 1), got {dropout!r}")
        self.mode = mode
        self.dropout = float(dropout)
        self.dropout_op = Dropout(p=self.dropout)
        self.num_directions = 2 if bidirectional else 1
        gate_size = _GATES[mode] * hidden_size
        init = Uniform(1 / math.sqrt(hidden_size))
        w_ih, w_hh, b_ih, b_hh = [], [], [], []
        for layer in range(num_layers):
            for direction in range(self.num_directions):
                in_size = input_size if layer == 0 else hidden_size * self.num_directions
                sfx = f"_l{layer}" + ("_reverse" if direction else "")
                w_ih.append(make_param(init, (gate_size, in_size), dtype, "weight_ih" + sfx))
                w_hh.append(make_param(init, (gate_size, hidden_size), dtype, "weight_hh" + sfx))
                if has_bias:
                    b_ih.append(make_param(init, (gate_size,), dtype, "bias_ih" + sfx))
                    b_hh.append(make_param(init, (gate_size,), dtype, "bias_hh" + sfx))
        self.w_ih_list = ParameterTuple(w_ih)
        self.w_hh_list = ParameterTuple(w_hh)
        if has_bias:
            self.b_ih_list = ParameterTuple(b_ih)
            self.b_hh_list = ParameterTuple(b_hh)

    def _initial_state(self, x: Tensor, hx: Any, batch: int) -> list[Tensor]:
        """The initial state(s) as a list of (layers*directions, batch, hidden) tensors."""
        shape = (self.num_layers * self.num_directions, batch, self.hidden_size)
        n_states = 2 if self.mode == "LSTM" else 1
        if hx is None:
            return [F.zeros(shape, x.dtype) for _ in range(n_states)]
        states = list(hx) if n_states == 2 else [hx]
        if n_states == 2 and len(states) != 2:
            raise TypeError(f"{type(self).__name__}: hx must be a tuple (h_0, c_0)")
        for s in states:
            if not isinstance(s, Tensor) or tuple(s.shape) != shape:
                raise shape_error(type(self).__name__, f"initial states of shape {shape} "
                                  "(num_layers * num_directions, batch, hidden_size)", s)
        return states

    def construct(self, x: Tensor, hx: Any = None, seq_length: Tensor | None = None) -> Any:
        name = type(self).__name__
        if x.ndim != 3 or x.shape[-1] != self.input_size:
            order = "(batch, seq, input_size)" if self.batch_first else "(seq, batch, input_size)"
            raise shape_error(name, f"a 3-D input {order} with input_size={self.input_size}", x)
        if self.batch_first:
            x = F.swapaxes(x, 0, 1)
        steps, batch = x.shape[0], x.shape[1]
        states = self._initial_state(x, hx, batch)
        mask = None
        if seq_length is not None:
            lengths = F.reshape(seq_length, (batch, 1))
            mask = [F.greater(lengths, t) for t in range(steps)]
        w_ih, w_hh = self.w_ih_list, self.w_hh_list
        b_ih = self.b_ih_list if self.has_bias else None
        b_hh = self.b_hh_list if self.has_bias else None
        h_n: list[Tensor] = []
        c_n: list[Tensor] = []
        layer_in = x
        for layer in range(self.num_layers):
            dir_outs = []
            for d in range(self.num_directions):
                k = layer * self.num_directions + d
                xw = F.dense(layer_in, w_ih[k], b_ih[k] if b_ih is not None else None)
                bh = b_hh[k] if b_hh is not None else None
                if self.mode == "LSTM":
                    outs, h, c = _lstm_dir(xw, states[0][k], states[1][k], w_hh[k], bh, mask, d == 1)
                    c_n.append(c)
                elif self.mode == "GRU":
                    outs, h = _gru_dir(xw, states[0][k], w_hh[k], bh, mask, d == 1)
                else:
                    outs, h = _rnn_dir(xw, states[0][k], w_hh[k], bh, mask, d == 1, self.mode == "RNN_RELU")
                h_n.append(h)
                dir_outs.append(F.stack(outs, 0))
            layer_out = dir_outs[0] if len(dir_outs) == 1 else F.concat(dir_outs, 2)
            if layer < self.num_layers - 1 and self.dropout:
                layer_out = self.dropout_op(layer_out)
            layer_in = layer_out
        output = F.swapaxes(layer_in, 0, 1) if self.batch_first else layer_in
        if self.mode == "LSTM":
            return output, (F.stack(h_n, 0), F.stack(c_n, 0))
        return output, F.stack(h_n, 0)

    def extend_repr(self) -> str:
        s = f"input_size={self.input_size}, hidden_size={self.hidden_size}, num_layers={self.num_layers}, " \
            f"has_bias={self.has_bias}, batch_first={self.batch_first}"
        if self.dropout:
            s += f", dropout={self.dropout}"
        return s + f", bidirectional={self.bidirectional}"


class LSTM(_RNNBase):
    """Stacked LSTM: returns ``output, (h_n, c_n)``.

    ``LSTM(input_size, hidden_size, num_layers=1, has_bias=True, batch_first=False, dropout=0.0,
    bidirectional=False, dtype=float32)``; call with ``(x, hx=None, seq_length=None)`` where hx is
    ``(h_0, c_0)``. Dropout (training mode only) applies between layers.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__("LSTM", *args, **kwargs)


class GRU(_RNNBase):
    """Stacked GRU: returns ``output, h_n`` (same arguments as LSTM; hx is one tensor)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__("GRU", *args, **kwargs)


class RNN(_RNNBase):
    """Stacked Elman RNN with ``nonlinearity`` 'tanh' (default) or 'relu': returns ``output, h_n``."""

    def __init__(self, *args: Any, nonlinearity: str = "tanh", **kwargs: Any) -> None:
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"RNN: nonlinearity must be 'tanh' or 'relu', got {nonlinearity!r}")
        super().__init__("RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU", *args, **kwargs)
