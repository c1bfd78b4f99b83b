"""The PyNative tape: records primitive applications while a gradient is being taken, and runs
reverse mode over them.

Recording is off unless a `grad`/`value_and_grad` call is under way, so plain inference pays one
integer test per op. Each recorded output Tensor points at its `Node` (primitive, inputs, attrs);
nodes keep their inputs alive but only weak references to their outputs, so no reference cycles
hold activations after the user drops them. A node belongs to one *generation* — the outermost
grad call that was active when it was made — and is only followed while that call is running, so
a tensor kept from an earlier step acts as a constant, as it would in MindSpore.

Gradient rules (`vjp`) are written with Spore ops themselves; when an outer grad is active while
an inner one runs its backward pass, those ops are recorded too, which gives higher-order grads.
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..errors import GradError, located

if TYPE_CHECKING:  # pragma: no cover
    from ..ops.primitive import Primitive
    from ..tensor import Tensor


class _TapeState:
    """Process-wide recording state: how deep we are in grad calls, and which leaves are watched."""

    __slots__ = ("depth", "generation", "leaves")

    def __init__(self) -> None:
        self.depth = 0          # number of grad calls under way
        self.generation = 0     # id of the outermost grad call under way
        self.leaves: dict[int, int] = {}  # id(tensor) -> how many active grad calls watch it


STATE = _TapeState()

# tensors with gradient hooks (autodiff/hooks.py), by id: empty unless a hook is set, so backward
# checks them only then; and the open saved_tensors_hooks contexts, (pack, unpack), innermost last
TENSOR_HOOKS: weakref.WeakValueDictionary = weakref.WeakValueDictionary()
SAVED_HOOKS: list[tuple[Any, Any]] = []


class Node:
    """One recorded primitive application."""

    __slots__ = ("prim", "inputs", "versions", "attrs", "out_refs", "out_arrays", "generation", "packed")

    def __init__(self, prim: Primitive, inputs: tuple, attrs: dict, outputs: Sequence[Tensor]):
        self.prim = prim
        self.inputs = inputs
        self.versions = tuple(t._version for t in inputs)  # in-place writes after this are detected
        self.attrs = attrs
        self.out_refs = tuple(weakref.ref(o) for o in outputs)
        self.out_arrays = tuple(o._data for o in outputs)
        self.generation = STATE.generation
        self.packed = _pack(inputs) if SAVED_HOOKS else None

    def outputs(self) -> list[Tensor]:
        """The output Tensors; one that the user already dropped comes back as an untracked copy."""
        from ..tensor import Tensor

        outs = []
        for ref, arr in zip(self.out_refs, self.out_arrays):
            t = ref()
            outs.append(t if t is not None else Tensor._wrap(arr))
        return outs


def _pack(inputs: tuple) -> tuple:
    """(unpack hook, packed inputs) under a saved_tensors_hooks context; the hooks are not recorded."""
    pack, unpack = SAVED_HOOKS[-1]
    depth, STATE.depth = STATE.depth, 0
    saved = SAVED_HOOKS[:]
    SAVED_HOOKS.clear()
    try:
        return unpack, tuple(pack(t) for t in inputs)
    finally:
        STATE.depth = depth
        SAVED_HOOKS[:] = saved


def _unpack(node: Node) -> tuple:
    from ..tensor import Tensor

    unpack, packed = node.packed
    outs = tuple(unpack(p) for p in packed)
    for t in outs:
        if not isinstance(t, Tensor):
            raise located(GradError(f"saved_tensors_hooks: unpack_hook returned a {type(t).__name__}; "
                                    "it must return a Tensor"))
    return outs


def is_tracked(t: Tensor) -> bool:
    """Whether gradients can flow into `t` within the grad call now under way."""
    node = t._node
    if node is not None and node.generation == STATE.generation:
        return True
    return id(t) in STATE.leaves


def record(prim: Primitive, inputs: tuple, attrs: dict, outputs: Sequence[Tensor]) -> None:
    """Attach a Node to freshly made outputs when any input is tracked."""
    for t in inputs:
        if is_tracked(t):
            node = Node(prim, inputs, attrs, outputs)
            for i, o in enumerate(outputs):
                o._node = node
                o._out_index = i
            return


class watching:
    """Context manager for one grad call: turns recording on and watches the given leaves.

    An interrupt (Ctrl-C, a notebook's interrupt) can arrive between any two bytecodes. Entering is
    undone if it is interrupted part-way (the `with` would not call `__exit__`), and leaving puts back
    the depth saved on entry rather than counting down, so an interrupted training step never leaves
    recording switched on for the rest of the session."""

    def __init__(self, leaves: Sequence[Tensor]):
        self.leaves = list(leaves)
        self.depth = 0

    def __enter__(self) -> watching:
        self.depth = STATE.depth
        counted: list[int] = []
        try:
            if self.depth == 0:
                STATE.generation += 1
            STATE.depth = self.depth + 1
            for t in self.leaves:
                STATE.leaves[id(t)] = STATE.leaves.get(id(t), 0) + 1
                counted.append(id(t))
        except BaseException:
            _unwatch(counted)
            STATE.depth = self.depth
            raise
        return self

    def __exit__(self, *exc: Any) -> None:
        STATE.depth = self.depth
        _unwatch([id(t) for t in self.leaves])


def _unwatch(ids: list[int]) -> None:
    for i in ids:
        n = STATE.leaves.get(i, 0) - 1
        if n > 0:
            STATE.leaves[i] = n
        else:
            STATE.leaves.pop(i, None)


_F = None


def _functional():
    """spore.ops.functional, imported once on first use (ops import this module)."""
    global _F
    if _F is None:
        from ..ops import functional

        _F = functional
    return _F


def keep_snapshot(t: Tensor, snap: Tensor) -> None:
    """Before an in-place write to `t` during a grad call: `snap` holds the value nodes recorded so far
    have read, so their gradients use (and flow into) the value they actually saw."""
    hist = t.__dict__.get("_snapshots")
    if hist is None or hist[0] != STATE.generation:
        hist = t.__dict__["_snapshots"] = (STATE.generation, {})
    hist[1][t._version] = snap


def as_read(t: Tensor, version: int) -> Tensor | None:
    """`t` as a node read it (at `version`): itself, its snapshot from before a later write, or None."""
    if t._version == version:
        return t
    hist = t.__dict__.get("_snapshots") if hasattr(t, "__dict__") else None
    if hist is None or hist[0] != STATE.generation:
        return None
    return hist[1].get(version)


def _toposort(roots: Sequence[Tensor], leaf_ids: set[int]) -> list[Node]:
    """Nodes reachable from the roots, outputs before inputs, not looking past the leaves."""
    order: list[Node] = []
    seen: set[int] = set()
    gen = STATE.generation
    stack: list[tuple[Node, bool]] = []
    for r in roots:
        if r._node is not None and r._node.generation == gen and id(r) not in leaf_ids:
            stack.append((r._node, False))
    while stack:
        node, expanded = stack.pop()
        if expanded:
            order.append(node)
            continue
        if id(node) in seen:
            continue
        seen.add(id(node))
        stack.append((node, True))
        for t, v in zip(node.inputs, node.versions):
            seen_as = as_read(t, v)
            t = t if seen_as is None else seen_as
            n = t._node
            if n is not None and n.generation == gen and id(n) not in seen and id(t) not in leaf_ids:
                stack.append((n, False))
    order.reverse()
    return order


def check_vjp(prim: Any, loc: Any = None) -> None:
    """Refuse to differentiate through `prim` when it has no gradient rule: the one check PyNative's
    tape and Graph mode's gradient transform share, so both say the same thing (`loc`: the line of
    the equation, when Graph mode knows it)."""
    if prim.vjp is None:
        raise GradError(f"{prim.name} has no gradient rule; use ops.stop_gradient on its input "
                        "if no gradient is needed through it", loc=loc)


def apply_vjp(prim: Any, cots: Sequence[Tensor], outs: Sequence[Tensor], inputs: Sequence[Tensor],
              attrs: dict) -> Sequence[Tensor | None]:
    """`prim`'s vjp rule on one application: the cotangents of its inputs from those of its outputs
    (a multi-output primitive takes them all as tuples, a single-output one the one tensor)."""
    if prim.multi_output:
        return prim.vjp(tuple(cots), tuple(outs), *inputs, **attrs)
    return prim.vjp(cots[0], outs[0], *inputs, **attrs)


def backward(roots: Sequence[Tensor], sens: Sequence[Tensor], leaves: Sequence[Tensor]) -> list:
    """Reverse mode: cotangents of `leaves` given cotangents `sens` of `roots` (None = no path)."""
    F = _functional()
    leaf_ids = {id(t) for t in leaves}
    grads: dict[int, Tensor] = {}

    def accumulate(t: Tensor, g: Tensor) -> None:
        key = id(t)
        prev = grads.get(key)
        grads[key] = g if prev is None else F.add(prev, g)

    for r, s in zip(roots, sens):
        accumulate(r, s)
    order = _toposort(roots, leaf_ids)
    ready = _ready_schedule(order, leaves) if GRAD_READY.hook is not None else {}
    hooked: set[int] = set()  # leaves whose gradient hooks have run
    for i, node in enumerate(order):
        outs = node.outputs()
        cots = [grads.pop(id(o), None) for o in outs]
        if TENSOR_HOOKS:  # a gradient hook is set somewhere: run those of these outputs
            cots = [_hooked(o, c) for o, c in zip(outs, cots)]
        if all(c is None for c in cots):
            for t in ready.get(i, ()):
                GRAD_READY.hook(t, _final(t, grads, hooked))
            continue
        inputs = tuple(as_read(t, v) for t, v in zip(node.inputs, node.versions))
        if any(t is None for t in inputs):
            raise located(GradError(
                f"a tensor read by {node.prim.name} was modified in place (x[...] = v) after it was read, "
                "so its gradient cannot be computed",
                hint="write into a copy instead (y = x.copy(); y[...] = v), or write before reading"))
        check_vjp(node.prim)
        # recorded under saved_tensors_hooks: the rule reads the unpacked values
        read = inputs if node.packed is None else _unpack(node)
        if node.prim.multi_output:
            cots = [c if c is not None else F.zeros_like(o) for c, o in zip(cots, outs)]
        in_grads = apply_vjp(node.prim, cots, outs, read, node.attrs)
        for t, g in zip(inputs, in_grads):
            if g is not None and (is_tracked(t)):
                accumulate(t, g)
        for t in ready.get(i, ()):  # these leaves' gradients are final: data parallelism starts reducing them
            GRAD_READY.hook(t, _final(t, grads, hooked))
    if TENSOR_HOOKS:
        return [_final(t, grads, hooked) for t in leaves]
    return [grads.get(id(t)) for t in leaves]


def _final(t: Tensor, grads: dict, hooked: set[int]) -> Tensor | None:
    """A leaf's complete gradient, after its gradient hooks (run once: the result replaces it, and
    `hooked` remembers that, as the data-parallel callback and the result both ask)."""
    g = grads.get(id(t))
    if not TENSOR_HOOKS or g is None or id(t) not in TENSOR_HOOKS or id(t) in hooked:
        return g
    g = grads[id(t)] = _hooked(t, g)
    hooked.add(id(t))
    return g


def _hooked(t: Tensor, g: Tensor | None) -> Tensor | None:
    """`g` after the gradient hooks of `t`, if it has any (autodiff/hooks.py)."""
    if g is None or id(t) not in TENSOR_HOOKS:
        return g
    from .hooks import run_tensor_hooks

    return run_tensor_hooks(t, g)


class _GradReady:
    """Hook into `backward`: ``hook(leaf, grad)`` is called as soon as a leaf's gradient is complete
    (after the last node that reads it), so gradient all-reduce can overlap the rest of the backward
    pass (`spore.parallel`). None (the default) costs nothing."""

    __slots__ = ("hook",)

    def __init__(self) -> None:
        self.hook: Any = None


GRAD_READY = _GradReady()


def _ready_schedule(order: Sequence[Node], leaves: Sequence[Tensor]) -> dict[int, list[Tensor]]:
    """For each node index, the leaves whose last reader it is."""
    last: dict[int, int] = {}
    wanted = {id(t) for t in leaves}
    for i, node in enumerate(order):
        for t in node.inputs:
            if id(t) in wanted:
                last[id(t)] = i
    by_id = {id(t): t for t in leaves}
    out: dict[int, list[Tensor]] = {}
    for key, i in last.items():
        out.setdefault(i, []).append(by_id[key])
    return out
