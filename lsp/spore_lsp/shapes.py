"""Static tensor shapes in `construct`: abstract interpretation over (shape, dtype), never running user code.

What it reads, all from the AST: each Cell class's `__init__` (``self.fc = nn.Dense(16 * 16 * 8, 10)``,
``nn.SequentialCell([...])``, user Cells built from literal arguments, constants), with constructor
arguments evaluated by `const_eval` (numbers, strings, tuples, + - * // % and module-level constants;
never `eval`); the input shapes, from a ``# spore: input_shape=(32, 3, 32, 32)`` comment on or above
``def construct`` or from a call site in the same program (``net = Net()`` then
``net(ms.Tensor(np.ones((32, 3, 32, 32), np.float32)))``).

What it asks: every step (a layer call, an ``ops.*`` call, a Tensor method, an arithmetic operator,
an index) is answered by the engine through `spore.ide.layer_output` / `op_output` / `method_output`,
which run Spore's own code over Graph mode's tracers — so the editor's shapes are the engine's shapes.

What it reports: a refusal as an error on the offending line (``shape-mismatch``; for a layer whose
channel count is a constructor argument, both numbers and a quick fix that rewrites the argument);
where inference stops (a call it cannot model, control flow on run-time values, a data-dependent size)
one information note per construct (``shape-stopped``). Unknown propagates as unknown: a step with an
unknown input is never flagged. The inferred values feed hover and inlay hints through
`FunctionFacts.facts["shapes"]`.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from typing import Any

from .analysis import Analysis, Edit, Fix, FunctionFacts

INPUT_SHAPE = re.compile(r"#\s*spore:\s*input_shape\s*=\s*(.+?)\s*$")
MAX_UNROLL = 64  # a loop over a CellList / constant range is followed up to this many iterations
MAX_DEPTH = 8  # user Cells calling user Cells, nested this deep at most

# layers whose input channel count is a constructor argument: (parameter, position, input axis, noun)
CHANNELS = {
    "Dense": ("in_channels", 0, -1, "input features"),
    **{f"Conv{d}": ("in_channels", 0, 1, "input channels") for d in ("1d", "2d", "3d", "1dTranspose", "2dTranspose",
                                                                      "3dTranspose")},
    **{f"BatchNorm{d}": ("num_features", 0, 1, "channels") for d in ("1d", "2d", "3d")},
}
SHORT_DTYPES = {"float32": "f32", "float16": "f16", "bfloat16": "bf16", "float64": "f64", "int8": "i8",
                "int16": "i16", "int32": "i32", "int64": "i64", "uint8": "u8", "bool": "bool", "bool_": "bool",
                "complex64": "c64", "complex128": "c128"}
NP_DTYPES = {"float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool_", "complex64"}
BINOPS = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "truediv", ast.FloorDiv: "floordiv",
          ast.Mod: "mod", ast.Pow: "pow", ast.MatMult: "matmul"}


class NotConst(Exception):
    """The expression is not a constant the safe evaluator can compute."""


@dataclass(frozen=True)
class Unknown:
    """A value the interpretation cannot know (why is said once, where inference stopped)."""


UNKNOWN = Unknown()


@dataclass(frozen=True)
class TVal:
    """An abstract tensor: shape (ints, `spore.ide.Sym`, None), dtype name, and where it came from."""

    shape: tuple
    dtype: str
    origin: str  # "self.flatten", "the input x", ...
    line: int    # 0-based program line of the step that made it


@dataclass
class LayerSpec:
    """``self.<attr> = nn.<layer>(<literal args>)`` as read from `__init__`."""

    attr: str
    layer: str
    args: list
    kwargs: dict
    node: ast.Call
    arg_nodes: dict  # parameter position or name -> the argument's AST node (for the quick fix)


@dataclass
class UserCell:
    """An instance of a Cell class of this program: its class and its `__init__`'s attributes."""

    cls: ast.ClassDef
    attrs: dict[str, Any]


@dataclass
class Seq:
    """``nn.SequentialCell([...])`` or ``nn.CellList([...])``: its layers in order (a CellList is not callable;
    it is indexed or looped over)."""

    attr: str
    items: list
    callable: bool = True


@dataclass
class Step:
    """A binding made in construct: what hover and inlay hints show."""

    name: str
    line: int          # 0-based program line
    value_col: int     # code-point column where the assigned value starts (a cursor before it is on the target)
    end_line: int
    end_col: int
    value: Any


@dataclass
class ConstructShapes:
    steps: list[Step] = field(default_factory=list)
    stopped: bool = False


# ---- the safe constant evaluator ----------------------------------------------------------------
def const_eval(node: ast.AST, env: dict[str, Any]) -> Any:
    """A literal or constant arithmetic, computed without `eval`; raises NotConst otherwise."""
    if isinstance(node, ast.Constant) and (node.value is None or isinstance(node.value, (int, float, str, bool))):
        return node.value
    if isinstance(node, (ast.Tuple, ast.List)):
        vals = [const_eval(e, env) for e in node.elts]
        return tuple(vals) if isinstance(node, ast.Tuple) else vals
    if isinstance(node, ast.Name) and node.id in env and not isinstance(env[node.id], (Unknown, TVal)):
        return env[node.id]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        v = const_eval(node.operand, env)
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            return -v if isinstance(node.op, ast.USub) else v
    if isinstance(node, ast.BinOp):
        return _arith(node.op, const_eval(node.left, env), const_eval(node.right, env))
    raise NotConst(type(node).__name__)  # cheap: raised for every non-constant expression


def _arith(op: ast.operator, a: Any, b: Any) -> Any:
    num = (int, float)
    if isinstance(a, bool) or isinstance(b, bool):
        raise NotConst("bool arithmetic")
    if isinstance(a, num) and isinstance(b, num):
        if isinstance(op, ast.Add):
            out = a + b
        elif isinstance(op, ast.Sub):
            out = a - b
        elif isinstance(op, ast.Mult):
            out = a * b
        elif isinstance(op, (ast.FloorDiv, ast.Mod, ast.Div)) and b != 0:
            out = a // b if isinstance(op, ast.FloorDiv) else a % b if isinstance(op, ast.Mod) else a / b
        elif isinstance(op, ast.Pow) and isinstance(b, int) and 0 <= b <= 64 and abs(a) <= 2 ** 32:
            out = a ** b
        else:
            raise NotConst("operator")
        if abs(out) > 2 ** 62:
            raise NotConst("too large")
        return out
    if isinstance(a, tuple) and isinstance(b, tuple) and isinstance(op, ast.Add):
        return a + b
    if isinstance(a, tuple) and isinstance(b, int) and isinstance(op, ast.Mult) and 0 <= b * len(a) <= 64:
        return a * b
    raise NotConst("operator")


def _dotted(node: ast.AST) -> str | None:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        return ".".join([node.id, *reversed(parts)])
    return None


# ---- reading the program ----------------------------------------------------------------------------
class Program:
    """The Cell classes, module constants and call sites of one analysis."""

    def __init__(self, an: Analysis, ide: Any) -> None:
        self.an, self.ide = an, ide
        tree = an.tree
        assert tree is not None
        self.consts: dict[str, Any] = {}
        # a module constant is a name bound once, at the top level, to a constant: one bound again (or made
        # `global` somewhere) may hold another value when a Cell is built, so it is not a constant
        bound: dict[str, int] = {}
        self._outside: set[str] = set()  # attribute names assigned on something other than self
        self._self_stores: dict[int, list[ast.Attribute]] = {}  # per class: its `self.<x> = ...` targets
        self.calls: list[ast.Call] = []
        self.assigns: list[ast.Assign] = []
        classdefs: list[ast.ClassDef] = []
        load, name_t, attr_t, call_t, assign_t = ast.Load, ast.Name, ast.Attribute, ast.Call, ast.Assign
        parents = an.parents
        for node in an.nodes:  # one pass over the analysis's node list (a huge file: every pass costs ms)
            t = type(node)
            if t is name_t:
                if type(node.ctx) is not load:
                    bound[node.id] = bound.get(node.id, 0) + 1
            elif t is attr_t:
                if type(node.ctx) is not load:
                    if type(node.value) is name_t and node.value.id == "self":
                        owner = parents.get(id(node))
                        while owner is not None and type(owner) is not ast.ClassDef:
                            owner = parents.get(id(owner))
                        if owner is not None:
                            self._self_stores.setdefault(id(owner), []).append(node)
                    else:
                        self._outside.add(node.attr)
            elif t is call_t:
                self.calls.append(node)
                if type(node.func) is name_t and node.func.id in ("setattr", "delattr"):
                    self._outside.add("*")
            elif t is assign_t:
                self.assigns.append(node)
            elif t is ast.ClassDef:
                classdefs.append(node)
            elif t is ast.Global:
                for name in node.names:
                    bound[name] = bound.get(name, 0) + 2
        for stmt in tree.body:
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) \
                    and bound.get(stmt.targets[0].id) == 1:
                try:
                    self.consts[stmt.targets[0].id] = const_eval(stmt.value, self.consts)
                except NotConst:
                    pass
        self.classes: dict[str, ast.ClassDef] = {}
        for node in classdefs:
            if self._is_cell(node):
                self.classes.setdefault(node.name, node)
        defs = [s for s in tree.body if isinstance(s, ast.FunctionDef)]
        names = [d.name for d in defs]
        self.functions = {d.name: d for d in defs if names.count(d.name) == 1}  # one definition: no doubt which
        self.record_for: Any = lambda fn: None  # set by `check`: the record a construct's first interpretation fills

    def _is_cell(self, cls: ast.ClassDef) -> bool:
        for base in cls.bases:
            dotted = _dotted(base)
            if dotted is None:
                continue
            qual = self.an.resolve(dotted)
            if qual is not None and qual.startswith("nn."):
                return True  # nn.Cell, or a Spore layer subclassed
            if dotted in self.classes:
                return True
        return False

    def method(self, cls: ast.ClassDef, name: str) -> ast.FunctionDef | None:
        for item in cls.body:
            if isinstance(item, ast.FunctionDef) and item.name == name:
                return item
        for base in cls.bases:  # a user base class's method
            if isinstance(base, ast.Name) and base.id in self.classes and self.classes[base.id] is not cls:
                found = self.method(self.classes[base.id], name)
                if found is not None:
                    return found
        return None

    # ---- __init__ ----------------------------------------------------------------------------------
    def instance(self, cls: ast.ClassDef, call: ast.Call | None, env: dict[str, Any], depth: int = 0) -> UserCell:
        """The attributes `__init__` gives an instance of `cls` built by `call` (constants from `env`)."""
        attrs: dict[str, Any] = {}
        init = self.method(cls, "__init__")
        if init is None or depth > MAX_DEPTH:
            return UserCell(cls, attrs)
        local = dict(self.consts)
        params = [a.arg for a in init.args.args][1:]
        defaults = init.args.defaults
        for p, d in zip(params[len(params) - len(defaults):], defaults):
            local[p] = self._const(d, env)
        for a in init.args.kwonlyargs:
            local[a.arg] = UNKNOWN
        for p, d in zip(init.args.kwonlyargs, init.args.kw_defaults):
            if d is not None:
                local[p.arg] = self._const(d, env)
        if call is not None:
            for p, a in zip(params, call.args):
                local[p] = self._const(a, env)
            for k in call.keywords:
                if k.arg:
                    local[k.arg] = self._const(k.value, env)
        for p in params:
            local.setdefault(p, UNKNOWN)
        plain: set[int] = set()
        for stmt in init.body:
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
                target = stmt.targets[0]
                if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and \
                        target.value.id == "self":
                    attrs[target.attr] = self.member(target.attr, stmt.value, local, depth)
                    plain.add(id(target))
                elif isinstance(target, ast.Name):
                    local[target.id] = self._const(stmt.value, local)
        # an attribute also set anywhere else (under an `if` in __init__, in another method, on an instance
        # outside the class) may not hold what the plain assignment says: unknown, never a guessed error
        again = self.reassigned(cls, plain)
        for name in list(attrs) if "*" in again else again:
            attrs[name] = UNKNOWN
        return UserCell(cls, attrs)

    def reassigned(self, cls: ast.ClassDef, plain: set[int]) -> set[str]:
        mine = self._self_stores.get(id(cls), [])
        return self._outside | {node.attr for node in mine if id(node) not in plain}

    def _const(self, node: ast.AST, env: dict[str, Any]) -> Any:
        try:
            return const_eval(node, env)
        except NotConst:
            return self._dtype(node) or UNKNOWN

    def _dtype(self, node: ast.AST) -> str | None:
        dotted = _dotted(node)
        if dotted is None:
            return None
        qual = self.an.resolve(dotted)
        if qual and qual.startswith("spore.") and qual[len("spore."):] in SHORT_DTYPES:
            return "dtype:" + qual[len("spore."):]
        head, _, tail = dotted.partition(".")
        if self.an.aliases.get(head) == "numpy" and tail in NP_DTYPES:
            return "np:" + tail
        return None

    def member(self, attr: str, value: ast.AST, env: dict[str, Any], depth: int) -> Any:
        """What one ``self.<attr> = <value>`` in `__init__` holds."""
        if isinstance(value, ast.Call):
            dotted = _dotted(value.func)
            qual = self.an.resolve(dotted) if dotted else None
            if qual in ("nn.SequentialCell", "nn.CellList"):
                elts = value.args[0].elts if len(value.args) == 1 and isinstance(value.args[0], (ast.List, ast.Tuple)) \
                    else value.args
                if qual == "nn.CellList" and len(value.args) > 1 or any(isinstance(e, ast.Starred) for e in elts):
                    return UNKNOWN
                return Seq(attr, [self.member(f"{attr}[{i}]", e, env, depth) for i, e in enumerate(elts)],
                           qual == "nn.SequentialCell")
            if qual is not None and qual.startswith("nn."):
                return self.layer(attr, qual[3:], value, env)
            if isinstance(value.func, ast.Name) and value.func.id in self.classes:
                return self.instance(self.classes[value.func.id], value, env, depth + 1)
            return UNKNOWN
        return self._const(value, env)

    def layer(self, attr: str, name: str, call: ast.Call, env: dict[str, Any]) -> LayerSpec | Unknown:
        args, kwargs, nodes = [], {}, {}
        for i, a in enumerate(call.args):
            if isinstance(a, ast.Starred):
                return UNKNOWN
            v = self._const(a, env)
            if isinstance(v, Unknown):
                return UNKNOWN
            args.append(self._engine_const(v))
            nodes[i] = a
        for k in call.keywords:
            if k.arg is None:
                return UNKNOWN
            v = self._const(k.value, env)
            if isinstance(v, Unknown):
                return UNKNOWN
            kwargs[k.arg] = self._engine_const(v)
            nodes[k.arg] = k.value
        return LayerSpec(attr, name, args, kwargs, call, nodes)

    @staticmethod
    def _engine_const(v: Any) -> Any:
        if isinstance(v, str) and v.startswith("np:"):
            return "dtype:" + v[3:].rstrip("_")
        return v


# ---- input shapes ------------------------------------------------------------------------------------
def _comment_inputs(an: Analysis, fn: ast.FunctionDef, ide: Any) -> list | None:
    """``# spore: input_shape=...`` on the def line (or a comment line just above it or its decorators)."""
    first = min([fn.lineno] + [d.lineno for d in fn.decorator_list]) - 1
    candidates = [fn.lineno - 1, first - 1]
    for line in candidates:
        m = INPUT_SHAPE.search(an.program.line_text(line))
        if m is None:
            continue
        try:
            spec = ast.parse(m.group(1), mode="eval").body
        except SyntaxError:
            return None
        shapes = _shape_spec(spec, ide)
        if shapes is None:
            return None
        return [(s, line) for s in shapes]
    return None


def _shape_spec(node: ast.AST, ide: Any) -> list[tuple] | None:
    """A shape or a tuple of shapes: ints and names (symbolic dims)."""
    def dim(e: ast.AST) -> Any:
        if isinstance(e, ast.Name):
            return ide.Sym(e.id)
        v = const_eval(e, {})
        if isinstance(v, int) and not isinstance(v, bool) and v >= 0:
            return v
        raise NotConst("dim")

    if not isinstance(node, ast.Tuple):
        return None
    try:
        if node.elts and all(isinstance(e, ast.Tuple) for e in node.elts):
            return [tuple(dim(d) for d in e.elts) for e in node.elts]
        return [tuple(dim(d) for d in node.elts)]
    except NotConst:
        return None


# ---- the interpreter -----------------------------------------------------------------------------------
class Interpreter:
    """Runs one construct over abstract values, recording its steps, mismatches and where it stopped."""

    def __init__(self, prog: Program, cell: UserCell, fn: ast.FunctionDef, record: ConstructShapes | None,
                 depth: int, sink: ConstructShapes | None = None, method: bool = True) -> None:
        self.prog, self.an, self.ide = prog, prog.an, prog.ide
        self.cell, self.fn, self.record, self.depth = cell, fn, record, depth
        # where a stop is reported: this construct's own record, else the caller's (a helper, or a Cell's
        # construct already recorded from another call), so a stop inside is never silent
        self.sink = record if record is not None else sink
        self.method_def = method  # a method (its first parameter is self) or a plain function
        self.env: dict[str, Any] = dict(prog.consts)
        self.assumed_dtype = False  # the inputs' dtype is float32 by assumption (an input_shape comment)

    # -- reporting
    def stop(self, node: ast.AST, why: str) -> Unknown:
        rec = self.sink
        if rec is not None and not rec.stopped:
            rec.stopped = True
            self.an.issue("shape-stopped", f"shape inference stops here: {why}; shapes from here on in this "
                          "construct are not checked", "information", node)
        return UNKNOWN

    def where(self, line: int) -> str:
        """A line as the user sees it (cell-relative in a notebook)."""
        uri, local = self.an.program.to_local(line)
        if self.an.program.is_notebook and self.an.program.chunk_of(line) is not \
                self.an.program.chunk_of(self.fn.lineno - 1):
            return f"line {local + 1} of cell {self.an.program.chunk_index(line) + 1}"
        return f"line {local + 1}"

    def source(self, node: ast.AST) -> str:
        """The node's text as written (from the program's lines: `ast.get_source_segment` splits the whole
        text on every call, tens of milliseconds on a large file)."""
        line, col, end_line, end_col = self.an.span(node)
        lines = self.an.program.lines
        if line == end_line:
            return lines[line][col:end_col] if 0 <= line < len(lines) else ast.unparse(node)
        return "\n".join([lines[line][col:], *lines[line + 1:end_line], lines[end_line][:end_col]])

    # -- running
    def run(self, inputs: list, kwargs: dict | None = None) -> Any:
        if self.fn.args.vararg or self.fn.args.kwarg or self.fn.args.kwonlyargs or self.fn.args.posonlyargs:
            return self.stop(self.fn, f"`{self.fn.name}` takes *args, **kwargs or keyword-only parameters")
        params = [a.arg for a in self.fn.args.args][1 if self.method_def else 0:]
        for k, v in (kwargs or {}).items():
            if k not in params:
                return self.stop(self.fn, f"`{self.fn.name}` has no parameter {k}")
            self.env[k] = v
        defaults = self.fn.args.defaults
        for p, d in zip(params[len(params) - len(defaults):], defaults):
            self.env[p] = self.prog._const(d, {})
        for p, v in zip(params, inputs):
            self.env[p] = v
        for p in params:
            self.env.setdefault(p, UNKNOWN)
        if self.record is not None:
            for a in self.fn.args.args[1:]:
                if isinstance(self.env.get(a.arg), TVal):
                    line, col, end_line, end_col = self.an.span(a)
                    self.record.steps.append(Step(a.arg, line, end_col, end_line, end_col, self.env[a.arg]))
        return self.block(self.fn.body)

    def block(self, body: list[ast.stmt]) -> Any:
        for stmt in body:
            done, value = self.stmt(stmt)
            if done:
                return value
        return None

    def stmt(self, stmt: ast.stmt) -> tuple[bool, Any]:
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
            if not isinstance(stmt.value, ast.Constant):
                self.expr(stmt.value)
            return False, None
        if isinstance(stmt, ast.Pass):
            return False, None
        if isinstance(stmt, ast.If):
            try:
                test = const_eval(stmt.test, self.env)
            except NotConst:
                test = None
            if isinstance(test, bool):
                return self.block_result(stmt.body if test else stmt.orelse)
        if isinstance(stmt, ast.For) and isinstance(stmt.target, ast.Name) and not stmt.orelse and not any(
                isinstance(n, (ast.Break, ast.Continue)) for b in stmt.body for n in ast.walk(b)):
            items = self.expr(stmt.iter)
            if isinstance(items, Seq):
                items = items.items
            if isinstance(items, (tuple, list)) and len(items) <= MAX_UNROLL:
                for item in items:  # unrolled, as Graph mode unrolls a loop over a CellList or a constant range
                    self.env[stmt.target.id] = item
                    done, value = self.block_result(stmt.body)
                    if done:
                        return True, value
                return False, None
        what = type(stmt).__name__.lower()
        self.stop(stmt, f"`{what}` on values only known when it runs is not followed")
        for node in ast.walk(stmt):  # whatever the statement assigns is unknown from here on
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                self.env[node.id] = UNKNOWN
        return False, None

    def block_result(self, body: list[ast.stmt]) -> tuple[bool, Any]:
        for stmt in body:
            done, value = self.stmt(stmt)
            if done:
                return True, value
        return False, None

    def bind(self, target: ast.AST, value: Any, stmt: ast.stmt) -> None:
        if isinstance(target, ast.Name):
            self.env[target.id] = value
            if self.record is not None:
                line, col, _, _ = self.an.span(stmt.value)
                _, _, end_line, end_col = self.an.span(stmt)
                self.record.steps.append(Step(target.id, line, col, end_line, end_col, value))
        elif isinstance(target, (ast.Tuple, ast.List)):
            items = value if isinstance(value, (tuple, list)) and len(value) == len(target.elts) else None
            for i, t in enumerate(target.elts):
                self.bind(t, items[i] if items is not None else UNKNOWN, stmt)
        else:
            self.stop(target, f"assigning to `{self.source(target)}` is not followed")

    # -- expressions
    def expr(self, node: ast.AST) -> Any:
        try:
            return const_eval(node, self.env)
        except NotConst:
            pass
        if isinstance(node, ast.Name):
            if node.id in self.env:
                return self.env[node.id]
            return self.stop(node, f"`{node.id}` is not a value the shape check knows")
        if isinstance(node, (ast.Tuple, ast.List)):
            vals = [self.expr(e) for e in node.elts]
            return tuple(vals) if isinstance(node, ast.Tuple) else vals
        if isinstance(node, ast.Attribute):
            return self.attribute(node)
        if isinstance(node, ast.Subscript):
            return self.subscript(node)
        if isinstance(node, ast.BinOp):
            return self.binop(node.op, self.expr(node.left), self.expr(node.right), node)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            v = self.expr(node.operand)
            return self.method(node, v, "__neg__", [], {}) if isinstance(v, TVal) else UNKNOWN
        if isinstance(node, ast.Call):
            return self.call(node)
        if isinstance(node, ast.Slice):
            return slice(*(self.expr(p) if p is not None else None for p in (node.lower, node.upper, node.step)))
        return self.stop(node, f"`{self.source(node)[:40]}` is not modelled")

    def attribute(self, node: ast.Attribute) -> Any:
        if isinstance(node.value, ast.Name) and node.value.id == "self":
            if node.attr in self.cell.attrs:
                return self.cell.attrs[node.attr]
            return self.stop(node, f"`self.{node.attr}` is not set from literals in __init__")
        dtype = self.prog._dtype(node)
        if dtype is not None:
            return Program._engine_const(dtype)
        base = self.expr(node.value)
        if isinstance(base, TVal):
            if node.attr == "shape":
                return base.shape
            if node.attr == "ndim":
                return len(base.shape)
            if node.attr == "dtype":
                return "dtype:" + base.dtype
            return self.method(node, base, node.attr, None, {})
        if isinstance(base, Unknown):
            return UNKNOWN
        return self.stop(node, f"`{self.source(node)[:40]}` is not modelled")

    def subscript(self, node: ast.Subscript) -> Any:
        base = self.expr(node.value)
        index = self.expr(node.slice)
        if isinstance(base, Unknown) or _has_unknown(index):
            return UNKNOWN
        if isinstance(base, Seq):
            base = base.items
        if isinstance(base, (tuple, list)):
            try:
                return base[index]
            except (TypeError, IndexError):
                return self.stop(node, "an index the shape check cannot follow")
        if isinstance(base, TVal):
            if _has_tensor(index):
                return self.stop(node, "indexing with a tensor (a data-dependent shape)")
            return self.method(node, base, "__getitem__", [index], {})
        return self.stop(node, f"`{self.source(node)[:40]}` is not modelled")

    def binop(self, op: ast.operator, a: Any, b: Any, node: ast.AST) -> Any:
        name = BINOPS.get(type(op))
        if isinstance(a, Unknown) or isinstance(b, Unknown) or name is None:
            return UNKNOWN if name is not None else self.stop(node, "an operator the shape check does not model")
        if isinstance(a, TVal):
            return self.method(node, a, f"__{name}__", [b], {})
        if isinstance(b, TVal):
            return self.method(node, b, f"__r{name}__", [a], {})
        try:
            return _arith(op, a, b)
        except NotConst:
            return UNKNOWN

    def call(self, node: ast.Call) -> Any:
        func = node.func
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self":
            target = self.cell.attrs.get(func.attr)
            method = self.prog.method(self.cell.cls, func.attr) if target is None else None
            if method is not None:
                return self.follow(node, method, True)
            return self.call_value(node, target, f"self.{func.attr}")
        if isinstance(func, ast.Name) and func.id in self.prog.functions and func.id not in self.env:
            return self.follow(node, self.prog.functions[func.id], False)
        dotted = _dotted(func)
        qual = self.an.resolve(dotted) if dotted else None
        if qual is not None and qual.startswith("ops."):
            args, kwargs = self.arguments(node)
            if args is None:
                return UNKNOWN
            res = self.ide.op_output(qual[4:], _to_engine(args, self.ide), _to_engine(kwargs, self.ide))
            return self.engine(node, res, qual, None)
        if isinstance(func, ast.Name) and isinstance(self.env.get(func.id), (LayerSpec, Seq, UserCell)):
            return self.call_value(node, self.env[func.id], func.id)  # `for blk in self.blocks: x = blk(x)`
        if isinstance(func, ast.Name) and func.id == "range" and func.id not in self.env and not node.keywords:
            bounds = [self.expr(a) for a in node.args]
            try:
                if not all(isinstance(b, int) and not isinstance(b, bool) for b in bounds):
                    raise TypeError("not ints")
                r = range(*bounds)
            except (TypeError, ValueError):
                return self.stop(node, "a range() over values only known when it runs")
            return tuple(r) if len(r) <= MAX_UNROLL else self.stop(node, f"a loop of {len(r)} iterations")
        if isinstance(func, ast.Name) and func.id == "len" and len(node.args) == 1:
            v = self.expr(node.args[0])
            return len(v) if isinstance(v, (tuple, list)) else v.shape[0] if isinstance(v, TVal) else UNKNOWN
        if isinstance(func, ast.Attribute):
            base = self.expr(func.value)
            if isinstance(base, TVal):
                args, kwargs = self.arguments(node)
                return UNKNOWN if args is None else self.method(node, base, func.attr, args, kwargs)
            if isinstance(base, Unknown):
                return UNKNOWN
        if isinstance(func, ast.Subscript):  # self.blocks[i](x)
            target = self.expr(func)
            if isinstance(target, (LayerSpec, Seq, UserCell)):
                return self.call_value(node, target, self.source(func))
            if isinstance(target, Unknown):
                return UNKNOWN
        return self.stop(node, f"calls `{self.source(func)[:40]}`, which the shape check does not model")

    def arguments(self, node: ast.Call) -> tuple[list | None, dict]:
        args = []
        for a in node.args:
            if isinstance(a, ast.Starred):
                v = self.expr(a.value)
                if not isinstance(v, (tuple, list)):
                    return None, {}
                args.extend(v)
            else:
                args.append(self.expr(a))
        kwargs = {k.arg: self.expr(k.value) for k in node.keywords if k.arg}
        if any(k.arg is None for k in node.keywords) or _has_unknown(args) or _has_unknown(kwargs):
            return None, {}
        return args, kwargs

    def follow(self, node: ast.Call, fn: ast.FunctionDef, method: bool) -> Any:
        """A helper the construct calls (a method of the Cell, a function of the module): interpreted too."""
        label = f"self.{fn.name}" if method else fn.name
        if self.depth >= MAX_DEPTH or fn.decorator_list:
            return self.stop(node, f"calls `{label}`, which the shape check does not follow (decorated or too deep)")
        args, kwargs = self.arguments(node)
        if args is None:
            return UNKNOWN
        sub = Interpreter(self.prog, self.cell, fn, None, self.depth + 1, self.sink, method)
        sub.assumed_dtype = self.assumed_dtype
        return _relabel(sub.run(list(args), kwargs), label, node.lineno - 1)

    def call_value(self, node: ast.Call, target: Any, label: str) -> Any:
        if target is None or isinstance(target, Unknown):
            return self.stop(node, f"`{label}` is not set once, from literals, in __init__")
        args, kwargs = self.arguments(node)
        if args is None:
            return UNKNOWN
        return self.apply(node, target, label, args, kwargs)

    def apply(self, node: ast.Call, target: Any, label: str, args: list, kwargs: dict) -> Any:
        if isinstance(target, LayerSpec):
            res = self.ide.layer_output(target.layer, target.args, target.kwargs, _to_engine(args, self.ide),
                                        _to_engine(kwargs, self.ide))
            return self.engine(node, res, label, (target, args))
        if isinstance(target, Seq):
            if not target.callable:
                return self.stop(node, f"`{label}` is a CellList: index it or loop over it")
            value: Any = args[0] if len(args) == 1 and not kwargs else UNKNOWN
            for i, item in enumerate(target.items):
                if isinstance(value, Unknown):
                    return UNKNOWN
                if isinstance(item, Unknown):
                    return self.stop(node, f"`{label}[{i}]` is not built from literals in __init__")
                value = self.apply(node, item, f"{label}[{i}]", [value], {})
            return value
        if isinstance(target, UserCell):
            fn = self.prog.method(target.cls, "construct")
            if fn is None or self.depth >= MAX_DEPTH:
                return self.stop(node, f"`{label}` has no construct the shape check can read")
            sub = Interpreter(self.prog, target, fn, self.prog.record_for(fn), self.depth + 1, self.sink)
            sub.assumed_dtype = self.assumed_dtype
            out = sub.run(list(args))
            return _relabel(out, label, node.lineno - 1)
        return self.stop(node, f"calls `{label}`, which the shape check does not model")

    def method(self, node: ast.AST, base: TVal, name: str, args: list | None, kwargs: dict) -> Any:
        """A Tensor method call, or with ``args=None`` a Tensor property (``x.T``), answered by the engine."""
        res = self.ide.method_output(name, _to_engine(base, self.ide), None if args is None else
                                     _to_engine(args, self.ide), _to_engine(kwargs, self.ide))
        label = f".{name}" if not name.startswith("__") else self.source(node)[:40]
        return self.engine(node, res, label, None)

    def engine(self, node: ast.AST, res: dict, label: str, layer: tuple | None) -> Any:
        status = res.get("status")
        if status == "ok":
            return _from_tree(res["tree"], res["outputs"], label, node.lineno - 1)
        if status == "error" and res.get("type") == "DTypeError" and self.assumed_dtype:
            return self.stop(node, f"`{label}` needs another dtype than the float32 an input_shape comment assumes")
        if status == "error":
            self.mismatch(node, res, label, layer)
            return UNKNOWN
        return self.stop(node, f"`{label}`: {res.get('reason', 'not modelled')}")

    def mismatch(self, node: ast.AST, res: dict, label: str, layer: tuple | None) -> None:
        fixes: list[Fix] = []
        msg = None
        if layer is not None:
            spec, args = layer
            src = self.source(spec.node)
            line = self.where(spec.node.lineno - 1)
            x = args[0] if args and isinstance(args[0], TVal) else None
            table = CHANNELS.get(spec.layer)
            if table is not None and x is not None:
                pname, pos, axis, noun = table
                arg_node = spec.arg_nodes.get(pname, spec.arg_nodes.get(pos))
                expected = spec.kwargs.get(pname, spec.args[pos] if pos < len(spec.args) else None)
                got = x.shape[axis] if len(x.shape) > abs(axis) - (axis < 0) else None
                if isinstance(expected, int) and isinstance(got, int) and expected != got and arg_node is not None:
                    msg = (f"{spec.attr} expects {expected} {noun} ({src}, {line}) but receives {got} from "
                           f"{x.origin} ({self.where(x.line)})")
                    fixes.append(Fix(f"Change {spec.attr}'s {pname} to {got}", (Edit(*self.an.span(arg_node),
                                                                                         str(got)),)))
            if msg is None:
                origins = ", ".join(f"{v.origin} ({self.where(v.line)}): {_fmt(v)}"
                                    for v in args if isinstance(v, TVal))
                msg = f"{spec.attr} ({src}, {line}) refuses its input {origins}: {res.get('reason')}"
        else:
            msg = f"`{label}`: {res.get('reason')}"
        self.an.issue("shape-mismatch", msg, "error", node, fixes, op=res.get("op"), expected=res.get("expected"),
                      actual=res.get("actual"))


def _relabel(value: Any, label: str, line: int) -> Any:
    if isinstance(value, TVal):
        return TVal(value.shape, value.dtype, label, line)
    if isinstance(value, tuple):
        return tuple(_relabel(v, label, line) for v in value)
    return value


def _from_tree(tree: Any, outputs: list, label: str, line: int) -> Any:
    if isinstance(tree, list):
        return tuple(_from_tree(t, outputs, label, line) for t in tree)
    shape, dtype = outputs[tree]
    return TVal(tuple(shape), dtype, label, line)


def _to_engine(value: Any, ide: Any) -> Any:
    if isinstance(value, TVal):
        return ide.Abstract(value.shape, value.dtype)
    if isinstance(value, tuple):
        return tuple(_to_engine(v, ide) for v in value)
    if isinstance(value, list):
        return [_to_engine(v, ide) for v in value]
    if isinstance(value, dict):
        return {k: _to_engine(v, ide) for k, v in value.items()}
    return value


def _has_unknown(value: Any) -> bool:
    if isinstance(value, Unknown):
        return True
    if isinstance(value, (tuple, list)):
        return any(_has_unknown(v) for v in value)
    if isinstance(value, dict):
        return any(_has_unknown(v) for v in value.values())
    if isinstance(value, slice):
        return any(_has_unknown(v) for v in (value.start, value.stop, value.step))
    return False


def _has_tensor(value: Any) -> bool:
    if isinstance(value, TVal):
        return True
    return isinstance(value, (tuple, list)) and any(_has_tensor(v) for v in value)


def _fmt(v: TVal) -> str:
    dims = ", ".join("?" if d is None else str(d) for d in v.shape)
    return f"({dims}{',' if len(v.shape) == 1 else ''})"


def label(value: Any) -> str | None:
    """The inlay-hint / hover text of a value: ``(32, 16, 16, 16) f32``; None for what is not a tensor."""
    if isinstance(value, TVal):
        return f"{_fmt(value)} {SHORT_DTYPES.get(value.dtype, value.dtype)}"
    if isinstance(value, tuple) and value and all(isinstance(v, TVal) for v in value):
        return "(" + ", ".join(label(v) or "?" for v in value) + ")"
    return None


# ---- call sites ---------------------------------------------------------------------------------------
NP_MAKERS = {"ones": "float64", "zeros": "float64", "empty": "float64", "full": "float64"}
NP_RANDOM = {"randn": "float64", "rand": "float64", "random": "float64", "standard_normal": "float64"}


def _np_array(prog: Program, node: ast.AST) -> tuple[tuple, str] | None:
    """(shape, dtype) of a NumPy array literal: np.ones/zeros/empty/full(shape[, dtype]), np.random.randn(*dims),
    np.random.rand/random/standard_normal, optionally `.astype(np.float32)`."""
    if not isinstance(node, ast.Call):
        return None
    if isinstance(node.func, ast.Attribute) and node.func.attr == "astype" and len(node.args) == 1:
        inner = _np_array(prog, node.func.value)
        dt = prog._dtype(node.args[0])
        if inner is None or dt is None:
            return None
        return inner[0], dt.split(":", 1)[1].rstrip("_")
    dotted = _dotted(node.func)
    if dotted is None:
        return None
    head, _, tail = dotted.partition(".")
    if prog.an.aliases.get(head) != "numpy":
        return None
    try:
        if tail in NP_MAKERS and node.args:
            shape = const_eval(node.args[0], prog.consts)
            shape = (shape,) if isinstance(shape, int) else shape
            dt_node = node.args[2 if tail == "full" else 1] if len(node.args) > (2 if tail == "full" else 1) else None
            dt_node = next((k.value for k in node.keywords if k.arg == "dtype"), dt_node)
            dt = prog._dtype(dt_node).split(":", 1)[1].rstrip("_") if dt_node is not None and prog._dtype(dt_node) \
                else (NP_MAKERS[tail] if dt_node is None else None)
        elif tail.startswith("random.") and tail[7:] in NP_RANDOM:
            if tail[7:] in ("randn", "rand"):
                shape = tuple(const_eval(a, prog.consts) for a in node.args)
            else:
                shape = const_eval(node.args[0], prog.consts) if node.args else ()
            dt = "float64"
        else:
            return None
    except NotConst:
        return None
    if dt is None or not isinstance(shape, tuple) or not all(isinstance(d, int) and d >= 0 for d in shape):
        return None
    return shape, dt


def _input_value(prog: Program, node: ast.AST) -> TVal | None:
    """A call-site argument with a literal shape: ms.Tensor(<numpy literal>[, dtype]) or ops.ones((8, 10))..."""
    if not isinstance(node, ast.Call):
        return None
    dotted = _dotted(node.func)
    qual = prog.an.resolve(dotted) if dotted else None
    origin = f"the input at {ast.unparse(node)[:40]}"
    if qual == "spore.Tensor" and node.args:
        arr = _np_array(prog, node.args[0])
        if arr is None:
            return None
        dt_node = node.args[1] if len(node.args) > 1 else next((k.value for k in node.keywords if k.arg == "dtype"),
                                                               None)
        dt = arr[1]
        if dt_node is not None:
            got = prog._dtype(dt_node)
            if got is None:
                return None
            dt = got.split(":", 1)[1].rstrip("_")
        return TVal(arr[0], dt, origin, node.lineno - 1)
    if qual is not None and qual.startswith("ops."):
        args = [prog._const(a, {}) for a in node.args]
        kwargs = {k.arg: prog._const(k.value, {}) for k in node.keywords if k.arg}
        if _has_unknown(args) or _has_unknown(kwargs) or any(not k.arg for k in node.keywords):
            return None
        res = prog.ide.op_output(qual[4:], [prog._engine_const(a) for a in args],
                                 {k: prog._engine_const(v) for k, v in kwargs.items()})
        if res.get("status") == "ok" and res["tree"] == 0:
            shape, dt = res["outputs"][0]
            return TVal(tuple(shape), dt, origin, node.lineno - 1)
    return None


def _call_sites(prog: Program) -> dict[str, tuple[ast.Call | None, list, int]]:
    """Per Cell class: (its constructor call, the input values, line) of the first call with literal inputs."""
    instances: dict[str, tuple[str, ast.Call]] = {}
    out: dict[str, tuple[ast.Call | None, list, int]] = {}
    if not prog.classes:
        return out
    for node in prog.assigns:
        if len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) and \
                isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Name) and \
                node.value.func.id in prog.classes:
            instances.setdefault(node.targets[0].id, (node.value.func.id, node.value))
    calls = sorted((n for n in prog.calls if (
        isinstance(n.func, ast.Name) and n.func.id in instances or isinstance(n.func, ast.Call))),
        key=lambda n: (n.lineno, n.col_offset))
    for node in calls:
        if isinstance(node.func, ast.Name) and node.func.id in instances:
            cls_name, ctor = instances[node.func.id]
        elif isinstance(node.func, ast.Call) and isinstance(node.func.func, ast.Name) and \
                node.func.func.id in prog.classes:
            cls_name, ctor = node.func.func.id, node.func
        else:
            continue
        if cls_name in out or node.keywords:
            continue
        values = [_input_value(prog, a) for a in node.args]
        if values and all(v is not None for v in values):
            out[cls_name] = (ctor, values, node.lineno - 1)
    return out


# ---- entry point ----------------------------------------------------------------------------------------
def check(an: Analysis) -> None:
    """Infer the shapes of every construct with known inputs; record issues and `facts["shapes"]`."""
    if an.tree is None:
        return
    if not any(f.node.name == "construct" for f in an.functions):
        return  # no Cell: nothing to infer, and no pass over the file
    from spore import ide

    prog = Program(an, ide)
    if not prog.classes:
        return
    facts_by_node: dict[int, FunctionFacts] = {id(f.node): f for f in an.functions}
    prog.record_for = lambda fn: _record(prog, facts_by_node, fn)
    sites = _call_sites(prog)
    for name, cls in prog.classes.items():
        fn = prog.method(cls, "construct")
        if fn is None or fn.name != "construct" or id(fn) not in facts_by_node:
            continue
        commented = _comment_inputs(an, fn, ide)
        ctor = None
        if commented is not None:
            inputs = [TVal(tuple(s), "float32", f"the input {p.arg}", line)
                      for (s, line), p in zip(commented, fn.args.args[1:])]
        elif name in sites:
            ctor, inputs, _ = sites[name]
        else:
            continue
        record = _record(prog, facts_by_node, fn)
        if record is None:
            continue
        if commented is None:
            inputs = [TVal(v.shape, v.dtype, f"the input {p.arg} (the call at {_line_of(an, v.line)})", v.line)
                      for v, p in zip(inputs, fn.args.args[1:])]
        cell = prog.instance(cls, ctor, prog.consts)
        run = Interpreter(prog, cell, fn, record, 0)
        run.assumed_dtype = commented is not None
        run.run(inputs)


def _line_of(an: Analysis, line: int) -> str:
    _, local = an.program.to_local(line)
    if an.program.is_notebook:
        return f"line {local + 1} of cell {an.program.chunk_index(line) + 1}"
    return f"line {local + 1}"


def _record(prog: Program, facts_by_node: dict[int, FunctionFacts], fn: ast.FunctionDef) -> ConstructShapes | None:
    """The record of a construct's steps: the first interpretation of it records, later ones only infer."""
    facts = facts_by_node.get(id(fn))
    if facts is None or "shapes" in facts.facts:
        return None
    rec = ConstructShapes()
    facts.facts["shapes"] = rec
    return rec


def steps_at(an: Analysis, line: int) -> list[Step]:
    """The recorded steps of the construct holding a 0-based program line."""
    fn = an.function_at(line)
    rec = fn.facts.get("shapes") if fn is not None else None
    return list(rec.steps) if isinstance(rec, ConstructShapes) else []


def value_of(an: Analysis, name: str, line: int, col: int) -> Any:
    """The value of variable `name` at a program position in a construct (None when not known)."""
    best = None
    for step in steps_at(an, line):
        if step.name != name:
            continue
        on_target = step.line == line and col < step.value_col
        if step.line < line or on_target or (step.line == line and step.value_col == step.end_col):
            best = step
    return best.value if best is not None else None
