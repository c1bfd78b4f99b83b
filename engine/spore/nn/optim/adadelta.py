"""`Adadelta`, as MindSpore's `nn.Adadelta` (`ops.ApplyAdadelta`).

Per element, with ``g = grad / loss_scale + weight_decay * p`` (non-'beta'/'gamma' parameters)::

    accum = rho * accum + (1 - rho) * g * g
    update = sqrt(accum_update + epsilon) / sqrt(accum + epsilon) * g
    accum_update = rho * accum_update + (1 - rho) * update * update
    p -= lr * update

Both accumulators start at zero. This is also PyTorch's `torch.optim.Adadelta` (lr=1.0 by default
in both). State: ``accum.<name>`` and ``accum_update.<name>``; the update runs in NumPy.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import _fused
from .optimizer import Optimizer, opt_init_args_register

__all__ = ["Adadelta"]


class Adadelta(Optimizer):
    """``Adadelta(params, learning_rate=1.0, rho=0.9, epsilon=1e-6, loss_scale=1.0, weight_decay=0.0)``."""

    @opt_init_args_register
    def __init__(self, params: Any, learning_rate: Any = 1.0, rho: float = 0.9, epsilon: float = 1e-6,
                 loss_scale: float = 1.0, weight_decay: Any = 0.0) -> None:
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        for name, value in (("rho", rho), ("epsilon", epsilon)):
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise TypeError(f"For '{self.cls_name}', '{name}' must be a float, got {type(value).__name__}")
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"For '{self.cls_name}', 'rho' must be in [0, 1], got {rho}")
        if epsilon < 0:
            raise ValueError(f"For '{self.cls_name}', 'epsilon' must be at least 0, got {epsilon}")
        self.rho, self.epsilon = float(rho), float(epsilon)
        self.accum = self._clone_state("accum", 0.0)
        self.accum_update = self._clone_state("accum_update", 0.0)

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
            rho, eps = ct(self.rho), ct(self.epsilon)
            acc = self.accum[i]._data.astype(ct) * rho + (ct(1) - rho) * g * g
            upd_acc = self.accum_update[i]._data.astype(ct)
            update = np.sqrt(upd_acc + eps) / np.sqrt(acc + eps) * g
            _fused.write(self.accum[i]._data, acc)
            _fused.write(self.accum_update[i]._data, upd_acc * rho + (ct(1) - rho) * update * update)
            _fused.write(w, wc - ct(lrs[i if len(lrs) > 1 else 0]) * update)
        return self._success()
