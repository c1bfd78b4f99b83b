"""nn Cells of the vision/sequence slice (issue 14): `nn.CTCLoss` over `ops.ctc_loss`, and the
fractional max-pooling Cells over `ops.fractional_max_pool2d/3d`."""

from __future__ import annotations

from typing import Any

from ..ops import functional as F
from ..tensor import Tensor
from .cell import Cell

__all__ = ["CTCLoss", "FractionalMaxPool2d", "FractionalMaxPool3d"]


class CTCLoss(Cell):
    """``CTCLoss(blank=0, reduction='mean', zero_infinity=False)(log_probs, targets, input_lengths,
    target_lengths)``: the CTC loss of `ops.ctc_loss` (without its log_alpha). Unbatched input —
    log_probs (T, C), targets (S,) — is taken as a batch of one."""

    def __init__(self, blank: int = 0, reduction: str = "mean", zero_infinity: bool = False) -> None:
        super().__init__()
        if isinstance(blank, bool) or not isinstance(blank, int):
            raise TypeError(f"CTCLoss: blank must be an int, got {type(blank).__name__}")
        if reduction not in ("none", "mean", "sum"):
            raise ValueError(f"CTCLoss: reduction must be 'none', 'mean' or 'sum', got {reduction!r}")
        if not isinstance(zero_infinity, bool):
            raise TypeError(f"CTCLoss: zero_infinity must be a bool, got {type(zero_infinity).__name__}")
        self.blank, self.reduction, self.zero_infinity = blank, reduction, zero_infinity

    def construct(self, log_probs: Tensor, targets: Tensor, input_lengths: Any, target_lengths: Any) -> Tensor:
        if log_probs.ndim == 2:  # unbatched
            log_probs = F.expand_dims(log_probs, 1)
            targets = F.expand_dims(targets, 0)
            if isinstance(input_lengths, Tensor):
                input_lengths = F.reshape(input_lengths, (1,))
            if isinstance(target_lengths, Tensor):
                target_lengths = F.reshape(target_lengths, (1,))
        loss, _ = F.ctc_loss(log_probs, targets, input_lengths, target_lengths, self.blank, self.reduction,
                             self.zero_infinity)
        return loss

    def extend_repr(self) -> str:
        return f"blank={self.blank}, reduction={self.reduction}, zero_infinity={self.zero_infinity}"


class _FractionalMaxPoolNd(Cell):
    _fn = staticmethod(F.fractional_max_pool2d)

    def __init__(self, kernel_size: Any, output_size: Any = None, output_ratio: Any = None,
                 return_indices: bool = False, _random_samples: Tensor | None = None) -> None:
        super().__init__()
        name = type(self).__name__
        if output_size is None and output_ratio is None:
            raise ValueError(f"{name}: one of output_size and output_ratio must be given")
        if output_size is not None and output_ratio is not None:
            raise ValueError(f"{name}: give output_size or output_ratio, not both")
        self.kernel_size, self.output_size, self.output_ratio = kernel_size, output_size, output_ratio
        self.return_indices = bool(return_indices)
        self._random_samples = _random_samples

    def construct(self, input: Tensor) -> Any:  # noqa: A002  (MindSpore's name)
        return type(self)._fn(input, self.kernel_size, self.output_size, self.output_ratio, self.return_indices,
                              self._random_samples)

    def extend_repr(self) -> str:
        return (f"kernel_size={self.kernel_size}, output_size={self.output_size}, "
                f"output_ratio={self.output_ratio}, return_indices={self.return_indices}")


class FractionalMaxPool2d(_FractionalMaxPoolNd):
    """``FractionalMaxPool2d(kernel_size, output_size=None, output_ratio=None, return_indices=False,
    _random_samples=None)(input)``: `ops.fractional_max_pool2d` as a Cell (fresh random windows per
    call unless _random_samples is given)."""

    _fn = staticmethod(F.fractional_max_pool2d)


class FractionalMaxPool3d(_FractionalMaxPoolNd):
    """``FractionalMaxPool3d(kernel_size, output_size=None, output_ratio=None, return_indices=False,
    _random_samples=None)(input)``: `ops.fractional_max_pool3d` as a Cell."""

    _fn = staticmethod(F.fractional_max_pool3d)
