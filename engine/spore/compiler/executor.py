"""Executor: runs an optimized Graph as a flat schedule of kernel calls.

Compilation turns every Var into a numbered slot of one list (the environment) and every equation
into a small closure that reads its input slots, calls the primitive's kernel and writes its output
slots. Constants are preloaded into a template environment once; Parameters are read from their
live buffers at the start of each run (so updates between runs are seen, and `Assign` writes
through). A buffer is dropped right after its last reader, so peak memory follows the graph's
live ranges rather than its size. Control flow runs sub-schedules that share the same slots.

Per equation this costs one Python call and a few list accesses — no Tensor objects, shape
checks or tape, which is where Graph mode's speed over PyNative comes from on small ops.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import numpy as np

from ..errors import SporeError
from ..ops.observers import OBSERVERS, OpEvent, run_observed
from .control_flow import IF, WHILE
from .grad import WHILE_GRAD
from .ir import Const, Eqn, Graph, Var, has_subgraphs, subgraphs

Step = Callable[[list], None]


def _inplace_step(e: Eqn, ins: list[int], out: int) -> Step:
    """Write into the first input's buffer when, at run time, nothing else can see it: it owns its
    memory (not a view) and the environment slot is its only reference. Which ops may, and how, is
    declared on the op (`inplace`, `ufunc`)."""
    ufunc, impl, attrs = e.prim.ufunc, e.prim.impl, e.attrs
    refcount = sys.getrefcount
    if len(ins) == 1:
        a_slot = ins[0]

        def step1(env: list) -> None:
            a = env[a_slot]
            if refcount(a) <= 3 and a.base is None and a.flags.writeable:
                env[out] = ufunc(a, out=a)
            else:
                env[out] = impl(a, **attrs)
        return step1
    a_slot, b_slot = ins

    def step2(env: list) -> None:
        a = env[a_slot]
        if refcount(a) <= 3 and a.base is None and a.flags.writeable:
            env[out] = ufunc(a, env[b_slot], out=a)
        else:
            env[out] = impl(a, env[b_slot], **attrs)
    return step2


class _Slots:
    """Var id -> slot index, plus constant slots, for one graph and all of its sub-graphs."""

    def __init__(self) -> None:
        self.index: dict[int, int] = {}
        self.consts: list[tuple[int, Any]] = []
        self.size = 0

    def of(self, atom: Var | Const) -> int:
        if isinstance(atom, Const):
            slot = self.size
            self.size += 1
            self.consts.append((slot, atom.value))
            return slot
        slot = self.index.get(atom.id)
        if slot is None:
            slot = self.index[atom.id] = self.size
            self.size += 1
        return slot


def _kernel_step(e: Eqn, ins: list[int], outs: list[int]) -> Step:
    impl, attrs = e.prim.impl, e.attrs
    if e.prim.multi_output:
        def step(env: list) -> None:
            res = impl(*[env[i] for i in ins], **attrs)
            for o, r in zip(outs, res):
                env[o] = r
        return step
    o = outs[0]
    if len(ins) == 1:
        a = ins[0]
        if attrs:
            def step1(env: list) -> None:
                env[o] = impl(env[a], **attrs)
        else:
            def step1(env: list) -> None:
                env[o] = impl(env[a])
        return step1
    if len(ins) == 2:
        a, b = ins
        if attrs:
            def step2(env: list) -> None:
                env[o] = impl(env[a], env[b], **attrs)
        else:
            def step2(env: list) -> None:
                env[o] = impl(env[a], env[b])
        return step2

    def stepn(env: list) -> None:
        env[o] = impl(*[env[i] for i in ins], **attrs)
    return stepn


class _Sub:
    """A sub-graph's schedule (an `if` branch, a loop's condition or body) on the parent's slots."""

    __slots__ = ("steps", "observed", "ins", "outs")

    def __init__(self, steps: list[Step], observed: list[Step], ins: list[int], outs: list[int]) -> None:
        self.steps, self.observed, self.ins, self.outs = steps, observed, ins, outs

    def run(self, env: list, values: list | None = None) -> None:
        """Bind the sub-graph's inputs to `values` (when given) and run its steps."""
        if values is not None:
            for s, v in zip(self.ins, values):
                env[s] = v
        for step in (self.observed if OBSERVERS.active else self.steps):
            step(env)


def _observed_step(e: Eqn, step: Step, ins: list[int], outs: list[int]) -> Step:
    """`step` reporting to the execution observers, with the node's op, line, scope and values."""
    name, attrs, loc, scope, fused = e.prim.name, e.attrs, e.loc, e.scope, tuple(e.fused or ())

    def observed(env: list) -> None:
        event = OpEvent(name, "graph", [env[i] for i in ins], attrs, loc=loc, scope=scope, fused=fused)
        run_observed(event, lambda: step(env), lambda _: [env[o] for o in outs])
    return observed


def _run_loop(env: list, carried: list, cond: _Sub, body: _Sub, history: list | None = None) -> list:
    """Run a while loop on the slots; return the final carried values (keeping each iteration's
    carried values in `history` when given, for the gradient's replay)."""
    flag = cond.outs[0]
    while True:
        cond.run(env, carried)
        if not env[flag]:
            return carried
        if history is not None:
            history.append(carried)
        body.run(env, carried)
        carried = [env[o] for o in body.outs]


class Executable:
    """A compiled graph: call it with input arrays, get output arrays back."""

    def __init__(self, graph: Graph, free_dead: bool = True) -> None:
        self.graph = graph
        self.slots = _Slots()
        self.in_slots = [self.slots.of(v) for v in graph.inputs]
        self.param_slots = [(self.slots.of(p.var), p.param) for p in graph.params]
        self.inplace_ok = self._inplace_candidates(graph) if free_dead else set()
        self.steps, self._observed_plan, self.step_eqns = self._schedule(graph.eqns, top=True)
        self._frees: dict[int, tuple[int, ...]] = {}  # step index -> the slots dropped after it (_plan_frees)
        self.out_slots = [self.slots.of(a) for a in graph.outputs]
        self.update_slots = [(p.param, self.slots.of(v)) for p, v in graph.updates]
        self.template: list[Any] = [None] * self.slots.size
        for slot, value in self.slots.consts:
            self.template[slot] = np.asarray(value)
        if free_dead:
            self._plan_frees()

    # --- scheduling ---------------------------------------------------------------------------
    def _schedule(self, eqns: list[Eqn], top: bool = False) -> tuple[list[Step], list[Any], list[Eqn]]:
        """The steps of `eqns`, and the same steps reporting to observers (control flow picks its
        sub-schedules when it runs, so one compound step serves both); at the top level, what to make
        the observed steps from when observers first watch (`observed_steps`). Only the top level's
        equations may write in place (`inplace_ok` is their analysis; an equation object can also sit
        in a sub-graph, where that analysis does not hold)."""
        steps: list[Step] = []
        observed: list[Any] = []
        of = self.slots.of
        inplace_ok = self.inplace_ok if top else ()
        for e in eqns:
            ins = [of(a) for a in e.inputs]
            outs = [of(v) for v in e.outputs]
            prim = e.prim
            if prim is IF:
                steps.append(self._if_step(e, ins[0], outs))
            elif prim is WHILE:
                steps.append(self._while_step(e, ins, outs))
            elif prim is WHILE_GRAD:
                steps.append(self._while_grad_step(e, ins, outs))
            else:
                kernel = _inplace_step(e, ins, outs[0]) if id(e) in inplace_ok else _kernel_step(e, ins, outs)
                steps.append(kernel)
                observed.append((e, kernel, ins, outs) if top else _observed_step(e, kernel, ins, outs))
                continue
            observed.append(steps[-1])
        return steps, observed, list(eqns)

    @property
    def observed_steps(self) -> list[Step]:
        """The steps reporting each node to the execution observers (a debugger's NaN guard, the
        profiler): made the first time observers watch this graph run, not on every compile."""
        obs = self.__dict__.get("_observed")
        if obs is None:
            obs = [_observed_step(*r) if type(r) is tuple else r for r in self._observed_plan]
            for i, slots in self._frees.items():
                obs[i] = _with_frees(obs[i], slots)
            self.__dict__["_observed"] = obs
        return obs

    def _sub(self, g: Graph) -> _Sub:
        steps, observed, _ = self._schedule(g.eqns)
        return _Sub(steps, observed, [self.slots.of(v) for v in g.inputs], [self.slots.of(a) for a in g.outputs])

    def _if_step(self, e: Eqn, cond: int, outs: list[int]) -> Step:
        then, other = self._sub(e.attrs["then"]), self._sub(e.attrs["else"])

        def step(env: list) -> None:
            branch = then if env[cond] else other
            branch.run(env)
            for o, r in zip(outs, branch.outs):
                env[o] = env[r]
        return step

    def _while_step(self, e: Eqn, ins: list[int], outs: list[int]) -> Step:
        cond, body = self._sub(e.attrs["cond"]), self._sub(e.attrs["body"])

        def step(env: list) -> None:
            carried = _run_loop(env, [env[i] for i in ins], cond, body)
            for o, v in zip(outs, carried):
                env[o] = v
        return step

    def _while_grad_step(self, e: Eqn, ins: list[int], outs: list[int]) -> Step:
        n = e.attrs["n_carried"]
        cond, body, grad = self._sub(e.attrs["cond"]), self._sub(e.attrs["body"]), self._sub(e.attrs["body_grad"])
        cot_ins = grad.ins[n:]

        def step(env: list) -> None:
            history: list[list] = []  # replay the loop, keeping each iteration's carried values
            _run_loop(env, [env[i] for i in ins[:n]], cond, body, history)
            cot = [env[i] for i in ins[n:]]
            free_acc: list[Any] = [None] * (len(grad.outs) - n)
            for values in reversed(history):  # recompute iteration i, then its gradient
                body.run(env, values)
                for s, v in zip(cot_ins, cot):
                    env[s] = v
                grad.run(env)
                res = [env[o] for o in grad.outs]
                cot = res[:n]
                free_acc = [r if a is None else a + r for a, r in zip(free_acc, res[n:])]
            for k, (o, v) in enumerate(zip(outs, cot + free_acc)):
                aval = e.outputs[k].aval
                env[o] = v if v is not None else np.zeros(aval.shape, aval.dtype.np)
        return step

    def _inplace_candidates(self, graph: Graph) -> set[int]:
        """Top-level elementwise equations whose first input is an intermediate read for the last time
        there, with the output's shape and dtype: they may reuse that input's buffer."""
        protected = {v.id for v in graph.inputs} | {p.var.id for p in graph.params}
        protected |= {a.id for a in graph.outputs if isinstance(a, Var)} | {v.id for _, v in graph.updates}
        last: dict[int, int] = {}
        for i, e in enumerate(graph.eqns):
            for a in e.inputs:
                if isinstance(a, Var):
                    last[a.id] = i
            if e.attrs and has_subgraphs(e):
                for sub in subgraphs(e):
                    for vid in sub.free_uses():
                        last[vid] = i
        ok: set[int] = set()
        for i, e in enumerate(graph.eqns):
            if not e.prim.inplace or len(e.outputs) != 1 or not e.inputs:
                continue
            a, out = e.inputs[0], e.outputs[0]
            if (isinstance(a, Var) and a.id not in protected and last.get(a.id) == i
                    and sum(1 for x in e.inputs if isinstance(x, Var) and x.id == a.id) == 1
                    and tuple(a.aval.shape) == tuple(out.aval.shape) and a.aval.dtype is out.aval.dtype):
                ok.add(id(e))
        return ok

    def _plan_frees(self) -> None:
        """Drop each top-level buffer after its last reader (memory planning by live ranges)."""
        keep = set(self.out_slots) | {s for s, _ in self.param_slots} | {s for _, s in self.update_slots}
        keep |= {s for s, _ in self.slots.consts}
        last: dict[int, int] = {}
        index = self.slots.index
        for i, e in enumerate(self.step_eqns):
            for a in e.inputs:
                if isinstance(a, Var):
                    last[index[a.id]] = i  # (every read Var has its slot: _schedule gave it one)
            if e.attrs and has_subgraphs(e):
                for sub in subgraphs(e):
                    for vid in sub.free_uses():
                        slot = index.get(vid)
                        if slot is not None:
                            last[slot] = i
        frees: dict[int, list[int]] = {}
        for slot, i in last.items():
            if slot not in keep:
                frees.setdefault(i, []).append(slot)
        for i, slots in frees.items():
            self.steps[i] = _with_frees(self.steps[i], tuple(slots))
            self._frees[i] = tuple(slots)
        self._live_plan = (last, keep)

    @property
    def peak_live(self) -> int:
        """Bytes of the largest set of simultaneously live intermediate buffers (for reports: worked
        out when first asked, not on every compile)."""
        cached = self.__dict__.get("_peak_live")
        if cached is None:
            plan = self.__dict__.get("_live_plan")
            if plan is None:  # built with free_dead=False: nothing is dropped early
                raise AttributeError("peak_live: this executable keeps every buffer (free_dead=False)")
            cached = self.__dict__["_peak_live"] = _peak_live(self.step_eqns, plan[0], plan[1], self.slots)
        return cached

    # --- running ------------------------------------------------------------------------------
    def __call__(self, *arrays: np.ndarray) -> list[Any]:
        env = self.template.copy()
        for s, a in zip(self.in_slots, arrays):
            env[s] = a
        for s, p in self.param_slots:
            env[s] = p._data
        i = 0
        try:
            for i, step in enumerate(self.observed_steps if OBSERVERS.active else self.steps):  # noqa: B007
                step(env)  # (i names the failing equation)
        except SporeError as err:
            raise _at_equation(err, self.step_eqns[i]) from None
        for p, s in self.update_slots:
            np.copyto(p._data, env[s], casting="unsafe")
        return [env[s] for s in self.out_slots]


def _at_equation(err: SporeError, e: Eqn) -> SporeError:
    """A kernel's error, placed on the user's line that made the failing equation (as PyNative
    places it at the call): a bad index found while the graph runs names the same line."""
    if e.loc is not None:  # (a kernel that located itself saw only the engine's caller at run time)
        err.loc = e.loc
        err.args = (err._render(),)
    return err.with_traceback(None)


def _with_frees(step: Step, slots: tuple[int, ...]) -> Step:
    def freeing(env: list) -> None:
        step(env)
        for s in slots:
            env[s] = None
    return freeing


def _peak_live(eqns: list[Eqn], last: dict[int, int], keep: set[int], slots: _Slots) -> int:
    """Bytes of the largest set of simultaneously live intermediate buffers (for reports)."""
    dies: dict[int, list[int]] = {}
    for s, j in last.items():
        dies.setdefault(j, []).append(s)
    live = peak = 0
    sizes: dict[int, int] = {}
    for i, e in enumerate(eqns):
        for v in e.outputs:
            s = slots.index.get(v.id)
            if s is None or s in keep or s not in last:
                continue
            sizes[s] = int(np.prod(v.aval.shape, dtype=np.int64)) * v.aval.dtype.itemsize
            live += sizes[s]
        peak = max(peak, live)
        for s in dies.get(i, ()):
            live -= sizes.pop(s, 0)
    return peak
