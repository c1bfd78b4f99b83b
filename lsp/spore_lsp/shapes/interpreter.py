"""The statement half of the interpreter: one construct (or a helper it calls) run over abstract values,
with control flow as Graph mode compiles it.

- ``if`` on a static condition (constants, shape comparisons such as ``x.shape[1] != 16``, flags set in
  `__init__`, ``self.training`` when the program never trains the Cell): only the branch Graph mode takes.
- ``if`` on a run-time value (a tensor): both branches, then each variable is joined (`values.join`): equal
  shapes stay, one rank and dtype keep the dims they agree on, anything else is unknown with a reason said
  once a step needs it. An ``if`` on a Python value the check cannot compute runs both branches too, but
  what they refuse is a ``shape-stopped`` note, not an error (that branch may never run).
- ``for`` over a CellList, a constant range or a tuple (up to 64 items): unrolled, as Graph mode does.
  Any other ``for`` (a tensor's rows, a range only known when it runs) and a ``while`` on a run-time value
  are followed when the body keeps every shape unchanged (a fixpoint, found by silent trial runs, then one
  recorded run from the settled values); a body that changes a shape stops inference with a note.
"""

from __future__ import annotations

import ast
from typing import Any

from .cells import MAX_UNROLL
from .expressions import Evaluator
from .findings import Session, unsure_branch
from .program import Program
from .values import (
    MISSING,
    UNKNOWN,
    BranchShapes,
    Conflict,
    ConstructShapes,
    Seq,
    Step,
    TVal,
    Unknown,
    UserCell,
    has_tensor,
    join,
    label,
)

MAX_SETTLE = 4  # trial runs of a loop body looking for its fixpoint


class Interpreter(Evaluator):
    """Runs one construct over abstract values, recording its steps, mismatches and where it stopped."""

    def __init__(self, prog: Program, cell: UserCell, fn: ast.FunctionDef, record: ConstructShapes | None,
                 depth: int, sink: ConstructShapes | None = None, method: bool = True,
                 session: Session | None = None) -> None:
        self.prog, self.an, self.ide = prog, prog.an, prog.ide
        self.cell, self.fn, self.record, self.depth = cell, fn, record, depth
        # where a stop is reported: this construct's own record, else the caller's (a helper, or a Cell's
        # construct already recorded from another call), so a stop inside is never silent
        self.sink = record if record is not None else sink
        self.method_def = method  # a method (its first parameter is self) or a plain function
        self.session = session if session is not None else Session()
        self.env: dict[str, Any] = dict(prog.consts)
        self.assumed_dtype = False  # the inputs' dtype is float32 by assumption (an input_shape comment)
        self.training: bool | None = None  # the Cell's `training` flag where the program decides it
        self.returns: list[tuple[Any, str, str, int, bool]] = []  # returned early on one branch of a run-time `if`

    def sub(self, cell: UserCell, fn: ast.FunctionDef, record: ConstructShapes | None, method: bool) -> Interpreter:
        """An interpreter for a helper or a nested Cell's construct, sharing this one's session."""
        out = type(self)(self.prog, cell, fn, record, self.depth + 1, self.sink, method, self.session)
        out.assumed_dtype, out.training = self.assumed_dtype, self.training
        return out

    def note(self, step: Step) -> None:
        if self.record is not None and not self.session.quiet:
            self.record.steps.append(step)

    # -- running
    def run(self, inputs: list, kwargs: dict | None = None) -> Any:
        if self.fn.args.vararg or self.fn.args.kwarg or self.fn.args.kwonlyargs or self.fn.args.posonlyargs:
            return self.stop(self.fn, f"`{self.fn.name}` takes *args, **kwargs or keyword-only parameters")
        params = [a.arg for a in self.fn.args.args][1 if self.method_def else 0:]
        defaults = self.fn.args.defaults
        for p, d in zip(params[len(params) - len(defaults):], defaults):
            self.env[p] = self.prog.const(d, {})
        for k, v in (kwargs or {}).items():
            if k not in params:
                return self.stop(self.fn, f"`{self.fn.name}` has no parameter {k}")
            self.env[k] = v
        for p, v in zip(params, inputs):
            self.env[p] = v
        given = set(params[len(params) - len(defaults):]) | set(kwargs or {}) | set(params[:len(inputs)])
        for p in params:
            if p not in given:  # a parameter named like a module constant is not that constant
                self.env[p] = UNKNOWN
        for a in self.fn.args.args[1:]:
            if isinstance(self.env.get(a.arg), TVal):
                line, col, end_line, end_col = self.an.span(a)
                self.note(Step(a.arg, line, end_col, end_line, end_col, self.env[a.arg]))
        done, value = self.block_result(self.fn.body)
        for early, kind, at, line, sure in reversed(self.returns):
            value = join(early, value, f"the value `{self.fn.name}` returns", kind, at, line, sure)
        return value

    def block_result(self, body: list[ast.stmt]) -> tuple[bool, Any]:
        for stmt in body:
            done, value = self.stmt(stmt)
            if done:
                return True, value
        return False, None

    def stmt(self, stmt: ast.stmt) -> tuple[bool, Any]:
        self.session.budget -= 1
        if self.session.budget < 0:
            return self.give_up(stmt, "the construct takes more steps to follow than the check allows "
                                "(nested loops), from here on")
        if isinstance(stmt, ast.Return):
            return True, self.expr(stmt.value) if stmt.value is not None else None
        if isinstance(stmt, (ast.Assign, ast.AnnAssign)) and stmt.value is not None:
            value = self.expr(stmt.value)
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            for t in targets:
                self.bind(t, value, stmt)
            return False, None
        if isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name):
            value = self.binop(stmt.op, self.env.get(stmt.target.id, UNKNOWN), self.expr(stmt.value), stmt)
            self.bind(stmt.target, value, stmt)
            return False, None
        if isinstance(stmt, ast.Expr):
            call = stmt.value
            if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "print" and \
                    "print" not in self.env and "print" not in self.prog.functions:
                return False, None  # prints nothing the shapes depend on (Graph mode's own rule flags it)
            if self.list_update(call):
                return False, None
            if not isinstance(stmt.value, ast.Constant):
                self.expr(stmt.value)
            return False, None
        if isinstance(stmt, ast.Pass):
            return False, None
        if isinstance(stmt, ast.If):
            return self.if_(stmt)
        if isinstance(stmt, ast.For) and not stmt.orelse and not _jumps(stmt):
            return self.for_(stmt)
        if isinstance(stmt, ast.While) and not stmt.orelse and not _jumps(stmt):
            return self.while_(stmt)
        what = type(stmt).__name__.lower()
        return self.give_up(stmt, f"`{what}` on values only known when it runs is not followed")

    def list_update(self, call: ast.AST) -> bool:
        """``outs.append(v)`` / ``outs.extend(vs)`` on a list the construct built: a new list bound to the name
        (so the branches of an ``if`` never share one); a list another name also holds is unknown after it."""
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr in (
                "append", "extend") and isinstance(call.func.value, ast.Name) and len(call.args) == 1 and
                not call.keywords and isinstance(self.env.get(call.func.value.id), list)):
            return False
        name, old = call.func.value.id, self.env[call.func.value.id]
        value = self.expr(call.args[0])
        holders = [k for k, v in self.env.items() if v is old]
        if len(holders) > 1 or call.func.attr == "extend" and not isinstance(value, (list, tuple)):
            for k in holders:
                self.env[k] = UNKNOWN
            return True
        self.env[name] = [*old, value] if call.func.attr == "append" else [*old, *value]
        return True

    def give_up(self, stmt: ast.stmt, why: str) -> tuple[bool, Any]:
        self.stop(stmt, why)
        for node in ast.walk(stmt):  # whatever the statement assigns is unknown from here on
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                self.env[node.id] = UNKNOWN
        return False, None

    def bind(self, target: ast.AST, value: Any, stmt: ast.stmt) -> None:
        if isinstance(target, ast.Name):
            self.env[target.id] = value
            line, col, _, _ = self.an.span(stmt.value)
            _, _, end_line, end_col = self.an.span(stmt)
            self.note(Step(target.id, line, col, end_line, end_col, value))
        elif isinstance(target, (ast.Tuple, ast.List)):
            items = value if isinstance(value, (tuple, list)) and len(value) == len(target.elts) else None
            for i, t in enumerate(target.elts):
                self.bind(t, items[i] if items is not None else self.need(t, value), stmt)
        else:
            self.stop(target, f"assigning to `{self.source(target)}` is not followed")

    def bind_loop(self, target: ast.AST, value: Any) -> None:
        """A loop variable (no step of its own: its line is the loop's)."""
        if isinstance(target, ast.Name):
            self.env[target.id] = value
        elif isinstance(target, (ast.Tuple, ast.List)):
            items = value if isinstance(value, (tuple, list)) and len(value) == len(target.elts) else None
            for i, t in enumerate(target.elts):
                self.bind_loop(t, items[i] if items is not None else value if isinstance(value, Unknown)
                               else UNKNOWN)
        else:
            self.stop(target, f"a loop over `{self.source(target)}` is not followed")

    # -- if
    def if_(self, stmt: ast.If) -> tuple[bool, Any]:
        test = self.truth(self.expr(stmt.test))
        if isinstance(test, bool):  # static: the branch Graph mode compiles, and only it
            return self.block_result(stmt.body if test else stmt.orelse)
        kind, at, line = "the `if`", self.where(stmt.lineno - 1), stmt.lineno - 1
        speculative = test is None
        before = dict(self.env)
        if speculative:
            self.session.speculative.append(unsure_branch(kind, at))
        self.session.runtime += 1
        try:
            done1, v1 = self.block_result(stmt.body)
            env1, self.env = self.env, dict(before)
            if stmt.orelse:  # hover in the else branch reads the values from before the `if`
                first = stmt.orelse[0].lineno - 1
                for k, v in before.items():
                    if env1.get(k) is not v:
                        self.note(Step(k, first, 0, first, 0, v, hint=False))
            done2, v2 = self.block_result(stmt.orelse)
            env2 = self.env
        finally:
            self.session.runtime -= 1
            if speculative:
                self.session.speculative.pop()
        # both paths certainly reach what follows only at the top level: inside another run-time branch, a path
        # of this `if` may not combine with that branch's (correlated conditions); a refusal there is a note
        sure = not speculative and not self.session.runtime
        tag = object()  # every variable this `if` joins takes its branch with the others
        if done1 and done2:
            return True, join(v1, v2, "the return value", kind, at, line, sure, tag)
        if done1 or done2:
            self.returns.append((v1 if done1 else v2, kind, at, line, sure))
            self.env = env2 if done1 else env1
            return False, None
        self.env = {k: join(env1.get(k, MISSING), env2.get(k, MISSING), f"`{k}`", kind, at, line, sure, tag)
                    for k in {**env1, **env2}}
        # only an `if` Graph mode certainly compiles as an If: a one-element condition (else the compiler
        # refuses the condition itself), outside any branch on a value the check cannot compute
        if isinstance(test, TVal) and _one_element(test) and not self.session.speculative and \
                self.record is not None and not self.session.quiet:
            for k in self.env:
                a, b = env1.get(k), env2.get(k)
                if isinstance(a, TVal) and isinstance(b, TVal) and (a.shape, a.dtype) != (b.shape, b.dtype):
                    self.record.branches.append(BranchShapes(line, k, label(a) or "?", label(b) or "?"))
        end = (stmt.end_lineno or stmt.lineno) - 1
        for k, v in self.env.items():  # hover after the `if` shows the joined value (no inlay hint)
            if v is not before.get(k) and (has_tensor(v) or label(v)):
                self.note(Step(k, end, 0, end, 1, v, hint=False))
        return False, None

    # -- loops
    def for_(self, stmt: ast.For) -> tuple[bool, Any]:
        kind, at = "the `for` loop", self.where(stmt.lineno - 1)
        items, each = self.loop_items(stmt, kind, at)
        if items is not None:  # unrolled, as Graph mode unrolls a loop over a CellList or a constant range
            for item in items:
                if self.session.budget < 0:  # out of steps: the rest of the loop is not followed
                    return self.give_up(stmt, "the construct takes more steps to follow than the check allows")
                self.bind_loop(stmt.target, item)
                done, value = self.block_result(stmt.body)
                if done:
                    return True, value
            return False, None
        return self.fixpoint(stmt, lambda: self.bind_loop(stmt.target, each), kind, at, False)

    def loop_items(self, stmt: ast.For, kind: str, at: str) -> tuple[list | None, Any]:
        """(the items to unroll, None) or (None, the value one iteration's variable stands for)."""
        it = stmt.iter
        if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range" and \
                "range" not in self.env and not it.keywords and not any(isinstance(a, ast.Starred) for a in it.args):
            bounds = [self.expr(a) for a in it.args]
            if all(type(b) is int for b in bounds) and 1 <= len(bounds) <= 3 and (len(bounds) < 3 or bounds[2]):
                r = range(*bounds)
                if len(r) <= MAX_UNROLL:
                    return list(r), None
            return None, Conflict(f"the variable of {kind} at {at} counts iterations only known when it runs")
        value = self.expr(it)
        value = value.items if isinstance(value, Seq) else value
        if isinstance(value, (tuple, list)):
            if len(value) <= MAX_UNROLL:
                return list(value), None
            each = value[0]
            for v in value[1:]:
                each = join(each, v, "the loop variable", kind, at, stmt.lineno - 1)
            return None, each
        if isinstance(value, TVal) and value.shape:
            return None, TVal(value.shape[1:], value.dtype, f"a row of {value.origin}", stmt.lineno - 1)
        return None, value if isinstance(value, Conflict) else \
            Conflict(f"the items of `{self.source(it)[:40]}` in {kind} at {at} are not known statically")

    def while_(self, stmt: ast.While) -> tuple[bool, Any]:
        kind, at = "the `while` loop", self.where(stmt.lineno - 1)
        for _ in range(MAX_UNROLL + 1):  # a condition on constants: unrolled while it holds
            if self.session.budget < 0:
                break
            test = self.truth(self.expr(stmt.test))
            if test is False:
                return False, None
            if test is not True:
                return self.fixpoint(stmt, lambda: None, kind, at, test is None)
            done, value = self.block_result(stmt.body)
            if done:
                return True, value
        return self.give_up(stmt, f"{kind} at {at} runs more than {MAX_UNROLL} times")

    def fixpoint(self, stmt: ast.For | ast.While, enter: Any, kind: str, at: str, speculative: bool
                 ) -> tuple[bool, Any]:
        """A loop whose iterations cannot be unrolled: followed when its body keeps every shape unchanged."""
        if _returns(stmt):
            return self.give_up(stmt, f"a `return` inside {kind} at {at} (its iterations are not unrolled)")
        settled = dict(self.env)
        failed: str | None = None
        self.session.quiet += 1
        try:
            for _ in range(MAX_SETTLE):
                self.env = dict(settled)
                enter()
                self.block_result(stmt.body)
                widened = self.widen(settled, self.env, kind, at)
                if isinstance(widened, str):
                    failed = widened
                    break
                if widened.keys() == settled.keys() and all(widened[k] is settled[k] for k in widened):
                    break
                settled = widened
            else:
                failed = f"{kind} at {at} does not settle on one shape per variable"
        finally:
            self.session.quiet -= 1
        self.env = dict(settled)
        if failed is not None and not failed.startswith("?"):
            return self.give_up(stmt, failed)
        if speculative:
            self.session.speculative.append(unsure_branch(kind, at))
        self.session.runtime += 1
        try:  # the recorded run, from values that hold on every iteration
            enter()
            self.block_result(stmt.body)
        finally:
            self.session.runtime -= 1
            if speculative:
                self.session.speculative.pop()
        if failed is not None:  # a value the body cannot know: its own stop has said why
            return self.give_up(stmt, f"{kind} at {at} is not followed: {failed[1:]}")
        widened = self.widen(settled, self.env, kind, at)
        self.env = widened if isinstance(widened, dict) else settled
        return False, None

    @staticmethod
    def widen(before: dict, after: dict, kind: str, at: str) -> dict | str:
        """The values one more iteration leaves, or why the loop is not shape-invariant ("?..." when a value
        became unknown inside the body, whose own note says why)."""
        out = dict(before)
        for k, new in after.items():
            old = before.get(k, MISSING)
            if old is MISSING or new is old:
                out[k] = new if old is MISSING else old
                continue
            if has_tensor(old) or has_tensor(new):
                if isinstance(new, Unknown) and not isinstance(new, Conflict):
                    return f"?`{k}` is unknown after one iteration"
                if not _same_shapes(old, new):
                    return (f"{kind} at {at} changes `{k}` from {label(old) or 'one value'} to "
                            f"{label(new) or 'another'} on an iteration")
                continue
            if isinstance(old, Conflict) or type(old) is type(new) and old == new:
                continue
            out[k] = new if isinstance(new, Conflict) else \
                Conflict(f"`{k}` changes on each iteration of {kind} at {at}")
        return out


def _one_element(t: TVal) -> bool:
    """A condition Graph mode turns into an If: every dim known and their product 1."""
    return all(type(d) is int for d in t.shape) and all(d == 1 for d in t.shape)


def _same_shapes(a: Any, b: Any) -> bool:
    if isinstance(a, TVal) and isinstance(b, TVal):
        return a.shape == b.shape and a.dtype == b.dtype
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        return len(a) == len(b) and all(_same_shapes(x, y) for x, y in zip(a, b))
    return not has_tensor(a) and not has_tensor(b) and type(a) is type(b) and a == b


def _returns(stmt: ast.For | ast.While) -> bool:
    """A `return` in the loop's body (not in a function defined there)."""
    todo: list[ast.AST] = list(stmt.body)
    while todo:
        node = todo.pop()
        if isinstance(node, ast.Return):
            return True
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            todo.extend(ast.iter_child_nodes(node))
    return False


def _jumps(stmt: ast.For | ast.While) -> bool:
    """A `break` or `continue` of this loop (not of a loop nested in it) — unrolling cannot follow those."""
    todo: list[ast.AST] = list(stmt.body)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.Break, ast.Continue)):
            return True
        if isinstance(node, (ast.For, ast.While, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            todo.extend(node.orelse if isinstance(node, (ast.For, ast.While)) else ())
            continue
        todo.extend(ast.iter_child_nodes(node))
    return False
