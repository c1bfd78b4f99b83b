"""`Adagrad`, as MindSpore's `nn.Adagrad` (`ops.ApplyAdagrad`).

Per element, with ``g = grad / loss_scale + weight_decay * p`` (non-'beta'/'gamma' parameters)::

    accum += g * g                  (only with update_slots=True)
    p -= lr * g / sqrt(accum)

`accum` starts at the `accum` argument (0.1), which is what keeps the first division finite: the
kernel adds no epsilon (the nn.Adagrad page shows one; `ops.ApplyAdagrad` has none). PyTorch's
Adagrad is the same with ``initial_accumulator_value=accum`` and ``eps=0``. The update runs in
NumPy (it is not one of the fused kernels). State: ``accum.<name>``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import _fused
from .optimizer import Optimizer, opt_init_args_register

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    """``Adagrad(params, accum=0.1, learning_rate=0.001, update_slots=True, loss_scale=1.0, weight_decay=0.0)``."""

    @opt_init_args_register
    def __init__(self, params: Any, accum: float = 0.1, learning_rate: Any = 0.001, update_slots: bool = True,
                 loss_scale: float = 1.0, weight_decay: Any = 0.0) -> None:
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        if isinstance(accum, bool) or not isinstance(accum, (int, float)):
            raise TypeError(f"For '{self.cls_name}', 'accum' must be a float, got {type(accum).__name__}")
        if accum < 0:
            raise ValueError(f"For '{self.cls_name}', 'accum' must be at least 0, got {accum}")
        if not isinstance(update_slots, bool):
            raise TypeError(f"For '{self.cls_name}', 'update_slots' must be a bool, got {type(update_slots).__name__}")
        self.update_slots = update_slots
        self.accum = self._clone_state("accum", float(accum))

    def construct(self, grads: tuple) -> Any:
        pdata, gdata = self._prepare(grads)
        wds = self._decays()
        lrs = self._step_lrs()
        for i, (w, g) in enumerate(zip(pdata, gdata)):
            ct = _fused.compute_dtype(w)
            wc = w.astype(ct, copy=False)
            g = g.astype(ct, copy=False) * ct(self._grad_scale)
            if wds[i]:
                g = g + ct(wds[i]) * wc
            acc = self.accum[i]._data
            acc_new = acc.astype(ct)
            if self.update_slots:
                acc_new = acc_new + g * g
                _fused.write(acc, acc_new)
            _fused.write(w, wc - ct(lrs[i if len(lrs) > 1 else 0]) * g / np.sqrt(acc_new))
        return self._success()
