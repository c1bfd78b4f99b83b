"""`grad` / `value_and_grad` called while a graph is being compiled (e.g. inside a `@jit` training
step): the function is interpreted into the same graph and differentiated by the IR transform, so
forward, backward and the optimizer update all end up in one compiled graph.
"""

from __future__ import annotations

from typing import Any

from ..autodiff.api import split_aux
from ..common.tree import tensors as flat_tensors
from ..errors import GradError
from ..ops import functional as F
from ..ops.primitive import TRACING
from ..tensor import Tensor
from .grad import backprop
from .ir import Var


def traced_grad(fn: Any, args: list, kwargs: dict, leaves: list[Tensor], has_aux: bool,
                sens: Any) -> tuple[Any, tuple, list]:
    """Interpret `fn(*args)` into the active graph and append its gradient w.r.t. `leaves`."""
    builder = TRACING.builder
    frontend = builder.frontend
    start = len(builder.eqns)
    # the leaves' variables as they are before `fn` runs: `fn` may rebind a leaf (a.register_hook(h)
    # makes `a` an InsertGradientOf of itself), and the gradient must reach the input, through the hook
    atoms = [builder.atom(t) for t in leaves]
    out = frontend.call(None, fn, list(args), dict(kwargs))
    main, aux = split_aux(out, has_aux)
    roots = flat_tensors(main)
    if not roots:
        raise GradError(f"the function returned {type(main).__name__}; grad needs a Tensor output", loc=builder.loc)
    cots = [F.ones_like(r) for r in roots] if sens is None else flat_tensors(sens)
    if len(cots) != len(roots):
        raise GradError(f"sens has {len(cots)} tensors for {len(roots)} outputs", loc=builder.loc)
    var_at = [i for i, a in enumerate(atoms) if isinstance(a, Var)]  # constants have no gradient
    found = backprop(builder, builder.eqns[start:], [builder.atom(r) for r in roots], cots,
                     [atoms[i] for i in var_at])
    grads: list = [None] * len(atoms)
    for k, i in enumerate(var_at):
        grads[i] = found[k]
    return main, aux, grads
