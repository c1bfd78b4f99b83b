"""MindSpore's functional op names (`ops.matmul`, `ops.relu`, ...), gathered from the declaration
modules: every public function defined in one of them is exported here. Each is a thin wrapper
over registered primitives.
"""

from __future__ import annotations

import types

from . import array, elementwise, linalg, reduction

DECLARATION_MODULES: tuple[types.ModuleType, ...] = (array, elementwise, linalg, reduction)


def _public_functions(module: types.ModuleType) -> dict:
    return {n: v for n, v in vars(module).items()
            if not n.startswith("_") and isinstance(v, types.FunctionType) and v.__module__ == module.__name__}


for _m in DECLARATION_MODULES:
    globals().update(_public_functions(_m))

_binary = elementwise._binary
