"""More of MindSpore's samplers (issue 14, dataset slice): `PKSampler`, `IterSampler` and the
`BuiltinSampler` base class.

`PKSampler` needs each row's class: the source hands itself to the sampler when it is built
(``_bind_source``), and the sampler reads the ``class_column`` of every row once — from the
source's label array when it keeps one (ImageFolderDataset, MNIST, ...), else through its reader.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from ._seeding import EpochCtx
from .errors import DatasetError
from .samplers import Sampler, _IterableSampler

__all__ = ["BuiltinSampler", "IterSampler", "PKSampler"]


class BuiltinSampler(Sampler):
    """The base of Spore's own samplers (MindSpore's name); subclass `Sampler` for a custom one."""


class IterSampler(_IterableSampler):
    """Indices from any iterable (a list, a generator function's result, a user object with
    ``__iter__``), re-iterated each epoch; ``num_samples`` keeps the first that many."""

    def __init__(self, sampler: Iterable[int], num_samples: int | None = None) -> None:
        if not hasattr(sampler, "__iter__"):
            raise TypeError(f"IterSampler: sampler must be iterable, got {type(sampler).__name__}")
        super().__init__(sampler)
        from .samplers import _check_num_samples

        self.num_samples = _check_num_samples(num_samples)

    def _count(self, n: int) -> int | None:
        m = super()._count(n)
        return m if m is None or not self.num_samples else min(m, self.num_samples)


class PKSampler(BuiltinSampler):
    """``num_val`` rows of every class (P classes x K rows), classes in ascending label order; with
    ``shuffle=True`` the rows of a class are drawn at random and the whole list is shuffled. A class
    with fewer than ``num_val`` rows repeats them (drawn with replacement when shuffling)."""

    def __init__(self, num_val: int, num_class: int | None = None, shuffle: bool = False,
                 class_column: str = "label", num_samples: int | None = None) -> None:
        super().__init__(num_samples)
        if isinstance(num_val, bool) or not isinstance(num_val, int) or num_val < 1:
            raise ValueError(f"PKSampler: num_val must be a positive int, got {num_val!r}")
        if num_class is not None:
            raise ValueError("PKSampler: num_class is not supported (MindSpore does not support it either); "
                             "every class is sampled")
        self.num_val, self.num_class, self.shuffle, self.class_column = num_val, num_class, bool(shuffle), class_column
        self._groups: list[np.ndarray] | None = None

    def _bind_source(self, source: Any) -> None:
        names = source.get_col_names()
        if self.class_column not in names:
            raise DatasetError(f"PKSampler: {type(source).__name__} has no column {self.class_column!r}; "
                               f"the columns are {names}")
        col = names.index(self.class_column)
        labels = getattr(source, "_labels", None)
        if labels is None or len(labels) != source._num_rows():
            reader = source._reader()
            labels = [np.asarray(reader(i)[col]) for i in range(source._num_rows())]
        keys = []
        for i, lab in enumerate(labels):
            a = np.asarray(lab)
            if a.size != 1:
                raise DatasetError(f"PKSampler: row {i}: the class column {self.class_column!r} holds shape "
                                   f"{a.shape}; it must hold one label per row")
            keys.append(a.reshape(()).item())
        classes = sorted(set(keys))
        arr = np.asarray([classes.index(k) for k in keys], dtype=np.int64)
        self._groups = [np.nonzero(arr == c)[0] for c in range(len(classes))]

    def _draw(self, n: int, ctx: EpochCtx) -> np.ndarray:
        if self._groups is None:
            raise DatasetError("PKSampler: only a source built with it (sampler=PKSampler(...)) can use it")
        rng = ctx.rng()
        parts = []
        for g in self._groups:
            if self.shuffle:
                parts.append(rng.choice(g, self.num_val, replace=len(g) < self.num_val))
            else:
                parts.append(np.resize(g, self.num_val))
        out = np.concatenate(parts) if parts else np.zeros(0, np.int64)
        return (rng.permutation(out) if self.shuffle else out).astype(np.int64)

    def _count(self, n: int) -> int | None:
        if self._groups is None:
            return None
        m = self.num_val * len(self._groups)
        return min(m, self.num_samples) if self.num_samples else m
