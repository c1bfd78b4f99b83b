"""Gradient hooks on the PyNative tape (issue 14): MindSpore's `Tensor.register_hook`,
`ops.HookBackward`, `ops.InsertGradientOf`, `ops.DumpGradient` and `ms.saved_tensors_hooks`.

- A *tensor hook* (``t.register_hook(fn)``) sees the gradient that reaches `t` during a backward
  pass and may replace it by returning a new one (None keeps it). The tape (tape.py) keeps the
  hooked tensors in `tape.TENSOR_HOOKS`, a weak map that is empty unless a hook is set, so a
  backward pass without hooks pays one truth test per node and a forward op pays nothing.
- `HookBackward(hook_fn)` is an identity on its inputs whose backward calls ``hook_fn(grads)``
  with the tuple of their gradients; `InsertGradientOf(f)` is an identity whose backward maps the
  gradient through `f`; `DumpGradient` saves the gradient of a tensor to a ``.npy`` file.
- `saved_tensors_hooks(pack, unpack)`: while the context is open, every tensor a recorded op keeps
  for its backward is passed through `pack` when the op runs, and the backward rule reads
  ``unpack(packed)``. (MindSpore calls `pack` only on the tensors an op's own rule saves; Spore's
  rules may read any input, so `pack` sees every input of every recorded op.)

Graph mode: `Tensor.register_hook` and `InsertGradientOf` compile (the hook is traced into the
backward graph, under MindSpore's Graph-mode constraints) and `DumpGradient` saves when the
compiled backward runs; HookBackward and saved_tensors_hooks, which MindSpore documents as
PyNative-only, raise a clear error on the user's line while compiling.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable
from typing import Any

import numpy as np

from ..errors import SporeError, located
from . import tape


class _Tracing:
    """`spore.ops.primitive.TRACING`, read on use: this module is imported while `spore.ops` loads
    (ops/functional_control.py registers its primitives), so it imports nothing from ops at the top."""

    @property
    def builder(self) -> Any:
        from ..ops.primitive import TRACING as _t

        return _t.builder


TRACING = _Tracing()


def _aval(shape: Any, dtype: Any) -> Any:
    from ..ops.primitive import Aval

    return Aval(tuple(shape), dtype)


def _prims() -> Any:
    """The primitives of this module, registered by ops/functional_control.py."""
    from ..ops import functional_control

    return functional_control

_IDS = itertools.count(1)


def _refuse_in_graph(what: str, hint: str) -> None:
    if TRACING.builder is not None:
        raise located(SporeError(f"{what} works only in PyNative mode (as in MindSpore): a compiled graph "
                                 "does not run Python hooks in its backward pass", hint=hint))


# --- tensor hooks -------------------------------------------------------------------------------------
class RemovableHandle:
    """What `Tensor.register_hook` returns: ``handle.remove()`` takes the hook off again."""

    def __init__(self, tensor: Any, hook_id: int) -> None:
        import weakref

        self._tensor = weakref.ref(tensor)
        self.id = hook_id

    def remove(self) -> None:
        t = self._tensor()
        if t is not None:
            _remove(t, self.id)

    def __repr__(self) -> str:
        return f"RemovableHandle(id={self.id})"


def _remove(t: Any, hook_id: int) -> bool:
    hooks = t.__dict__.get("_grad_hooks")
    if not hooks or hook_id not in hooks:
        return False
    del hooks[hook_id]
    _recompile(t)
    if not hooks:
        del t.__dict__["_grad_hooks"]
        tape.TENSOR_HOOKS.pop(id(t), None)
    return True


def register_hook(self: Any, hook: Callable) -> Any:
    """Registers `hook` to run on the gradient of this tensor in each backward pass (MindSpore's
    ``Tensor.register_hook``): ``hook(grad)`` returns the new gradient (None keeps it). Several hooks
    run in the order they were registered. Returns a handle whose ``remove()`` takes the hook off.

    Inside a compiled graph (as MindSpore documents for Graph mode) the hook becomes part of the
    graph's backward pass and the call returns the tensor itself; there, a tensor takes one hook,
    before its first use, and a Parameter takes none (MindSpore's constraints)."""
    if not callable(hook):
        raise TypeError(f"Tensor.register_hook: hook must be a Python function, got {type(hook).__name__}")
    if TRACING.builder is not None:
        return _register_in_graph(self, hook)
    hook_id = next(_IDS)
    self.__dict__.setdefault("_grad_hooks", {})[hook_id] = hook
    tape.TENSOR_HOOKS[id(self)] = self
    _recompile(self)
    return RemovableHandle(self, hook_id)


def _recompile(t: Any) -> None:
    """Compiled functions bake the hooks of the Parameters they differentiate into their backward
    graphs: a change of a Parameter's hooks makes them compile again (as a change of the Cell
    structure does). Other tensors never reach a compiled graph as themselves, so hooking the
    intermediates of a PyNative step costs no recompilation."""
    from .. import context
    from ..tensor import Parameter

    if isinstance(t, Parameter):
        context.bump_structure_version()


def _register_in_graph(t: Any, hook: Callable) -> Any:
    """Graph mode: rebind the traced tensor to an InsertGradientOf of itself whose gradient rule runs
    `hook` (traced into the backward graph)."""
    from ..tensor import Parameter

    def refuse(why: str) -> SporeError:
        return located(SporeError(f"Tensor.register_hook inside a compiled graph: {why}",
                                  hint="register the hook in PyNative mode, or at the tensor's creation"))

    if isinstance(t, Parameter):
        raise refuse("a Parameter cannot take a hook inside the graph (as in MindSpore)")
    if not getattr(t, "_traced", False):
        raise refuse("this tensor is a constant of the graph (made outside it), so no gradient reaches it")
    if t.__dict__.get("_graph_hooked"):
        raise refuse("a tensor takes one hook inside the graph (as in MindSpore)")
    if t.__dict__.get("_grad_hooks"):  # an input hooked in PyNative (adopt_input_hooks)
        raise refuse("this input already has a hook registered in PyNative mode, and a tensor takes one hook "
                     "inside the graph (as in MindSpore)")
    var = t._var
    b = TRACING.builder
    b_loc = b.loc
    while b is not None:
        if any(a is var for e in b.eqns for a in e.inputs):
            raise refuse("the tensor was already used before the hook was registered, so those uses "
                         "would bypass it (MindSpore refuses this too)")
        b = b.parent

    def f(g: Any) -> Any:
        new = _call_hook(hook, g)
        return g if new is None else _as_grad(new, g, "Tensor.register_hook")

    t._rebind(_prims().INSERT_GRADIENT(t, f=f))
    t.__dict__["_graph_hooked"] = True
    t.__dict__["_hooked_var"] = t._var  # compiler/jit.py: an input rebound by its hook is not written in place
    # `t.hooks()` later in the same graph lists the hook, as PyNative's would (it is a trace-time
    # fact, so `len(t.hooks())` is a constant of the graph)
    t.__dict__["_graph_hooks"] = {next(_IDS): hook}
    t.__dict__["_graph_hook_loc"] = b_loc  # compiler/jit.py Segment: where a graph break would put Python
    return t


def input_hook_key(leaves: list) -> tuple:
    """The PyNative hooks on a compiled function's tensor inputs, as part of its cache key: the graph
    bakes them in (`adopt_input_hooks`), so a change compiles again. Empty (and free) when no tensor
    has a hook."""
    if not tape.TENSOR_HOOKS:
        return ()
    return tuple((i, tuple(t.__dict__["_grad_hooks"])) for i, t in enumerate(leaves)
                 if id(t) in tape.TENSOR_HOOKS and "_grad_hooks" in t.__dict__)


def adopt_input_hooks(leaves: list, tracers: list) -> list:
    """Give the input tracers of a graph being compiled the PyNative hooks of the tensors they stand
    for, so a `grad` inside the graph runs them on those inputs' gradients (traced into the graph) and
    `t.hooks()` lists them, as in PyNative. Returns the tracers hooked (`drop_adopted` undoes it)."""
    if not tape.TENSOR_HOOKS:
        return []
    adopted = []
    for t, tr in zip(leaves, tracers):
        hooks_of = t.__dict__.get("_grad_hooks") if id(t) in tape.TENSOR_HOOKS else None
        if hooks_of:
            tr.__dict__["_grad_hooks"] = dict(hooks_of)
            tape.TENSOR_HOOKS[id(tr)] = tr
            adopted.append(tr)
    return adopted


def drop_adopted(tracers: list) -> None:
    """After compiling: the tracers leave `tape.TENSOR_HOOKS` (empty again when no real tensor has a
    hook, so PyNative's backward keeps its no-hook fast path)."""
    for tr in tracers:
        if tape.TENSOR_HOOKS.get(id(tr)) is tr:
            del tape.TENSOR_HOOKS[id(tr)]


def remove_hook(self: Any, handle: Any) -> bool:
    """Removes a hook registered on this tensor, given its handle (or the handle's id); returns
    whether there was one."""
    if TRACING.builder is not None:
        raise located(SporeError("Tensor.remove_hook: a hook cannot be removed inside a compiled graph "
                                 "(MindSpore does not support it either)",
                                 hint="remove the hook in PyNative code, outside the jit function / construct"))
    hook_id = handle.id if isinstance(handle, RemovableHandle) else handle
    if not isinstance(hook_id, int) or isinstance(hook_id, bool):
        raise TypeError(f"Tensor.remove_hook: expected the handle register_hook returned, got {type(handle).__name__}")
    return _remove(self, hook_id)


def hooks(self: Any) -> dict[int, Callable]:
    """The gradient hooks registered on this tensor, by handle id, in the order they run."""
    if TRACING.builder is not None and self.__dict__.get("_graph_hooks_conditional"):
        raise located(SporeError("Tensor.hooks: inside the compiled graph this tensor was given a hook on one path "
                                 "of an if on a tensor only, so its hooks depend on the condition's value",
                                 hint="register the hook before the if, or read hooks() in PyNative mode"))
    return {**self.__dict__.get("_grad_hooks", {}), **self.__dict__.get("_graph_hooks", {})}


def run_tensor_hooks(t: Any, grad: Any) -> Any:
    """`grad` after the hooks of `t` (called by tape.backward for a hooked tensor only)."""
    for fn in list(t.__dict__.get("_grad_hooks", {}).values()):
        new = _call_hook(fn, grad)  # traced into a compiled grad: interpreted under Graph mode's rules
        if new is not None:
            grad = _as_grad(new, grad, "Tensor.register_hook")
    return grad


def _as_grad(new: Any, old: Any, who: str) -> Any:
    from ..tensor import Tensor

    if not isinstance(new, Tensor):
        raise located(SporeError(f"{who}: the hook returned a {type(new).__name__}; it must return a Tensor "
                                 "(the new gradient) or None"))
    if tuple(new.shape) != tuple(old.shape):
        raise located(SporeError(f"{who}: the hook returned a gradient of shape {tuple(new.shape)} for a "
                                 f"tensor of shape {tuple(old.shape)}"))
    return new


# --- identity primitives whose backward runs user code ------------------------------------------------
def _same_avals(*xs: Any, **_: Any) -> tuple:
    return tuple(_aval(x.shape, x.dtype) for x in xs)


def _copies(*arrays: np.ndarray, **_: Any) -> list[np.ndarray]:
    return [a.copy() for a in arrays]


def _hook_backward_vjp(cots: tuple, outs: tuple, *inputs: Any, hook: Callable, name: str) -> tuple:
    res = hook(tuple(cots))
    if res is None:
        return tuple(cots)
    res = res if isinstance(res, (tuple, list)) else (res,)
    if len(res) != len(cots):
        raise located(SporeError(f"HookBackward: the hook returned {len(res)} gradients for {len(cots)} inputs"))
    return tuple(_as_grad(r, c, "HookBackward") for r, c in zip(res, cots))




def _insert_infer(x: Any, *, f: Callable) -> Any:
    return _aval(x.shape, x.dtype)


def _insert_impl(x: np.ndarray, *, f: Callable) -> np.ndarray:
    return x.copy()


def _call_hook(fn: Callable, g: Any) -> Any:
    """``fn(g)``; while a backward graph is being traced, `fn` is interpreted by the compiler (as any
    user function called from compiled code), so it is held to Graph mode's rules: a ``print`` or a
    Python side effect in it is refused or breaks the graph, instead of running once at compile time
    on tracers (and never when the graph runs). A lambda defined outside compiled code cannot be
    interpreted (its source line is ambiguous) and is called directly, as before."""
    import types

    b = TRACING.builder
    fe = getattr(b, "frontend", None) if b is not None else None
    if fe is None or (isinstance(fn, types.FunctionType) and fn.__name__ == "<lambda>"):
        return fn(g)
    saved = fe.builder
    fe.builder = b  # the backward of an If/While body is traced into that body's own builder
    try:
        return fe.call(None, fn, [g], {})
    finally:
        fe.builder = saved


def _insert_vjp(g: Any, out: Any, x: Any, *, f: Callable) -> tuple:
    return (_as_grad(_call_hook(f, g), g, "InsertGradientOf"),)




class HookBackward:
    """MindSpore's ``ops.HookBackward(hook_fn, cell_id="")``: ``hook(*inputs)`` returns the inputs
    unchanged (one tensor for one input); in the backward pass ``hook_fn(grads)`` is called with the
    tuple of their gradients and may return replacements (a tuple, or None to keep them).
    PyNative only (as MindSpore documents)."""

    def __init__(self, hook_fn: Callable, cell_id: str = "") -> None:
        if not callable(hook_fn):
            raise TypeError(f"HookBackward: hook_fn must be a Python function, got {type(hook_fn).__name__}")
        if not isinstance(cell_id, str):
            raise TypeError(f"HookBackward: cell_id must be a str, got {type(cell_id).__name__}")
        self.hook_fn = hook_fn
        self.cell_id = cell_id

    def __call__(self, *inputs: Any) -> Any:
        from ..tensor import Tensor

        _refuse_in_graph("ops.HookBackward", "call it in PyNative mode, or use ops.InsertGradientOf, which compiles")
        if not inputs or not all(isinstance(t, Tensor) for t in inputs):
            raise TypeError("HookBackward: the inputs must be Tensors")
        outs = _prims().HOOK_BACKWARD(*inputs, hook=self.hook_fn, name=self.cell_id)
        return outs[0] if len(outs) == 1 else tuple(outs)


class InsertGradientOf:
    """MindSpore's ``ops.InsertGradientOf(f)``: an identity whose gradient is ``f(gradient)`` (e.g. to
    clip or scale it). `f` is written with ops, so this also compiles in Graph mode."""

    def __init__(self, f: Callable) -> None:
        if not callable(f):
            raise TypeError(f"InsertGradientOf: f must be a function, got {type(f).__name__}")
        self.f = f

    def __call__(self, input_x: Any) -> Any:
        return _prims().INSERT_GRADIENT(input_x, f=self.f)


def _dump_infer(x: Any, *, path: str, when: str) -> Any:
    return _aval(x.shape, x.dtype)


def _dump_impl(x: np.ndarray, *, path: str, when: str) -> np.ndarray:
    return x.copy()


def _save(path: str, arr: np.ndarray) -> np.ndarray:
    target = path if path.endswith(".npy") else path + ".npy"
    os.makedirs(os.path.dirname(os.path.abspath(target)), exist_ok=True)
    np.save(target, arr)
    return arr


def _dump_vjp(g: Any, out: Any, x: Any, *, path: str, when: str) -> tuple:
    if TRACING.builder is not None:  # compiled backward pass: save when the graph runs (a PyFunc equation)
        from ..ops.primitive_helpers import PYFUNC, _PyFuncSpec

        spec = _PyFuncSpec(lambda a: _save(path, a), [_aval(g.shape, g.dtype)])
        return (PYFUNC(g, spec=spec)[0],)
    _save(path, g.asnumpy())
    return (g,)




class DumpGradient:
    """MindSpore's ``ops.DumpGradient()``: ``dump(path, x, input_output)`` returns `x`; in the backward
    pass the gradient of `x` is saved to ``path`` (``.npy`` appended when missing). `input_output`
    ('in' or 'out') says which side of the op the dump stands for in MindSpore's dump layout; it
    does not change what is saved. In a compiled graph the file is written each time the graph's
    backward pass runs."""

    def __call__(self, path: str, x: Any, input_output: str) -> Any:
        if not isinstance(path, str) or not path:
            raise TypeError("DumpGradient: path must be a non-empty str")
        if input_output not in ("in", "out"):
            raise ValueError(f"DumpGradient: input_output must be 'in' or 'out', got {input_output!r}")
        return _prims().DUMP_GRADIENT(x, path=path, when=input_output)


# --- saved-tensor hooks --------------------------------------------------------------------------------
class saved_tensors_hooks:  # noqa: N801  (MindSpore's name)
    """Context manager: tensors kept for the backward pass by ops recorded inside it go through
    ``pack_hook(tensor)`` when the op runs and come back as ``unpack_hook(packed)`` when its
    gradient rule runs (MindSpore's ``ms.saved_tensors_hooks``). The hooks themselves are not
    recorded. PyNative only, as in MindSpore. Contexts nest: the innermost one applies."""

    def __init__(self, pack_hook: Callable, unpack_hook: Callable) -> None:
        if not callable(pack_hook) or not callable(unpack_hook):
            raise TypeError("saved_tensors_hooks: pack_hook and unpack_hook must be functions")
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self) -> saved_tensors_hooks:
        _refuse_in_graph("ms.saved_tensors_hooks", "open the context in PyNative mode")
        tape.SAVED_HOOKS.append((self.pack_hook, self.unpack_hook))
        return self

    def __exit__(self, *exc: Any) -> None:
        tape.SAVED_HOOKS.pop()


def register_saved_tensors_hooks(pack_hook: Callable, unpack_hook: Callable) -> Callable:
    """Decorator form of `saved_tensors_hooks` (MindSpore's ``ms.register_saved_tensors_hooks``):
    the decorated function runs inside ``saved_tensors_hooks(pack_hook, unpack_hook)``. MindSpore
    offers it for Graph mode; Spore's compiled gradients do not run Python hooks, so it works in
    PyNative and refuses while compiling."""
    ctx = saved_tensors_hooks(pack_hook, unpack_hook)

    def deco(fn: Callable) -> Callable:
        import functools

        @functools.wraps(fn)
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            with ctx:
                return fn(*args, **kwargs)

        return wrapped

    return deco
