"""`spore.ops`: MindSpore's functional ops (`ops.matmul`) and op classes (`ops.MatMul()`).

Both are thin wrappers over the primitive registry in `spore.ops.primitive`.
"""

from .functional import *  # noqa: F401,F403
from .functional import DECLARATION_MODULES, _public_functions
from .primitive import REGISTRY, Primitive, primitive  # noqa: F401

for _m in DECLARATION_MODULES:
    globals().update(_public_functions(_m))
