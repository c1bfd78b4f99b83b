"""`grad` and `value_and_grad` with MindSpore's semantics.

- `grad_position`: an int (one gradient), a tuple of ints (a tuple of gradients) or None (no
  input gradients: only `weights`).
- `weights`: one Parameter, or a list/ParameterTuple of them (a tuple of gradients).
- With both, the result is ``(input_grads, weight_grads)``.
- `has_aux`: `fn` returns ``(out, *aux)``; only `out` is differentiated and the aux outputs are
  passed through (`value_and_grad` returns them in the value, `grad` returns ``(grads, aux)``).
- An output that is a tuple of tensors is differentiated as the sum of its parts (MindSpore's
  all-ones sensitivity); with `sens_param=True` the last positional input is the sensitivity.
- An input that does not influence the output gets a zero gradient, as in MindSpore.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from ..common.tree import tensors as flat_tensors
from ..errors import GradError, located
from ..tensor import Parameter, Tensor
from . import tape


def _positions(grad_position: Any, nargs: int) -> tuple[int, ...] | None:
    if grad_position is None:
        return None
    pos = (grad_position,) if isinstance(grad_position, int) else tuple(grad_position)
    for p in pos:
        if not isinstance(p, int) or not -nargs <= p < nargs:
            raise located(GradError(
                f"grad_position {grad_position!r} is out of range for a call with {nargs} positional inputs",
                hint="grad_position counts the function's positional arguments from 0"))
    return tuple(p % nargs for p in pos)


def _weights(weights: Any) -> tuple[list[Parameter], bool]:
    """The list of weights and whether the user gave a single Parameter."""
    if weights is None:
        return [], False
    if isinstance(weights, Tensor):
        return [weights], True
    ws = list(weights)
    for w in ws:
        if not isinstance(w, Tensor):
            raise located(GradError(f"weights must be Parameters, got {type(w).__name__}",
                                    hint="pass net.trainable_params() or optimizer.parameters"))
    return ws, False


def _detach(obj: Any) -> Any:
    """Drop tape links from results when no outer grad needs them (frees the recorded graph)."""
    if tape.STATE.depth:
        return obj
    if isinstance(obj, Tensor) and not isinstance(obj, Parameter):
        return Tensor._wrap(obj._data) if obj._node is not None else obj
    if isinstance(obj, tuple):
        return tuple(_detach(o) for o in obj)
    if isinstance(obj, list):
        return [_detach(o) for o in obj]
    return obj


def _run(fn: Callable, grad_position: Any, weights: Any, has_aux: bool, return_ids: bool,
         sens_param: bool, args: tuple, kwargs: dict) -> tuple[Any, Any]:
    from ..ops import functional as F

    sens = None
    if sens_param:
        if not args:
            raise located(GradError("sens_param=True needs the sensitivity as the last positional input"))
        args, sens = args[:-1], args[-1]
    positions = _positions(grad_position, len(args))
    ws, single_w = _weights(weights)
    if positions is None and not ws:
        raise located(GradError("grad_position is None and no weights were given: nothing to differentiate",
                                hint="pass grad_position=0, or weights=net.trainable_params()"))
    args = list(args)
    for p in positions or ():
        if not isinstance(args[p], Tensor):
            raise located(GradError(
                f"input {p} is a {type(args[p]).__name__}, not a Tensor: it has no gradient",
                hint=f"wrap it as ms.Tensor(...) or leave position {p} out of grad_position"))
    leaves = [args[p] for p in positions or ()] + ws
    from ..ops.primitive import TRACING

    if TRACING.builder is not None:  # inside a compilation: differentiate the IR instead of the tape
        from ..compiler.graph_grad import traced_grad
        from ..compiler.trace import Tracer

        for p in positions or ():  # a constant of the graph (ops.zeros_like(x), a closure tensor) is made a
            if not isinstance(args[p], (Tracer, Parameter)):  # value, so it gets its gradient as in PyNative
                args[p] = F.identity(args[p])
        hooked = leaves  # the tensors themselves: a closure tensor's PyNative hooks stay on it, not on its identity
        leaves = [args[p] for p in positions or ()] + ws
        main, aux, grads = traced_grad(fn, args, kwargs, leaves, has_aux, sens)
        if tape.TENSOR_HOOKS:  # hooks registered in PyNative on these leaves (Parameters, inputs): traced in
            grads = [tape._hooked(t, g) for t, g in zip(hooked, grads)]
        return _package(main, aux, grads, leaves, positions, grad_position, ws, single_w, return_ids, has_aux)
    with tape.watching(leaves):
        main, aux = split_aux(fn(*args, **kwargs), has_aux)
        roots = flat_tensors(main)
        if not roots:
            raise located(GradError(f"the function returned {type(main).__name__}; grad needs a Tensor output"))
        if sens is None:
            cot = [F.ones_like(r) for r in roots]
        else:
            cot = flat_tensors(sens)
            if len(cot) != len(roots):
                raise located(GradError(f"sens has {len(cot)} tensors for {len(roots)} outputs"))
        depth = tape.STATE.depth
        try:  # the backward pass is recorded only for an outer grad (restored, not counted back: see watching)
            tape.STATE.depth = depth - 1
            grads = tape.backward(roots, cot, leaves)
        finally:
            tape.STATE.depth = depth
    return _package(main, aux, grads, leaves, positions, grad_position, ws, single_w, return_ids, has_aux)


def split_aux(out: Any, has_aux: bool) -> tuple[Any, tuple]:
    """(differentiated output, aux outputs) of a function's result."""
    if not has_aux:
        return out, ()
    if not isinstance(out, tuple) or len(out) < 2:
        raise located(GradError("has_aux=True needs the function to return (output, *aux)"))
    return out[0], out[1:]


def _package(main: Any, aux: tuple, grads: list, leaves: list, positions: tuple[int, ...] | None,
             grad_position: Any, ws: list, single_w: bool, return_ids: bool, has_aux: bool) -> tuple[Any, Any]:
    """Arrange values and gradients the way MindSpore returns them."""
    from ..ops import functional as F

    grads = [g if g is not None else F.zeros_like(leaf) for g, leaf in zip(grads, leaves)]
    n_pos = len(positions or ())
    pos_grads, w_grads = grads[:n_pos], grads[n_pos:]
    if return_ids:
        pos_grads = [(p, g) for p, g in zip(positions or (), pos_grads)]
        w_grads = [(w.name, g) for w, g in zip(ws, w_grads)]
    pos_res: Any = None
    if positions is not None:
        pos_res = pos_grads[0] if isinstance(grad_position, int) else tuple(pos_grads)
    w_res: Any = None
    if ws:
        w_res = w_grads[0] if single_w else tuple(w_grads)
    if positions is not None and ws:
        result: Any = (pos_res, w_res)
    else:
        result = pos_res if positions is not None else w_res
    value = (main,) + tuple(aux) if has_aux else main
    return _detach(value), _detach(result)


def grad(fn: Callable, grad_position: Any = 0, weights: Any = None, has_aux: bool = False,
         return_ids: bool = False, sens_param: bool = False) -> Callable:
    """A function that computes the gradient of `fn` (see the module docstring for the rules)."""

    @functools.wraps(fn)
    def grad_fn(*args: Any, **kwargs: Any) -> Any:
        value, g = _run(fn, grad_position, weights, has_aux, return_ids, sens_param, args, kwargs)
        return (g, value[1:]) if has_aux else g

    return grad_fn


def value_and_grad(fn: Callable, grad_position: Any = 0, weights: Any = None, has_aux: bool = False,
                   return_ids: bool = False, sens_param: bool = False) -> Callable:
    """A function that returns ``(value of fn, gradient)``; see the module docstring for the rules."""

    @functools.wraps(fn)
    def value_and_grad_fn(*args: Any, **kwargs: Any) -> Any:
        return _run(fn, grad_position, weights, has_aux, return_ids, sens_param, args, kwargs)

    return value_and_grad_fn


def vjp(fn: Callable, *inputs: Tensor, weights: Any = None, has_aux: bool = False) -> tuple[Any, Callable]:
    """MindSpore's `ops.vjp`: the output of `fn` and a function from cotangents to input grads
    (with `weights`: ``(input grads, weight grads)``, as `grad` arranges them)."""
    out = fn(*inputs)

    def pullback(*cot: Tensor) -> Any:
        g = grad(fn, grad_position=tuple(range(len(inputs))), weights=weights, has_aux=has_aux,
                 sens_param=True)(*inputs, *cot)
        g = g[0] if has_aux else g
        return g

    return out, pullback




def get_grad(gradients: Any, identifier: Any) -> Tensor:
    """The gradient for `identifier` in the result of ``grad(..., return_ids=True)``: an int picks
    the input at that position, a Parameter (or its name) the weight of that name (MindSpore's
    ``ms.get_grad``). Raises ValueError naming what was looked for when it is not there."""
    if isinstance(identifier, Parameter):
        key: Any = identifier.name
    elif isinstance(identifier, (int, str)) and not isinstance(identifier, bool):
        key = identifier
    else:
        raise TypeError(f"get_grad: identifier must be an int position or a Parameter, got {type(identifier).__name__}")

    def find(node: Any) -> Any:
        if isinstance(node, tuple):
            if len(node) == 2 and isinstance(node[1], Tensor) and isinstance(node[0], (int, str)) \
                    and not isinstance(node[0], bool):
                return node[1] if node[0] == key and type(node[0]) is type(key) else None
            for child in node:
                hit = find(child)
                if hit is not None:
                    return hit
        return None

    hit = find(gradients)
    if hit is None:
        what = f"input position {key}" if isinstance(key, int) else f"parameter {key!r}"
        raise ValueError(f"get_grad: no gradient for {what}; compute the gradients with return_ids=True "
                         "and include it in grad_position / weights")
    return hit


def _jacobian(fn: Callable, args: tuple, grad_position: Any, has_aux: bool) -> Any:
    """d out / d args[p] for each p in `grad_position`, shaped out.shape + arg.shape, one reverse pass
    per output element (fine for the small Jacobians these functions are used on)."""
    from ..ops import functional as F

    single = isinstance(grad_position, int)
    positions = (grad_position,) if single else tuple(grad_position)
    value = fn(*args)
    out, aux = split_aux(value, has_aux)
    if not isinstance(out, Tensor):
        raise located(GradError(f"jacrev/jacfwd: the function returned {type(out).__name__}; they need one Tensor"))
    rows: list[list[Any]] = [[] for _ in positions]
    g_fn = grad(fn, grad_position=positions, has_aux=has_aux, sens_param=True)
    for idx in np.ndindex(*out.shape) if out.shape else [()]:
        sens = np.zeros(out.shape, out.dtype.np)
        sens[idx] = 1
        gs = g_fn(*args, Tensor._wrap(sens))
        gs = gs[0] if has_aux else gs
        for k, g in enumerate(gs):
            rows[k].append(g)
    jac = [F.reshape(F.stack(r, 0), tuple(out.shape) + tuple(args[p].shape)) for r, p in zip(rows, positions)]
    res: Any = jac[0] if single else tuple(jac)
    return (res, aux[0] if len(aux) == 1 else aux) if has_aux else res


def jacrev(fn: Callable, grad_position: Any = 0, has_aux: bool = False) -> Callable:
    """The Jacobian of `fn` by reverse mode (MindSpore's ``ms.jacrev``): shaped out.shape + input.shape."""

    @functools.wraps(fn)
    def jac_fn(*args: Any) -> Any:
        return _jacobian(fn, args, grad_position, has_aux)

    return jac_fn


def jacfwd(fn: Callable, grad_position: Any = 0, has_aux: bool = False) -> Callable:
    """The Jacobian of `fn` (MindSpore's ``ms.jacfwd``). Spore has no forward-mode autodiff yet; the
    same matrix is computed by reverse mode, so results equal `jacrev`'s."""

    @functools.wraps(fn)
    def jac_fn(*args: Any) -> Any:
        return _jacobian(fn, args, grad_position, has_aux)

    return jac_fn


def jvp(fn: Callable, inputs: Any, v: Any, has_aux: bool = False) -> Any:
    """MindSpore's ``ms.jvp``: ``(fn(*inputs), J @ v)`` (plus the aux outputs with `has_aux`). The
    product is taken with the Jacobian from `jacrev` (reverse mode; exact, one pass per output element)."""
    from ..ops import functional as F

    ins = tuple(inputs) if isinstance(inputs, (tuple, list)) else (inputs,)
    vs = tuple(v) if isinstance(v, (tuple, list)) else (v,)
    if len(vs) != len(ins):
        raise ValueError(f"jvp: {len(vs)} tangents for {len(ins)} inputs")
    value = fn(*ins)
    out, aux = split_aux(value, has_aux)
    jac = _jacobian(fn, ins, tuple(range(len(ins))), has_aux)
    jac = jac[0] if has_aux else jac
    total = None
    for j, t, x in zip(jac, vs, ins):
        flat = F.reshape(j, (-1, max(1, int(np.prod(x.shape)))))
        part = F.reshape(F.matmul(flat, F.reshape(F.cast(t, j.dtype), (-1, 1))), tuple(out.shape))
        total = part if total is None else F.add(total, part)
    res = (_detach(out), _detach(total))
    return res + ((aux[0] if len(aux) == 1 else aux),) if has_aux else res
