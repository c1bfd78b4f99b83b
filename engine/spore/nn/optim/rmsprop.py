"""`RMSProp`, as MindSpore's `nn.RMSProp` (`ops.ApplyRMSProp` / `ops.ApplyCenteredRMSProp`).

Per element, with ``g = grad / loss_scale + weight_decay * p`` (non-'beta'/'gamma' parameters)::

    ms  = decay * ms + (1 - decay) * g * g
    mg  = decay * mg + (1 - decay) * g                                  (centered only)
    mom = momentum * mom + lr * g / sqrt(ms + epsilon)                  (sqrt(ms - mg^2 + epsilon) centered)
    p  -= mom

Note MindSpore starts the mean square ``ms`` at ONE (PyTorch at zero) and puts epsilon inside the
square root (PyTorch outside), so the first steps differ from `torch.optim.RMSprop`; the learning
rate sits inside the momentum buffer (PyTorch multiplies after). The update runs in NumPy (it is not
one of the fused kernels). State: ``mean_square.<name>`` (ones), ``moment.<name>`` (zeros) and,
centered, ``mean_grad.<name>`` (zeros).

MindSpore's RMSProp advances `global_step` a second time per step on top of `get_lr`, so a dynamic
learning rate runs at double speed there; Spore advances it once (the documented behaviour).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import _fused
from .optimizer import Optimizer, opt_init_args_register

__all__ = ["RMSProp"]


class RMSProp(Optimizer):
    """``RMSProp(params, learning_rate=0.1, decay=0.9, momentum=0.0, epsilon=1e-10, use_locking=False,
    centered=False, loss_scale=1.0, weight_decay=0.0)``."""

    @opt_init_args_register
    def __init__(self, params: Any, learning_rate: Any = 0.1, decay: float = 0.9, momentum: float = 0.0,
                 epsilon: float = 1e-10, use_locking: bool = False, centered: bool = False, loss_scale: float = 1.0,
                 weight_decay: Any = 0.0) -> None:
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        for name, value in (("decay", decay), ("momentum", momentum), ("epsilon", epsilon)):
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise TypeError(f"For '{self.cls_name}', '{name}' must be a float, got {type(value).__name__}")
        if decay < 0 or momentum < 0:
            raise ValueError(f"For '{self.cls_name}', 'decay' and 'momentum' must be at least 0, got "
                             f"decay={decay}, momentum={momentum}")
        if not epsilon > 0:
            raise ValueError(f"For '{self.cls_name}', 'epsilon' must be greater than 0, got {epsilon}")
        for name, value in (("use_locking", use_locking), ("centered", centered)):
            if not isinstance(value, bool):
                raise TypeError(f"For '{self.cls_name}', '{name}' must be a bool, got {type(value).__name__}")
        self.decay, self.momentum, self.epsilon = float(decay), float(momentum), float(epsilon)
        self.centered = centered
        self.mg = self._clone_state("mean_grad", 0.0) if centered else None
        self.ms = self._clone_state("mean_square", 1.0)
        self.moment = self._clone_state("moment", 0.0)

    def construct(self, gradients: tuple) -> Any:
        pdata, gdata = self._prepare(gradients)
        wds = self._decays()
        lrs = self._step_lrs()
        rho = self.decay
        for i, (w, g) in enumerate(zip(pdata, gdata)):
            ct = _fused.compute_dtype(w)
            wc = w.astype(ct, copy=False)
            g = g.astype(ct, copy=False) * ct(self._grad_scale)
            if wds[i]:
                g = g + ct(wds[i]) * wc
            ms = self.ms[i]._data
            ms_new = ct(rho) * ms.astype(ct) + (ct(1) - ct(rho)) * g * g
            _fused.write(ms, ms_new)
            denom = ms_new
            if self.centered:
                mg = self.mg[i]._data
                mg_new = ct(rho) * mg.astype(ct) + (ct(1) - ct(rho)) * g
                _fused.write(mg, mg_new)
                denom = ms_new - mg_new * mg_new
            mom = self.moment[i]._data
            lr = ct(lrs[i if len(lrs) > 1 else 0])
            mom_new = ct(self.momentum) * mom.astype(ct) + lr * g / np.sqrt(denom + ct(self.epsilon))
            _fused.write(mom, mom_new)
            _fused.write(w, wc - mom_new)
        return self._success()
