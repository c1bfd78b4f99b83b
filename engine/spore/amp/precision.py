"""Automatic mixed precision: which cells of a network compute in float16 (or bfloat16).

Everything rests on `Cell.to_float(dtype)`: a cell so marked casts its floating-point inputs and
the parameters it reads on the fly, while the Parameters themselves keep their float32 storage.
So the optimizer always updates float32 *master weights*, and gradients flow back through the
casts into float32 — nothing here copies or converts a weight.

The levels (MindSpore's):

- ``O0``: no change.
- ``O1``: only the white-listed cells (Dense, Conv*, RNN cells) run in `dtype`; each is wrapped
  so that its output is cast back to float32, and the rest of the network stays float32.
- ``O2``: the whole network runs in `dtype` except the black-listed cells (BatchNorm, LayerNorm,
  GroupNorm, Softmax/LogSoftmax, losses), which run in float32 — normalisation statistics,
  exponentials and reductions are where half precision loses the most. Their outputs are cast
  back to `dtype` for the next layer (losses excepted: a loss value stays float32).
- ``O3``: the whole network runs in `dtype`.

Under O2 and O3 the returned network casts its outputs to float32, so the loss and anything a
caller computes from them see float32, as MindSpore's "results are cast back to float32".

MindSpore's O2 black list is BatchNorm1d/2d/3d and LayerNorm (its loss is kept in float32 by
`build_train_network`); Spore's also holds GroupNorm, Softmax/LogSoftmax and every `nn.LossBase`,
so a loss or a softmax inside the converted network stays float32 too.

Spore works at Cell granularity: a functional op written directly in a construct (``ops.matmul``)
computes in the dtype of its inputs — low precision under O2/O3, float32 under O1 (MindSpore's O1
also casts MatMul/Conv primitives called directly; Spore's does not).
"""

from __future__ import annotations

import warnings
from typing import Any

from ..common import dtype as mstype
from ..common.tree import map_leaves
from ..errors import user_stacklevel
from ..nn import layer as _layers
from ..nn import loss as _losses
from ..nn.cell import Cell
from ..nn.container import _ListLike
from ..ops import functional as F
from ..tensor import Tensor

__all__ = ["auto_mixed_precision", "custom_mixed_precision", "get_white_list", "get_black_list"]

AMP_LEVELS = ("O0", "O1", "O2", "O3")

# Only classes Spore defines are listed; MindSpore's lists also name Conv3d, the transposed convs
# and the RNN cells, which are picked up here once they exist.
_WHITE_NAMES = ("Dense", "Conv1d", "Conv2d", "Conv3d", "Conv1dTranspose", "Conv2dTranspose", "Conv3dTranspose",
                "LSTMCell", "RNNCell", "GRUCell")
_BLACK_NAMES = ("BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "LayerNorm", "GroupNorm", "Softmax", "LogSoftmax")


def _classes(names: tuple[str, ...]) -> list[type]:
    return [getattr(_layers, n) for n in names if isinstance(getattr(_layers, n, None), type)]


def get_white_list() -> list[type]:
    """The Cell classes O1 runs in low precision (a copy: editing it changes nothing)."""
    return _classes(_WHITE_NAMES)


def get_black_list() -> list[type]:
    """The Cell classes O2 keeps in float32 (a copy), losses (`nn.LossBase` subclasses) included."""
    return _classes(_BLACK_NAMES) + [_losses.LossBase]


def _cast_floats(value: Any, dtype: mstype.DType) -> Any:
    """`value` with every floating-point Tensor in it (nested in tuples/lists too) cast to `dtype`."""
    def one(v: Any) -> Any:
        if isinstance(v, Tensor) and v.dtype.is_float and v.dtype is not dtype:
            return F.cast(v, dtype)
        return v

    return map_leaves(one, value)


class _OutputCast(Cell):
    """Runs the wrapped cell and casts its floating-point outputs to `dtype`.

    It sits where the wrapped cell was (same attribute, ``auto_prefix=False`` so parameter names do
    not change) and forwards unknown attributes to it, so ``net.fc.weight`` keeps working.
    """

    def __init__(self, op: Cell, dtype: mstype.DType) -> None:
        super().__init__(auto_prefix=False)
        self._op = op
        self.__dict__["_out_type"] = dtype

    def construct(self, *args: Any, **kwargs: Any) -> Any:
        return _cast_floats(self._op(*args, **kwargs), self.__dict__["_out_type"])

    def __getattr__(self, name: str) -> Any:
        try:
            return super().__getattr__(name)
        except AttributeError:
            cells = self.__dict__.get("_cells")
            if name.startswith("__") or not cells or cells.get("_op") is None:
                raise
            return getattr(cells["_op"], name)


def _replace_child(parent: Cell, key: str, new: Cell) -> None:
    """Put `new` where the child `key` of `parent` is (containers keep their order and list)."""
    if isinstance(parent, _ListLike):
        parent[list(parent.__dict__["_cells"]).index(key)] = new
    else:
        parent._attach(key, new)


def _rewrite(root: Cell, match: tuple[type, ...], convert: Any) -> Cell:
    """Replace every cell matching `match` (outermost ones; not inside a matched one) by
    ``convert(cell)``; returns the new root (converted itself when it matches)."""
    if isinstance(root, match):
        return convert(root)
    done: dict[int, Cell] = {}
    seen: set[int] = set()
    stack = [root]
    while stack:
        cell = stack.pop()
        if id(cell) in seen:
            continue
        seen.add(id(cell))
        for key, child in list(cell.__dict__["_cells"].items()):
            if child is None or id(child) in seen:
                continue
            if isinstance(child, match):
                new = done.get(id(child))
                if new is None:
                    new = done[id(child)] = convert(child)
                _replace_child(cell, key, new)
                seen.add(id(new))
            else:
                stack.append(child)
    return root


def _check_dtype(dtype: Any) -> mstype.DType:
    dt = mstype.to_dtype(dtype)
    if dt is None or dt not in (mstype.float16, mstype.bfloat16):
        raise ValueError(f"mixed precision: dtype must be float16 or bfloat16, got {dtype}")
    return dt


_SAID_FLOAT16: list[bool] = []


def _say_float16_once() -> None:
    """Say once per process that float16 mixed precision buys no speed on CPU (PyTorch's CPU autocast
    also warned about float16). Spore computes float16 in float32 and rounds each result, since no
    CPU it runs on has float16 GEMMs it uses: O2-fp16 steps were measured at 0.7-1.0x the O0 step
    (README, table (c) of `make bench`). bfloat16 is the dtype that runs faster where the CPU has
    bf16 arithmetic, which the message names."""
    if _SAID_FLOAT16:
        return
    _SAID_FLOAT16.append(True)
    from .. import _kernels

    isa = _kernels.cpu_isa()
    if isa in ("avx512_core_bf16", "avx512_core_amx"):
        advice = (f"bfloat16, which this CPU computes in hardware (oneDNN ISA {isa}): auto_mixed_precision(net, "
                  "level, dtype=ms.bfloat16), or cast_model_type=ms.bfloat16 for Model / build_train_network; or O0")
    else:
        advice = f"O0 (this CPU has no bf16 arithmetic either: oneDNN ISA {isa})"
    warnings.warn("float16 mixed precision computes in float32 on CPU and rounds each result to float16: it "
                  "saves memory, not time (O2-fp16 steps run at about 0.7-1.0x the O0 step). For speed use "
                  f"{advice}", RuntimeWarning, stacklevel=user_stacklevel())


def _keep_names(network: Cell, fn: Any) -> Cell:
    """Run the rewrite `fn` and give every parameter back the name it had (checkpoints must not
    notice mixed precision)."""
    names = [(p, p.name) for _, p in network.parameters_and_names()]
    out = fn()
    for p, name in names:
        p.name = name
    return out


def _check_fresh(network: Any) -> None:
    if not isinstance(network, Cell):
        raise TypeError(f"mixed precision: network must be a Cell, got {type(network).__name__}")
    done = network.__dict__.get("_amp_level")
    if done is not None:
        raise ValueError(f"mixed precision: this network was already converted (amp level {done!r}); converting "
                         "twice is not supported. Build a fresh network, or pass level='O0' to build_train_network "
                         "for a network converted already")


def _mark(level: str, *cells: Cell) -> None:
    for c in cells:
        c.__dict__["_amp_level"] = level


def _white(network: Cell, white: tuple[type, ...], dtype: mstype.DType) -> Cell:
    return _rewrite(network, white, lambda c: _OutputCast(c.to_float(dtype), mstype.float32))


def _black(network: Cell, black: tuple[type, ...], dtype: mstype.DType) -> Cell:
    network.to_float(dtype)

    def keep_fp32(cell: Cell) -> Cell:
        cell.to_float(mstype.float32)
        return cell if isinstance(cell, _losses.LossBase) else _OutputCast(cell, dtype)

    return _OutputCast(_rewrite(network, black, keep_fp32), mstype.float32)


def auto_mixed_precision(network: Cell, amp_level: str = "O0", dtype: Any = mstype.float16) -> Cell:
    """Return `network` set up for mixed precision at `amp_level` (O0, O1, O2, O3) in `dtype`.

    The network is changed in place (sub-cells are marked and, where outputs must change dtype,
    wrapped); use the returned cell, which under O2/O3 also casts the outputs to float32.
    Parameters keep their float32 storage and their names.
    """
    if amp_level not in AMP_LEVELS:
        raise ValueError(f"auto_mixed_precision: amp_level must be one of {list(AMP_LEVELS)}, got {amp_level!r}"
                         + (" ('auto' picks a level per device in MindSpore; Spore runs on CPU: choose one)"
                            if amp_level == "auto" else ""))
    dt = _check_dtype(dtype)
    _check_fresh(network)
    if amp_level == "O0":
        return network
    if dt is mstype.float16:
        _say_float16_once()
    if amp_level == "O1":
        out = _keep_names(network, lambda: _white(network, tuple(get_white_list()), dt))
    elif amp_level == "O2":
        out = _keep_names(network, lambda: _black(network, tuple(get_black_list()), dt))
    else:
        out = _OutputCast(network.to_float(dt), mstype.float32)
    _mark(amp_level, network, out)
    return out


def custom_mixed_precision(network: Cell, *, white_list: list | None = None, black_list: list | None = None,
                           dtype: Any = mstype.float16) -> Cell:
    """Mixed precision with your own list: `white_list` cells run in `dtype` (as O1), or everything
    but the `black_list` cells does (as O2). Give exactly one list, of Cell classes."""
    if (white_list is None) == (black_list is None):
        raise ValueError("custom_mixed_precision: give exactly one of white_list and black_list")
    given = white_list if white_list is not None else black_list
    if not isinstance(given, (list, tuple)) or not all(isinstance(c, type) and issubclass(c, Cell) for c in given):
        raise TypeError("custom_mixed_precision: the list must hold Cell classes, e.g. [nn.Dense, nn.Conv2d]")
    dt = _check_dtype(dtype)
    _check_fresh(network)
    if dt is mstype.float16:
        _say_float16_once()
    if white_list is not None:
        out = _keep_names(network, lambda: _white(network, tuple(white_list), dt))
    else:
        out = _keep_names(network, lambda: _black(network, tuple(black_list), dt))
    _mark("custom", network, out)
    return out
