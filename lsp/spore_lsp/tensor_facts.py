"""What the document says about values before any function is looked at: which names are Spore layers,
Parameters, plain Python objects, which arguments of a compiled function are tensors.

The deeper Graph-mode rules (`deep_rules`) need to know, for a value inside `construct`, whether the
compiler would hold a *tracer* there (a tensor whose value exists only when the graph runs). That is
certain for what Spore's own ops and layers return, and for an argument only when the document says
so: an annotation (``x: ms.Tensor``), a ``# spore: input_shape=...`` comment, or a call site that
passes a Spore tensor (``net(ms.Tensor(...))``). A Python number passed as an argument stays a Python
value in Graph mode, so an argument without such evidence is "unknown", and unknown never raises a
diagnostic.

The facts are plain, hashable data per compiled function (`FunctionContext`), so the per-function
findings can be cached on the function's text plus its context and re-used after an edit elsewhere.
"""

from __future__ import annotations

import ast
import builtins
import re
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from .analysis import Analysis

INPUT_SHAPE = re.compile(r"#\s*spore:\s*input_shape\s*=\s*(.+?)\s*$")

# Spore ops that return one tensor (tests/lsp/test_deep_rules.py checks each against the engine).
SINGLE_OUTPUT_OPS = frozenset({
    "abs", "add", "sub", "mul", "div", "matmul", "bmm", "exp", "log", "sqrt", "rsqrt", "square", "neg", "relu",
    "relu6", "sigmoid", "tanh", "gelu", "silu", "softmax", "log_softmax", "sin", "cos", "pow", "maximum",
    "minimum", "clamp", "clip", "where", "equal", "not_equal", "greater", "greater_equal", "less", "less_equal",
    "gt", "ge", "lt", "le", "ne", "logical_and", "logical_or", "logical_not", "sum", "mean", "prod", "amax",
    "amin", "all", "any", "argmax", "argmin", "reduce_sum", "reduce_mean", "reduce_max", "reduce_min",
    "reduce_prod", "norm", "logsumexp", "reshape", "transpose", "permute", "squeeze", "unsqueeze", "expand_dims",
    "flatten", "concat", "cat", "stack", "tile", "broadcast_to", "cast", "zeros", "ones", "zeros_like",
    "ones_like", "full", "fill", "mse_loss", "l1_loss", "cross_entropy", "cumsum", "floor", "ceil", "sign",
    "masked_fill", "one_hot",
})
# ... of which these, called on one tensor without an axis, reduce it to one element
FULL_REDUCTIONS = frozenset({"sum", "mean", "prod", "amax", "amin", "all", "any", "reduce_sum", "reduce_mean",
                             "reduce_max", "reduce_min", "reduce_prod", "norm", "argmax", "argmin",
                             "max", "min"})
# Tensor methods that return one tensor
TENSOR_METHODS = frozenset({
    "abs", "add", "sub", "mul", "div", "matmul", "exp", "log", "sqrt", "square", "neg", "relu", "sigmoid", "tanh",
    "softmax", "pow", "clamp", "clip", "sum", "mean", "prod", "amax", "amin", "all", "any", "argmax", "argmin",
    "norm", "max", "min", "reshape", "view", "transpose", "permute", "squeeze", "unsqueeze", "expand_dims",
    "flatten", "astype", "float", "int", "double", "half", "long", "tile", "broadcast_to", "floor", "ceil", "round",
    "sign", "masked_fill", "cumsum", "eq", "ne", "gt", "ge", "lt", "le", "logical_not", "clone", "copy", "detach",
})
# Spore layers whose call returns one tensor
SINGLE_OUTPUT_LAYERS = frozenset({
    "Dense", "Conv1d", "Conv2d", "ReLU", "ReLU6", "Sigmoid", "Tanh", "GELU", "FastGelu", "SiLU", "Softmax",
    "LogSoftmax", "Flatten", "MaxPool1d", "MaxPool2d", "AvgPool1d", "AvgPool2d", "AdaptiveAvgPool1d",
    "AdaptiveAvgPool2d", "BatchNorm1d", "BatchNorm2d", "LayerNorm", "GroupNorm", "Dropout", "Embedding", "Identity",
    "LeakyReLU", "ELU", "Mish", "HSigmoid", "HSwish", "Softplus", "Softsign", "PReLU", "LogSigmoid",
    "MSELoss", "L1Loss", "CrossEntropyLoss", "BCELoss", "BCEWithLogitsLoss", "SmoothL1Loss", "NLLLoss",
})
_SITE_BUILTINS = frozenset({"copyright", "credits", "exit", "quit", "help", "license"})  # added by `site`
BUILTIN_EXCEPTIONS = frozenset(n for n in dir(builtins) if isinstance(getattr(builtins, n), type)
                               and issubclass(getattr(builtins, n), BaseException))
_ALLOWED_CLASS_DECORATORS = ("dataclass", "dataclasses.dataclass")


@dataclass(frozen=True)
class FunctionContext:
    """The document's facts one compiled function's check reads (hashable: part of the cache key)."""

    tensor_params: frozenset[str]                  # arguments known to arrive as tensors
    attrs: tuple[tuple[str, str], ...]             # self.<attr> -> "layer:Dense" | "param" | "plain:Class" |
    #                                                "param-written" (a Parameter other methods assign too)
    plain_classes: tuple[tuple[str, tuple[tuple[str, str], ...]], ...]  # class -> ((method, kind), ...)
    plain_instances: tuple[tuple[str, str], ...]   # module name -> its plain class
    user_exceptions: frozenset[str]                # file classes deriving from a builtin exception
    bound: frozenset[str]                          # builtin names the file rebinds (not builtins there)

    def attr(self, name: str) -> str | None:
        return dict(self.attrs).get(name)

    def methods(self, cls: str) -> dict[str, str] | None:
        found = dict(self.plain_classes).get(cls)
        return None if found is None else dict(found)

    def instance_class(self, name: str) -> str | None:
        return dict(self.plain_instances).get(name)


@dataclass
class DocumentFacts:
    """Per document: every binding name, the plain classes, the Cell attributes, the call sites."""

    binding_counts: dict[str, int]
    plain: dict[str, dict[str, str]]
    plain_instances: dict[str, str]
    user_exceptions: set[str]
    class_attrs: dict[str, dict[str, str]]
    call_evidence: dict[str, set[int]]   # class or function name -> positions called with a Spore tensor
    bound_builtins: frozenset[str]       # builtin names the file binds somewhere

    def __post_init__(self) -> None:
        self.plain_key = tuple(sorted((k, tuple(sorted(v.items()))) for k, v in self.plain.items()))
        self.instances_key = tuple(sorted(self.plain_instances.items()))
        self.exceptions_key = frozenset(self.user_exceptions)


_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_SKIP = (ast.expr_context, ast.operator, ast.boolop, ast.unaryop, ast.cmpop)


def _nodes(root: ast.AST) -> list[ast.AST]:
    """Every node under `root`, breadth first (as the analysis walks: faster than ast.walk)."""
    out: list[ast.AST] = [root]
    append, node_t = out.append, ast.AST
    for node in out:
        for name in node._fields:
            value = getattr(node, name, None)
            if value.__class__ is list:
                for child in value:
                    if isinstance(child, node_t) and not isinstance(child, _SKIP):
                        append(child)
            elif isinstance(value, node_t) and not isinstance(value, _SKIP):
                append(value)
    return out


@dataclass
class _Part:
    """What one top-level statement contributes to the document's facts (no line numbers: it is cached
    on the statement's text and re-used wherever the statement moves)."""

    counts: dict[str, int]                       # name -> bindings in the statement
    pairs: list[tuple[str, str]]                 # `name = Callee(...)`: a candidate instance of Callee
    args: list[tuple[str, bool, int, str]]       # (callee, called through `Callee()(...)`, position, "T" or a name)
    classes: list[tuple[str, dict[str, tuple[int, int, str | None]]]]  # class -> attr -> (writes, in init, kind)


def _part(an: Analysis, stmt: ast.stmt) -> _Part:
    counts: dict[str, int] = {}
    get = counts.get
    pairs: list[tuple[str, str]] = []
    args: list[tuple[str, bool, int, str]] = []
    classes: list[tuple[str, dict[str, tuple[int, int, str | None]]]] = []
    name_t, load_t, call_t, arg_t, assign_t = ast.Name, ast.Load, ast.Call, ast.arg, ast.Assign
    for node in _nodes(stmt):
        t = type(node)
        if t is name_t:
            if type(node.ctx) is not load_t:
                counts[node.id] = get(node.id, 0) + 1
        elif t is call_t:
            if node.args:
                f = node.func
                callee = f.id if type(f) is name_t else f.func.id if type(f) is call_t and type(f.func) is name_t \
                    else None
                if callee is not None:
                    for i, a in enumerate(node.args):
                        if type(a) is ast.Starred:
                            break
                        desc = "T" if tensor_valued(an, a) else a.id if type(a) is name_t else None
                        if desc is not None:
                            args.append((callee, type(f) is call_t, i, desc))
        elif t is arg_t:
            counts[node.arg] = get(node.arg, 0) + 1
        elif t is assign_t:
            if len(node.targets) == 1 and type(node.targets[0]) is name_t and type(node.value) is call_t \
                    and type(node.value.func) is name_t:
                pairs.append((node.targets[0].id, node.value.func.id))
        elif t in _DEFS:
            counts[node.name] = get(node.name, 0) + 1
            if t is ast.ClassDef:
                classes.append((node.name, _class_raw(an, node)))
        elif t is ast.Import or t is ast.ImportFrom:
            for a in node.names:
                n = a.asname or a.name.split(".")[0]
                counts[n] = get(n, 0) + 1
        elif t is ast.Global or t is ast.Nonlocal:
            for n in node.names:
                counts[n] = get(n, 0) + 1
        elif t is ast.ExceptHandler and node.name:
            counts[node.name] = get(node.name, 0) + 1
    return _Part(counts, pairs, args, classes)


_PART_CACHE: OrderedDict[tuple[Any, ...], _Part] = OrderedDict()
_PART_CACHE_SIZE = 8192


def _parts(an: Analysis) -> list[_Part]:
    """The parts of the module's top-level statements, each cached on its text and the file's imports (an
    edit re-reads only the statements it touched)."""
    tree = an.tree
    aliases = tuple(sorted(an.aliases.items()))
    lines = an.program.lines
    out = []
    for stmt in tree.body if tree is not None else []:
        first = min([stmt.lineno] + [d.lineno for d in getattr(stmt, "decorator_list", ())])
        last = stmt.end_lineno or stmt.lineno
        key = ("\n".join(lines[first - 1:last]), stmt.col_offset, stmt.end_col_offset, aliases)
        part = _PART_CACHE.get(key)
        if part is None:
            part = _PART_CACHE[key] = _part(an, stmt)
            if len(_PART_CACHE) > _PART_CACHE_SIZE:
                _PART_CACHE.popitem(last=False)
        else:
            _PART_CACHE.move_to_end(key)
        out.append(part)
    return out


def dotted(node: ast.expr) -> str | None:
    """``a.b.c`` for a chain of attributes on a name, else None (cheaper than ast.unparse)."""
    parts: list[str] = []
    while type(node) is ast.Attribute:
        parts.append(node.attr)
        node = node.value
    if type(node) is not ast.Name:
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


def is_builtin(name: str, bound: frozenset[str] | set[str] | dict[str, int]) -> bool:
    """`name` means Python's builtin in this file (it is one, and the file never binds the name)."""
    return name not in bound and name not in _SITE_BUILTINS and hasattr(builtins, name)


def _class_kind(cls: ast.ClassDef, plain: dict[str, dict[str, str]], exceptions: set[str], counts: dict[str, int],
                bound: dict[str, int]) -> str | None:
    """"plain" (certainly not a Cell, Tensor or exception), "exception", or None (cannot tell)."""
    if counts.get(cls.name, 0) != 1 or cls.keywords:
        return None
    if any(ast.unparse(d) not in _ALLOWED_CLASS_DECORATORS for d in cls.decorator_list):
        return None
    kinds = set()
    for base in cls.bases:
        if isinstance(base, ast.Name) and base.id == "object" and is_builtin("object", bound):
            kinds.add("plain")
        elif isinstance(base, ast.Name) and base.id in plain:
            kinds.add("plain")
        elif isinstance(base, ast.Name) and (base.id in exceptions or (base.id in BUILTIN_EXCEPTIONS
                                                                        and is_builtin(base.id, bound))):
            kinds.add("exception")
        else:
            return None
    if not kinds or kinds == {"plain"}:
        return "plain"
    return "exception" if kinds == {"exception"} else None


def _methods(cls: ast.ClassDef, plain: dict[str, dict[str, str]]) -> dict[str, str]:
    """Method name -> "plain" (a def: bound to an instance it is a method the compiler cannot trace),
    "static" or "other" (decorated: what it becomes is not certain); inherited from plain bases."""
    out: dict[str, str] = {}
    for base in reversed(cls.bases):
        if isinstance(base, ast.Name) and base.id in plain:
            out.update(plain[base.id])
    for item in cls.body:
        if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
            out[item.name] = "plain" if not item.decorator_list else "other"
        elif isinstance(item, (ast.Assign, ast.AnnAssign)):
            for t in item.targets if isinstance(item, ast.Assign) else [item.target]:
                if isinstance(t, ast.Name):
                    out[t.id] = "other"
    if "__getattr__" in out or "__getattribute__" in out:
        return {k: "other" for k in out}
    return out


def tensor_valued(an: Analysis, node: ast.expr, module_tensors: set[str] | None = None) -> bool:
    """An expression that certainly makes a Spore tensor (``ms.Tensor(...)``, ``ops.ones(...)``)."""
    if isinstance(node, ast.Name):
        return module_tensors is not None and node.id in module_tensors
    if type(node) is not ast.Call:
        return False
    name = dotted(node.func)
    qual = an.resolve(name) if name is not None else None
    if qual in ("spore.Tensor", "spore.Parameter"):
        return True
    return qual is not None and qual.startswith("ops.") and qual[4:] in SINGLE_OUTPUT_OPS


def document_facts(an: Analysis) -> DocumentFacts:
    """The document's facts, from the cached parts of its top-level statements plus its top level."""
    parts = _parts(an)
    counts: dict[str, int] = {}
    for part in parts:
        for k, v in part.counts.items():
            counts[k] = counts.get(k, 0) + v
    tree = an.tree
    top = tree.body if tree is not None else []
    plain: dict[str, dict[str, str]] = {}
    exceptions: set[str] = set()
    for stmt in top:  # in order: a base is defined before the classes deriving from it
        if isinstance(stmt, ast.ClassDef):
            kind = _class_kind(stmt, plain, exceptions, counts, counts)
            if kind == "plain":
                plain[stmt.name] = _methods(stmt, plain)
            elif kind == "exception":
                exceptions.add(stmt.name)
    instances: dict[str, str] = {}
    module_tensors: set[str] = set()
    for stmt in top:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            name = stmt.targets[0].id
            if counts.get(name, 0) != 1:
                continue
            value = stmt.value
            if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in plain:
                instances[name] = value.func.id
            elif tensor_valued(an, value):
                module_tensors.add(name)
    class_attrs: dict[str, dict[str, str]] = {}
    instance_of: dict[str, str] = {}
    evidence: dict[str, set[int]] = {}
    for part in parts:
        for cls, raw in part.classes:
            class_attrs[cls] = _attr_kinds(raw, plain)
        for name, callee in part.pairs:
            if counts.get(name, 0) == 1:
                instance_of[name] = callee
    for part in parts:  # net = Net(); net(ms.Tensor(...)) / Net()(X) / step(ops.ones(...))
        for callee, direct, i, desc in part.args:
            if desc == "T" or desc in module_tensors:
                evidence.setdefault(callee if direct else instance_of.get(callee, callee), set()).add(i)
    return DocumentFacts(counts, plain, instances, exceptions, class_attrs, evidence,
                         frozenset(n for n in counts if hasattr(builtins, n)))


def _class_raw(an: Analysis, cls: ast.ClassDef) -> dict[str, tuple[int, int, str | None]]:
    """``self.<attr>`` of a class: how often its methods write it, how often ``__init__`` does, and what
    ``__init__`` binds it to (``param``, ``layer:Dense``, ``call:Name`` for a class of the file, or None)."""
    writes: dict[str, int] = {}
    init_writes: dict[str, int] = {}
    found: dict[str, str] = {}
    for item in cls.body:
        if type(item) not in (ast.FunctionDef, ast.AsyncFunctionDef) or not item.args.args:
            continue
        me = item.args.args[0].arg
        for node in _nodes(item):
            t = type(node)
            if t is ast.Attribute and type(node.ctx) is not ast.Load and type(node.value) is ast.Name \
                    and node.value.id == me:
                writes[node.attr] = writes.get(node.attr, 0) + 1
                if item.name == "__init__":
                    init_writes[node.attr] = init_writes.get(node.attr, 0) + 1
            elif t is ast.Assign and item.name == "__init__" and len(node.targets) == 1:
                target = node.targets[0]
                if type(target) is ast.Attribute and type(target.value) is ast.Name and target.value.id == me:
                    kind = _value_kind(an, node.value)
                    if kind is not None:
                        found[target.attr] = kind
    return {k: (n, init_writes.get(k, 0), found.get(k)) for k, n in writes.items()}


def _attr_kinds(raw: dict[str, tuple[int, int, str | None]], plain: dict[str, dict[str, str]]) -> dict[str, str]:
    """An attribute written once (in __init__) keeps its kind; a Parameter __init__ makes once and other
    methods write is "param-written" (the self_assign fix updates it in place)."""
    out: dict[str, str] = {}
    for attr, (writes, init_writes, kind) in raw.items():
        if kind is not None and kind.startswith("call:"):
            kind = f"plain:{kind[5:]}" if kind[5:] in plain else None
        if kind is None:
            continue
        if writes == 1:
            out[attr] = kind
        elif kind == "param" and init_writes == 1:
            out[attr] = "param-written"
    return out


def _value_kind(an: Analysis, value: ast.expr) -> str | None:
    if type(value) is not ast.Call:
        return None
    if type(value.func) is ast.Name and an.resolve(value.func.id) is None:
        return f"call:{value.func.id}"
    name = dotted(value.func)
    qual = an.resolve(name) if name is not None else None
    if qual == "spore.Parameter":
        return "param"
    if qual is not None and qual.startswith("nn.") and qual[3:] in SINGLE_OUTPUT_LAYERS:
        return f"layer:{qual[3:]}"
    return None


def _comment_count(an: Analysis, fn: ast.FunctionDef) -> int:
    """How many inputs a ``# spore: input_shape=...`` comment on (or just above) the def describes."""
    first = min([fn.lineno] + [d.lineno for d in fn.decorator_list]) - 1
    for line in (fn.lineno - 1, first - 1):
        if line < 0:
            continue
        m = INPUT_SHAPE.search(an.program.line_text(line))
        if m is None:
            continue
        try:
            spec = ast.parse(m.group(1), mode="eval").body
        except SyntaxError:
            return 0
        if isinstance(spec, ast.Tuple) and spec.elts and all(isinstance(e, ast.Tuple) for e in spec.elts):
            return len(spec.elts)
        return 1
    return 0


def _is_tensor_annotation(an: Analysis, node: ast.expr | None) -> bool:
    name = dotted(node) if node is not None else None
    return name is not None and an.resolve(name) in ("spore.Tensor", "spore.Parameter")


def function_context(an: Analysis, doc: DocumentFacts, fn: ast.FunctionDef, owner: str | None) -> FunctionContext:
    """The facts `fn`'s check reads (`owner`: the class it is a method of)."""
    params = list(fn.args.posonlyargs) + list(fn.args.args)
    if owner is not None and params:
        params = params[1:]
    n_defaults = len(fn.args.defaults)
    required = params[:len(params) - n_defaults] if n_defaults else params
    tensors = {p.arg for p in params + list(fn.args.kwonlyargs) if _is_tensor_annotation(an, p.annotation)}
    tensors.update(p.arg for p in required[:_comment_count(an, fn)])
    evidence = doc.call_evidence.get(owner if owner is not None else fn.name, set())
    tensors.update(p.arg for i, p in enumerate(params) if i in evidence)
    return FunctionContext(
        tensor_params=frozenset(tensors),
        attrs=tuple(sorted(doc.class_attrs.get(owner, {}).items())) if owner is not None else (),
        plain_classes=doc.plain_key,
        plain_instances=doc.instances_key,
        user_exceptions=doc.exceptions_key,
        bound=doc.bound_builtins,
    )
