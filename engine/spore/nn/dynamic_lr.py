"""Dynamic learning rates as lists, one value per step (MindSpore's `mindspore.nn.*_lr` functions).

Each function returns a plain ``list[float]`` of length `total_step` (for `piecewise_constant_lr`,
the last milestone); pass it as an optimizer's `learning_rate` and step ``i`` uses element ``i``.
The arithmetic is Python ``float`` (double), step by step as MindSpore computes it, so the values are
the same numbers MindSpore prints (e.g. ``0.09000000000000001``), not merely close to them.

All of them count in epochs: ``current_epoch = floor(i / step_per_epoch)``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

__all__ = [
    "piecewise_constant_lr",
    "exponential_decay_lr",
    "natural_exp_decay_lr",
    "inverse_decay_lr",
    "cosine_decay_lr",
    "polynomial_decay_lr",
    "warmup_lr",
]


def _int(value: object, name: str, fn: str) -> int:
    """A positive int (bools are rejected: `True` as a step count is always a mistake)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"For '{fn}', '{name}' must be an int, but got {type(value).__name__}.")
    if value <= 0:
        raise ValueError(f"For '{fn}', '{name}' must be a positive int, but got {value}.")
    return value


def _float(value: object, name: str, fn: str, *, positive: bool = True) -> float:
    """A float > 0 (or >= 0). Ints are accepted and converted; MindSpore insists on float, which only
    ever turns `1` into an error, so accepting it changes no result of code that runs on MindSpore."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"For '{fn}', '{name}' must be a float, but got {type(value).__name__}.")
    value = float(value)
    if (positive and not value > 0) or (not positive and not value >= 0):
        bound = "greater than 0" if positive else "at least 0"
        raise ValueError(f"For '{fn}', '{name}' must be {bound}, but got {value}.")
    return value


def _bool(value: object, name: str, fn: str) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"For '{fn}', '{name}' must be a bool, but got {type(value).__name__}.")
    return value


def _decay_args(fn: str, learning_rate: float, decay_rate: float, total_step: int, step_per_epoch: int,
                decay_epoch: int, is_stair: bool) -> tuple[float, float]:
    _int(total_step, "total_step", fn)
    _int(step_per_epoch, "step_per_epoch", fn)
    _int(decay_epoch, "decay_epoch", fn)
    _bool(is_stair, "is_stair", fn)
    return _float(learning_rate, "learning_rate", fn), _float(decay_rate, "decay_rate", fn)


def piecewise_constant_lr(milestone: Sequence[int], learning_rates: Sequence[float]) -> list[float]:
    """``y[i] = learning_rates[t]`` for ``milestone[t-1] <= i < milestone[t]`` (milestone[-1] steps in all).

    >>> piecewise_constant_lr([2, 5, 10], [0.1, 0.05, 0.01])
    [0.1, 0.1, 0.05, 0.05, 0.05, 0.01, 0.01, 0.01, 0.01, 0.01]
    """
    fn = "piecewise_constant_lr"
    if not isinstance(milestone, (list, tuple)) or not isinstance(learning_rates, (list, tuple)):
        raise TypeError(f"For '{fn}', 'milestone' and 'learning_rates' must be lists or tuples.")
    if len(milestone) != len(learning_rates):
        raise ValueError(f"For '{fn}', 'milestone' has {len(milestone)} values but 'learning_rates' has "
                         f"{len(learning_rates)}; give one learning rate per milestone.")
    lr: list[float] = []
    last = 0
    for i, (m, rate) in enumerate(zip(milestone, learning_rates)):
        _int(m, f"milestone[{i}]", fn)
        rate = _float(rate, f"learning_rates[{i}]", fn, positive=False)
        if m < last:
            raise ValueError(f"For '{fn}', 'milestone' must be increasing, but milestone[{i}]={m} < "
                             f"milestone[{i - 1}]={last}.")
        lr += [rate] * (m - last)
        last = m
    return lr


def exponential_decay_lr(learning_rate: float, decay_rate: float, total_step: int, step_per_epoch: int,
                         decay_epoch: int, is_stair: bool = False) -> list[float]:
    """``lr[i] = learning_rate * decay_rate ** (current_epoch / decay_epoch)`` (floored when `is_stair`).

    >>> exponential_decay_lr(0.1, 0.9, 6, 2, 1)
    [0.1, 0.1, 0.09000000000000001, 0.09000000000000001, 0.08100000000000002, 0.08100000000000002]
    """
    lr0, rate = _decay_args("exponential_decay_lr", learning_rate, decay_rate, total_step, step_per_epoch,
                            decay_epoch, is_stair)
    out = []
    for i in range(total_step):
        p = math.floor(i / step_per_epoch) / decay_epoch
        out.append(lr0 * rate ** (math.floor(p) if is_stair else p))
    return out


def natural_exp_decay_lr(learning_rate: float, decay_rate: float, total_step: int, step_per_epoch: int,
                         decay_epoch: int, is_stair: bool = False) -> list[float]:
    """``lr[i] = learning_rate * e ** (-decay_rate * current_epoch)``.

    As in MindSpore the epoch is *not* divided by `decay_epoch`; `is_stair` rounds it down to a
    multiple of `decay_epoch` (``floor(current_epoch / decay_epoch) * decay_epoch``).

    >>> natural_exp_decay_lr(0.1, 0.9, 6, 2, 2, True)
    [0.1, 0.1, 0.1, 0.1, 0.016529888822158657, 0.016529888822158657]
    """
    lr0, rate = _decay_args("natural_exp_decay_lr", learning_rate, decay_rate, total_step, step_per_epoch,
                            decay_epoch, is_stair)
    out = []
    for i in range(total_step):
        epoch = math.floor(i / step_per_epoch)
        if is_stair:
            epoch = math.floor(epoch / decay_epoch) * decay_epoch
        out.append(lr0 * math.e ** (-rate * epoch))
    return out


def inverse_decay_lr(learning_rate: float, decay_rate: float, total_step: int, step_per_epoch: int,
                     decay_epoch: int, is_stair: bool = False) -> list[float]:
    """``lr[i] = learning_rate / (1 + decay_rate * current_epoch / decay_epoch)`` (ratio floored when stair).

    >>> inverse_decay_lr(0.1, 0.5, 6, 1, 1, True)
    [0.1, 0.06666666666666667, 0.05, 0.04, 0.03333333333333333, 0.028571428571428574]
    """
    lr0, rate = _decay_args("inverse_decay_lr", learning_rate, decay_rate, total_step, step_per_epoch,
                            decay_epoch, is_stair)
    out = []
    for i in range(total_step):
        epoch = math.floor(i / step_per_epoch)
        if is_stair:
            out.append(lr0 / (1 + rate * math.floor(epoch / decay_epoch)))
        else:
            out.append(lr0 / (1 + rate * epoch / decay_epoch))
    return out


def cosine_decay_lr(min_lr: float, max_lr: float, total_step: int, step_per_epoch: int,
                    decay_epoch: int) -> list[float]:
    """``lr[i] = min_lr + 0.5 * (max_lr - min_lr) * (1 + cos(pi * min(current_epoch, decay_epoch) / decay_epoch))``.

    >>> cosine_decay_lr(0.01, 0.1, 6, 2, 2)
    [0.1, 0.1, 0.05500000000000001, 0.05500000000000001, 0.01, 0.01]
    """
    fn = "cosine_decay_lr"
    min_lr = _float(min_lr, "min_lr", fn, positive=False)
    max_lr = _float(max_lr, "max_lr", fn)
    _int(total_step, "total_step", fn)
    _int(step_per_epoch, "step_per_epoch", fn)
    _int(decay_epoch, "decay_epoch", fn)
    if min_lr >= max_lr:
        raise ValueError(f"For '{fn}', 'max_lr' must be greater than 'min_lr', but got max_lr={max_lr}, "
                         f"min_lr={min_lr}.")
    delta = 0.5 * (max_lr - min_lr)
    out = []
    for i in range(total_step):
        epoch = min(math.floor(i / step_per_epoch), decay_epoch)
        out.append(min_lr + delta * (1 + math.cos(math.pi * epoch / decay_epoch)))
    return out


def polynomial_decay_lr(learning_rate: float, end_learning_rate: float, total_step: int, step_per_epoch: int,
                        decay_epoch: int, power: float, update_decay_epoch: bool = False) -> list[float]:
    """``lr[i] = (learning_rate - end_learning_rate) * (1 - tmp_epoch / tmp_decay_epoch) ** power + end_learning_rate``.

    ``tmp_epoch = min(current_epoch, decay_epoch)`` and ``tmp_decay_epoch = decay_epoch``; with
    `update_decay_epoch` the epoch is not clamped and ``tmp_decay_epoch = decay_epoch *
    max(ceil(current_epoch / decay_epoch), 1)`` (the decay restarts over each further span).

    >>> polynomial_decay_lr(0.1, 0.01, 6, 2, 2, 0.5)
    [0.1, 0.1, 0.07363961030678928, 0.07363961030678928, 0.01, 0.01]
    """
    fn = "polynomial_decay_lr"
    lr0 = _float(learning_rate, "learning_rate", fn)
    end = _float(end_learning_rate, "end_learning_rate", fn, positive=False)
    power = _float(power, "power", fn)
    _int(total_step, "total_step", fn)
    _int(step_per_epoch, "step_per_epoch", fn)
    _int(decay_epoch, "decay_epoch", fn)
    _bool(update_decay_epoch, "update_decay_epoch", fn)
    delta = lr0 - end
    out = []
    for i in range(total_step):
        epoch = math.floor(i / step_per_epoch)
        if update_decay_epoch:
            span = decay_epoch * max(math.ceil(epoch / decay_epoch), 1)
        else:
            span, epoch = decay_epoch, min(epoch, decay_epoch)
        out.append(delta * (1 - epoch / span) ** power + end)
    return out


def warmup_lr(learning_rate: float, total_step: int, step_per_epoch: int, warmup_epoch: int) -> list[float]:
    """``lr[i] = learning_rate * min(current_epoch, warmup_epoch) / warmup_epoch`` (starts at 0.0).

    >>> warmup_lr(0.1, 6, 2, 2)
    [0.0, 0.0, 0.05, 0.05, 0.1, 0.1]
    """
    fn = "warmup_lr"
    lr0 = _float(learning_rate, "learning_rate", fn, positive=False)
    _int(warmup_epoch, "warmup_epoch", fn)
    _int(total_step, "total_step", fn)
    _int(step_per_epoch, "step_per_epoch", fn)
    return [lr0 * min(math.floor(i / step_per_epoch), warmup_epoch) / warmup_epoch for i in range(total_step)]
