"""Where a construct's input shapes come from, read from the source alone.

- A comment on or just above ``def construct``: ``# spore: input_shape=(32, 3, 32, 32)``; several inputs:
  a tuple of shapes; names (``B``) are symbolic dims.
- A call in the same file or notebook with literal shapes: ``net(ms.Tensor(np.ones((32, 3, 32, 32),
  np.float32)))``, ``Net()(ops.ones((8, 10)))``, keyword arguments (``net(x=...)``), and arguments that are
  variables bound once to such a literal (``x = ms.Tensor(np.ones(...)); net(x)``) or rows of a dataset
  whose arrays have literal shapes (`datasets`).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from typing import Any

from ..analysis import Analysis
from .consts import NotConst, const_eval, dotted
from .program import Program
from .values import NP_DTYPES, TVal, has_unknown

INPUT_SHAPE = re.compile(r"#\s*spore:\s*input_shape\s*=\s*(.+?)\s*$")
NP_MAKERS = {"ones": "float64", "zeros": "float64", "empty": "float64", "full": "float64"}
NP_RANDOM = {"randn": "float64", "rand": "float64", "random": "float64", "standard_normal": "float64"}
RNG_METHODS = {"standard_normal": "float64", "random": "float64", "normal": "float64", "uniform": "float64",
               "integers": "int64"}
MAX_FOLLOW = 6  # variables followed from a call site back to their literal, at most this many deep


@dataclass
class Site:
    """A call that feeds a Cell: its constructor call, the input values (by construct parameter), the line."""

    ctor: ast.Call | None
    args: list = field(default_factory=list)
    kwargs: dict = field(default_factory=dict)
    line: int = 0
    training: bool | None = None  # True: the call trains the Cell (Model.train); None: the program decides


# ---- the input_shape comment -------------------------------------------------------------------------
def comment_inputs(an: Analysis, fn: ast.FunctionDef, ide: Any) -> list | None:
    """``# spore: input_shape=...`` on the def line (or a comment line just above it or its decorators)."""
    first = min([fn.lineno] + [d.lineno for d in fn.decorator_list]) - 1
    for line in (fn.lineno - 1, first - 1):
        m = INPUT_SHAPE.search(an.program.line_text(line))
        if m is None:
            continue
        try:
            spec = ast.parse(m.group(1), mode="eval").body
        except SyntaxError:
            return None
        shapes = shape_spec(spec, ide)
        if shapes is None:
            return None
        return [(s, line) for s in shapes]
    return None


def shape_spec(node: ast.AST, ide: Any) -> list[tuple] | None:
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


# ---- literal arrays and tensors ------------------------------------------------------------------------
def followed(prog: Program, node: ast.AST, depth: int) -> ast.AST | None:
    """The expression a variable was bound to (once, in the same scope, before), else the node itself."""
    if isinstance(node, ast.Name):
        if depth > MAX_FOLLOW:
            return None
        return prog.bound_value(node)
    return node


def np_dtype(prog: Program, node: ast.AST | None, default: str | None) -> str | None:
    if node is None:
        return default
    got = prog.dtype(node)
    return got.split(":", 1)[1].rstrip("_") if got is not None else None


def np_array(prog: Program, node: ast.AST, depth: int = 0) -> tuple[tuple, str] | None:
    """(shape, dtype) of a NumPy array literal: np.ones/zeros/empty/full(shape[, dtype]), np.random.randn(*dims),
    np.random.rand/random/standard_normal, a Generator's standard_normal/random/normal/uniform/integers with a
    literal size, optionally `.astype(np.float32)`; through variables bound once."""
    node = followed(prog, node, depth + 1)
    if not isinstance(node, ast.Call):
        return None
    kw = {k.arg: k.value for k in node.keywords if k.arg}
    if isinstance(node.func, ast.Attribute) and node.func.attr == "astype" and len(node.args) == 1:
        inner = np_array(prog, node.func.value, depth + 1)
        dt = np_dtype(prog, node.args[0], None)
        return (inner[0], dt) if inner is not None and dt is not None else None
    name = dotted(node.func)
    head, _, tail = (name or "").partition(".")
    try:
        if prog.an.aliases.get(head) == "numpy" and tail in NP_MAKERS and node.args:
            shape = const_eval(node.args[0], prog.consts)
            pos = 2 if tail == "full" else 1
            dt = np_dtype(prog, kw.get("dtype", node.args[pos] if len(node.args) > pos else None), NP_MAKERS[tail])
        elif prog.an.aliases.get(head) == "numpy" and tail.startswith("random.") and tail[7:] in NP_RANDOM:
            if tail[7:] in ("randn", "rand"):
                shape = tuple(const_eval(a, prog.consts) for a in node.args)
            else:
                shape = const_eval(node.args[0], prog.consts) if node.args else ()
            dt = "float64"
        elif prog.an.aliases.get(head) == "numpy" and tail in ("array", "asarray") and node.args:
            value = const_eval(node.args[0], prog.consts)
            shape, kind = _nested(value)
            dt = np_dtype(prog, kw.get("dtype", node.args[1] if len(node.args) > 1 else None), kind)
        elif prog.an.aliases.get(head) == "numpy" and tail in NP_DTYPES and len(node.args) == 1 and not kw:
            value = const_eval(node.args[0], prog.consts)  # np.int32(1): a NumPy scalar, shape ()
            shape, dt = (), (tail.rstrip("_") if isinstance(value, (int, float)) else None)
        elif isinstance(node.func, ast.Attribute) and node.func.attr in RNG_METHODS and _is_rng(prog, node.func.value,
                                                                                              depth):
            size = kw.get("size")
            if size is None:
                at = {"standard_normal": 0, "random": 0, "normal": 2, "uniform": 2, "integers": 2}[node.func.attr]
                size = node.args[at] if len(node.args) > at else None
            if size is None:
                return None
            shape = const_eval(size, prog.consts)
            dt = np_dtype(prog, kw.get("dtype"), RNG_METHODS[node.func.attr])
        else:
            return None
    except NotConst:
        return None
    shape = (shape,) if isinstance(shape, int) else shape
    if dt is None or not isinstance(shape, tuple) or not all(type(d) is int and d >= 0 for d in shape):
        return None
    return shape, dt


def _nested(value: Any) -> tuple[tuple, str | None]:
    """The shape and NumPy's default dtype of a literal ``np.array(...)`` argument (nested lists of numbers)."""
    if isinstance(value, bool):
        return (), "bool"
    if isinstance(value, int):
        return (), "int64"
    if isinstance(value, float):
        return (), "float64"
    if isinstance(value, (list, tuple)) and value:
        inner = [_nested(v) for v in value]
        if all(i == inner[0] for i in inner):
            return (len(value), *inner[0][0]), inner[0][1]
        kinds = {i[1] for i in inner}
        if len({i[0] for i in inner}) == 1 and kinds <= {"int64", "float64"}:
            return (len(value), *inner[0][0]), "float64"
    return (), None


def _is_rng(prog: Program, node: ast.AST, depth: int) -> bool:
    node = followed(prog, node, depth + 1)
    if not isinstance(node, ast.Call):
        return False
    name = dotted(node.func) or ""
    head, _, tail = name.partition(".")
    return prog.an.aliases.get(head) == "numpy" and tail == "random.default_rng"


def input_value(prog: Program, node: ast.AST, depth: int = 0) -> Any:
    """A call-site argument with a literal shape — ms.Tensor(<numpy literal>[, dtype]), ops.ones((8, 10)), a
    variable bound to one, a row (or a column of a row) of a dataset with literal shapes — else None."""
    from .datasets import row_value  # noqa: PLC0415 - datasets reads call sites through this function too

    if depth > MAX_FOLLOW:
        return None
    if isinstance(node, ast.Name):
        bound = prog.binding(node)
        if isinstance(bound, ast.Assign):
            value = prog.bound_value(node)
            return input_value(prog, value, depth + 1) if value is not None else None
        if isinstance(bound, ast.For) and _inside(prog, node, bound):
            return row_value(prog, bound, node, depth + 1)
        return None
    if isinstance(node, ast.Subscript):
        base = input_value(prog, node.value, depth + 1)
        try:
            key = const_eval(node.slice, {})
        except NotConst:
            return None
        if isinstance(base, (tuple, list)) and isinstance(key, int) and -len(base) <= key < len(base) or \
                isinstance(base, dict) and key in base:
            return base[key]
        return None
    if not isinstance(node, ast.Call):
        return None
    name = dotted(node.func)
    qual = prog.an.resolve(name) if name else None
    origin = f"the input at {ast.unparse(node)[:40]}"
    if qual == "spore.Tensor" and node.args:
        arr = np_array(prog, node.args[0], depth)
        if arr is None:
            return None
        dt_node = node.args[1] if len(node.args) > 1 else next((k.value for k in node.keywords if k.arg == "dtype"),
                                                               None)
        dt = np_dtype(prog, dt_node, arr[1])
        return TVal(arr[0], dt, origin, node.lineno - 1) if dt is not None else None
    if qual is not None and qual.startswith("ops."):
        args = [prog.const(a, {}) for a in node.args]
        kwargs = {k.arg: prog.const(k.value, {}) for k in node.keywords if k.arg}
        if has_unknown(args) or has_unknown(kwargs) or any(not k.arg for k in node.keywords):
            return None
        res = prog.ide.op_output(qual[4:], [prog.engine_const(a) for a in args],
                                 {k: prog.engine_const(v) for k, v in kwargs.items()})
        if res.get("status") == "ok" and res["tree"] == 0:
            shape, dt = res["outputs"][0]
            return TVal(tuple(shape), dt, origin, node.lineno - 1)
    return None


def _inside(prog: Program, node: ast.AST, loop: ast.For) -> bool:
    """The node is in the loop's body (where its variable holds one item)."""
    child, owner = node, prog.an.parents.get(id(node))
    while owner is not None and owner is not loop:
        child, owner = owner, prog.an.parents.get(id(owner))
    return owner is loop and any(child is s for s in loop.body)


# ---- call sites -----------------------------------------------------------------------------------------
def cell_instance(prog: Program, node: ast.AST) -> tuple[str, ast.Call] | None:
    """(class name, constructor call) of an expression that builds a Cell of this program, or a variable
    bound once to one."""
    target = followed(prog, node, 1)
    if isinstance(target, ast.Call) and isinstance(target.func, ast.Name) and target.func.id in prog.classes:
        return target.func.id, target
    return None


def callee(prog: Program, node: ast.AST, depth: int = 0) -> tuple[str, ast.Call, int | None] | None:
    """The Cell of this program a call reaches, through MindSpore's training wrappers: (class name, its
    constructor call, how many of the call's leading arguments it gets — None: all). ``WithLossCell(net, loss)``
    gives `net` the data (the first argument); ``TrainOneStepCell(network, opt)`` passes everything on."""
    cell = cell_instance(prog, node)
    if cell is not None:
        return cell[0], cell[1], None
    target = followed(prog, node, 1)
    if depth > 2 or not isinstance(target, ast.Call) or not target.args or target.keywords and any(
            k.arg in ("backbone", "network") for k in target.keywords):
        return None
    name = dotted(target.func)
    qual = prog.an.resolve(name) if name else None
    if qual not in ("nn.WithLossCell", "nn.TrainOneStepCell"):
        return None
    inner = callee(prog, target.args[0], depth + 1)
    if inner is None:
        return None
    take = 1 if qual == "nn.WithLossCell" else None
    return inner[0], inner[1], take if inner[2] is None else min(inner[2], take or inner[2])


def call_sites(prog: Program) -> dict[str, Site]:
    """Per Cell class: the first call (in source order) whose every input has a literal shape."""
    from .datasets import model_sites  # noqa: PLC0415

    out: dict[str, Site] = {}
    if not prog.classes:
        return out
    # a called name never assigned anywhere (print, a class's own name) reaches no Cell instance: `callee` follows
    # a name only through its one binding, so those calls (most of a file's) are skipped without following
    stores = prog.stores
    calls = sorted((n for n in prog.calls if type(n.func) is ast.Call or type(n.func) is ast.Name
                    and n.func.id in stores), key=lambda n: (n.lineno, n.col_offset))
    found: list[tuple[tuple[int, int], str, Site]] = []
    for node in calls:
        cell = callee(prog, node.func)
        if cell is None or any(isinstance(a, ast.Starred) for a in node.args) or \
                any(k.arg is None for k in node.keywords) or cell[2] is not None and node.keywords:
            continue
        values = [input_value(prog, a) for a in node.args[:cell[2]]]
        kwargs = {k.arg: input_value(prog, k.value) for k in node.keywords}
        if (values or kwargs) and all(isinstance(v, TVal) for v in [*values, *kwargs.values()]):
            found.append(((node.lineno, node.col_offset), cell[0], Site(cell[1], values, kwargs, node.lineno - 1)))
    found.extend(model_sites(prog))
    for _, name, site in sorted(found, key=lambda f: f[0]):
        out.setdefault(name, site)
    return out
