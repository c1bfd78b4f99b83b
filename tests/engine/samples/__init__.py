"""Sample inputs for every registered primitive (public and internal), one module per op family.

Each module defines ``SAMPLES: dict[str, list[Sample]]`` keyed by primitive name. The registry
coverage test runs every sample through: infer vs impl agreement (shape and dtype) and, unless
``grad=False``, the finite-difference gradient check. A primitive with no sample fails that test.
"""

from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Sample:
    inputs: list[Any]                       # NumPy arrays (float64 where a gradient is checked)
    attrs: dict[str, Any] = field(default_factory=dict)
    grad: bool = True                       # False: op is not differentiable (say why in `why`)
    wrt: tuple[int, ...] | None = None      # inputs to check (default: all float inputs)
    why: str = ""
    rtol: float = 1e-5
    atol: float = 1e-6
    graph: bool = False                     # run as a one-equation compiled graph (impl runs only there)


def all_samples() -> dict[str, list[Sample]]:
    merged: dict[str, list[Sample]] = {}
    for info in pkgutil.iter_modules(__path__):
        mod = importlib.import_module(f"{__name__}.{info.name}")
        for name, samples in getattr(mod, "SAMPLES", {}).items():
            merged.setdefault(name, []).extend(samples)
    return merged
