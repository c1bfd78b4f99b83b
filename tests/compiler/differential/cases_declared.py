"""Differential cases that follow from an op's declaration: every primitive that declares its
public names (`api`, see spore/ops/primitive.py) gets cases for `ops.<function>`, each
`Tensor.<name>` and the class form `ops.<Cls>()` from its registry samples
(tests/engine/samples/) — each sample as given, in float32 and as 0-d tensors — so adding a plain
elementwise op takes its declaration and a sample.

A sample's arrays fix the shapes, dtypes and the domain; each run draws fresh values near them
(scaled by U[0.9, 1.1), keeping signs and zeros), so a constant baked into a graph still shows.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import spore as ms
from spore import ops
from spore.ops.primitive import REGISTRY

from ...engine.samples import all_samples
from .cases_tensor_nn import C, G
from .harness import Case


def _near(a: np.ndarray) -> G:
    a = np.asarray(a)
    if a.dtype.kind != "f":
        return G(lambda r: a.copy())
    return G(lambda r: np.asarray(a * r.uniform(0.9, 1.1, a.shape)).astype(a.dtype))


def _declared() -> list[tuple[Any, list[Any]]]:
    samples = all_samples()
    return [(p, samples.get(p.name, [])) for p in REGISTRY.values() if p.api is not None]


def _variants(inputs: list[np.ndarray]) -> list[tuple[str, list[np.ndarray]]]:
    """The sample as given, in float32, and as 0-d tensors (the first element of each input)."""
    arrays = [np.asarray(a) for a in inputs]
    shapes = "x".join("-".join(map(str, a.shape)) or "0d" for a in arrays)
    f32 = [a.astype(np.float32) if a.dtype.kind == "f" else a for a in arrays]
    scalars = [np.asarray(a.reshape(-1)[0]) if a.size else a for a in arrays]
    return [(f"{arrays[0].dtype} {shapes}", arrays), (f"float32 {shapes}", f32), ("0-d", scalars)]


def _cases(label: str, fn: Any, prim_samples: list[Any]) -> list[Case]:
    out = []
    for i, s in enumerate(prim_samples):
        if s.attrs:  # a declared op has no attributes; a sample with some belongs to the primitive only
            continue
        for tag, arrays in _variants(s.inputs):
            out.append(C(f"{label}[sample {i} {tag}]", fn, *[_near(a) for a in arrays]))
    return out


def declared_function_cases() -> list[Case]:
    """`ops.<function>` (and its aliases) of every declared op."""
    out = []
    for p, samples in _declared():
        for name in (p.api.function, *p.api.aliases):
            out += _cases(f"ops.{name}", getattr(ops, name), samples)
    return out


def declared_class_cases() -> list[Case]:
    """`ops.<Cls>()` of every declared op that names a class form."""
    return [c for p, samples in _declared() if p.api.cls
            for c in _cases(f"ops.{p.api.cls}", getattr(ops, p.api.cls)(), samples)]


def declared_tensor_cases() -> list[Case]:
    """`Tensor.<name>` of every declared op."""
    return [c for p, samples in _declared() for name in (p.api.function, *p.api.aliases)
            for c in _cases(f"Tensor.{name}", getattr(ms.Tensor, name), samples)]
