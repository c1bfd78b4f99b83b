"""`nn.SyncBatchNorm`: BatchNorm whose training statistics are those of the global batch.

Plain `BatchNorm` under data parallelism normalises each rank's batch with that rank's own mean and
variance (MindSpore does the same), so N ranks with batch B differ from one process with batch N*B.
SyncBatchNorm all-reduces the per-channel sums of x and x**2 (one AllReduce of a (2, C) tensor per
call), so the statistics, the output, the gradients (through AllReduce's own gradient) and the
moving statistics (unbiased variance, MindSpore's momentum meaning) equal one process's.
Ranks must use equal per-rank batches. Inference uses the moving statistics, like BatchNorm.
"""

from __future__ import annotations

from typing import Any

from ..common import dtype as mstype
from ..nn.layer.normalization import _BatchNorm
from ..ops import functional as F
from ..ops.collective import WORLD
from ..ops.collective import AllReduce as _AllReduce
from ..tensor import Tensor


class SyncBatchNorm(_BatchNorm):
    """MindSpore's ``nn.SyncBatchNorm(num_features, eps=1e-5, momentum=0.9, affine=True, gamma_init='ones',
    beta_init='zeros', moving_mean_init='zeros', moving_var_init='ones', use_batch_statistics=None,
    process_groups=None, dtype=mstype.float32)`` over (N, C), (N, C, L) or (N, C, H, W) inputs."""

    _ranks = (2, 3, 4)
    _layout = "(N, C), (N, C, L) or (N, C, H, W)"

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float = 0.9, affine: bool = True,
                 gamma_init: Any = "ones", beta_init: Any = "zeros", moving_mean_init: Any = "zeros",
                 moving_var_init: Any = "ones", use_batch_statistics: bool | None = None,
                 process_groups: list | None = None, dtype: Any = mstype.float32) -> None:
        super().__init__(num_features, eps, momentum, affine, gamma_init, beta_init, moving_mean_init,
                         moving_var_init, use_batch_statistics, "NCHW", dtype)
        if process_groups is not None:
            raise ValueError("SyncBatchNorm: process_groups is not supported by Spore; statistics are reduced "
                             "over all ranks (process_groups=None)")
        self.group = WORLD

    def construct(self, x: Tensor) -> Tensor:
        from ..communication import _backend as B

        training = self.training if self.use_batch_statistics is None else self.use_batch_statistics
        if not training or B.group_size(self.group) == 1:
            return super().construct(x)
        if x.ndim not in self._ranks or x.shape[1] != self.num_features:
            from ..nn.layer._common import shape_error

            raise shape_error("SyncBatchNorm", f"input of shape {self._layout} with C={self.num_features}", x)
        axes = (0,) + tuple(range(2, x.ndim))
        local = 1
        for i in axes:
            local *= x.shape[i]
        count = local * B.group_size(self.group)
        sums = _AllReduce(F.stack([F.sum(x, axes), F.sum(F.mul(x, x), axes)]), op="sum", group=self.group)
        mean = F.div(sums[0], float(count))
        var = F.sub(F.div(sums[1], float(count)), F.mul(mean, mean))
        shape = (1, self.num_features) + (1,) * (x.ndim - 2)
        rstd = F.rsqrt(F.add(var, self.eps))
        y = F.mul(F.sub(x, F.reshape(mean, shape)), F.reshape(rstd, shape))
        y = F.add(F.mul(y, F.reshape(self.gamma, shape)), F.reshape(self.beta, shape))
        params = self.__dict__["_params"]
        m = self.momentum
        unbiased = F.mul(F.stop_gradient(var), count / max(count - 1, 1))
        F.assign(params["moving_mean"], F.add(F.mul(params["moving_mean"], m),
                                              F.mul(F.stop_gradient(mean), 1.0 - m)))
        F.assign(params["moving_variance"], F.add(F.mul(params["moving_variance"], m), F.mul(unbiased, 1.0 - m)))
        return y
