"""Static tensor shapes in `construct`: abstract interpretation over (shape, dtype), never running user code.

What it reads, all from the AST (`program`, `cells`, `inputs`, `datasets`): each Cell class's `__init__`
(``self.fc = nn.Dense(16 * 16 * 8, 10)``, ``nn.SequentialCell([...])``, user Cells, layers built in
constant loops), with constructor arguments computed by the safe evaluator (`consts`; never `eval`); the
input shapes, from a ``# spore: input_shape=(32, 3, 32, 32)`` comment or from a call site in the same
program (literal tensors, variables bound to them, keyword arguments, datasets with literal arrays).

What it asks: every step (a layer call, an ``ops.*`` call, a Tensor method, an operator, an index) is
answered by the engine through `spore.ide.layer_output` / `op_output` / `method_output`, which run Spore's
own code over Graph mode's tracers — so the editor's shapes are the engine's shapes (`expressions`,
`interpreter`, with control flow as Graph mode compiles it).

What it reports (`findings`): a refusal as a ``shape-mismatch`` error, and where inference stops one
``shape-stopped`` note per construct. Unknown propagates as unknown: a step with an unknown input is never
flagged. The inferred values feed hover and inlay hints through `FunctionFacts.facts["shapes"]` (`check`).
"""

from __future__ import annotations

from .check import check, steps_at, value_of
from .consts import NotConst, const_eval
from .values import UNKNOWN, ConstructShapes, Step, TVal, Unknown, label

__all__ = ["UNKNOWN", "ConstructShapes", "NotConst", "Step", "TVal", "Unknown", "check", "const_eval", "label",
           "steps_at", "value_of"]
