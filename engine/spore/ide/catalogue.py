"""The op catalogue: every public op's declaration as plain data, and which public names apply it.

Hover docs, completion, signature help and the language server's shape inference all need the
same facts: an op's name, docstring, shape-rule signature and attribute defaults, its flags, and
which public functions, class forms, Tensor methods and `nn` layers run it. They are read from the
registry (the declaration) and from Spore's own code, once per process, never from user code.

Which primitives a public name applies is found by following its bytecode: a global or module
attribute that is a `Primitive` is applied; one that is another Spore function or class is
followed (up to `_DEPTH` calls deep, so `ops.MatMul()` -> `ops.matmul` -> `MatMul` is found and
`nn.Dense` lists `MatMul` and `BiasAdd`). tests/ide/test_catalogue.py checks the result against a
dynamic oracle: the ops an observer sees when each public name runs on the differential test's
inputs. The list is of the ops a name calls by name; operators and method calls on values
(``x + b``, ``x.reshape(...)``) are not followed, because the bytecode does not say whether the
operand is a tensor and, in the engine, most of them work on shapes and Python numbers (following
them would list, for every layer, the ops of its shape checks and error messages).
"""

from __future__ import annotations

import dis
import functools
import importlib
import importlib.util
import inspect
import sys
import types
from typing import Any

from ..errors import is_engine_code

_DEPTH = 5
_LOADS = frozenset({"LOAD_GLOBAL", "LOAD_NAME", "LOAD_DEREF", "LOAD_CLASSDEREF"})
_LOCAL_LOADS = frozenset({"LOAD_FAST", "LOAD_FAST_CHECK", "LOAD_CLOSURE", "LOAD_DEREF", "LOAD_CLASSDEREF"})
_LOCAL_STORES = frozenset({"STORE_FAST", "STORE_DEREF", "STORE_NAME"})
_ATTRS = frozenset({"LOAD_ATTR", "LOAD_METHOD"})


def _is_spore(obj: Any) -> bool:
    """Spore's own function, class or object (the engine's one test), never a string a module holds."""
    return not isinstance(obj, str) and is_engine_code(obj)


def _functions(obj: Any) -> list[types.FunctionType]:
    """The Python functions that run when `obj` is called (a class: its __init__, __call__ and
    construct, through its Spore base classes)."""
    if isinstance(obj, (staticmethod, classmethod)):
        obj = obj.__func__
    if inspect.ismethod(obj):
        obj = obj.__func__
    if isinstance(obj, property):
        return [f for f in (obj.fget, obj.fset) if inspect.isfunction(f)]
    if inspect.isfunction(obj):
        return [obj]
    if inspect.isclass(obj):
        out = []
        for klass in obj.__mro__:
            if not _is_spore(klass) or klass.__name__ in ("Cell", "Operation"):
                continue
            for name in ("__init__", "__call__", "construct"):
                m = klass.__dict__.get(name)
                if isinstance(m, (staticmethod, classmethod)):
                    m = m.__func__
                if inspect.isfunction(m):
                    out.append(m)
        return out
    return []


def _nested(code: types.CodeType) -> list[types.CodeType]:
    out = [code]
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            out.extend(_nested(c))
    return out


def _imported_module(name: str, level: Any, globals_: dict[str, Any]) -> types.ModuleType | None:
    """The module an ``IMPORT_NAME`` in a function of `globals_` binds (relative names resolved
    against its package); Spore's own modules are imported if not loaded yet, others only read
    from `sys.modules` (the catalogue never loads a third-party library)."""
    try:
        absolute = importlib.util.resolve_name("." * level + name, globals_.get("__package__")) \
            if isinstance(level, int) and level > 0 else name
    except (ImportError, ValueError):
        return None
    module = sys.modules.get(absolute)
    if module is None and (absolute == "spore" or absolute.startswith("spore.")):
        try:
            module = importlib.import_module(absolute)
        except ImportError:
            return None
    return module


def _imported_name(module: types.ModuleType | None, name: str) -> Any:
    """``from module import name``: the attribute, or the submodule of that name."""
    if module is None:
        return None
    value = getattr(module, name, None)
    return value if value is not None else sys.modules.get(f"{module.__name__}.{name}")


def _referenced(obj: Any) -> list[Any]:
    """What `obj`'s code calls by name: the globals and closure values it loads, the names it
    imports inside the function (``from .linalg import BatchMatMul`` in a body, common in the ops
    modules to avoid import cycles), the module a lazy accessor returns (``_ops().gather``), and
    attributes of those that are modules or classes."""
    found: list[Any] = []
    for fn in _functions(obj):
        found.extend(_scan(fn)[0])
    return found


def _scan(fn: types.FunctionType) -> tuple[list[Any], dict[str, Any]]:
    """(what `fn`'s code loads by name, the local names its imports bind), nested code included."""
    found: list[Any] = []
    g = fn.__globals__
    closure = {}
    for name, cell in zip(fn.__code__.co_freevars, fn.__closure__ or ()):
        try:
            closure[name] = cell.cell_contents
        except ValueError:
            continue
    local: dict[str, Any] = {}  # names bound by imports in the body (shared with nested code)
    for code in _nested(fn.__code__):
        last: Any = None
        consts: list[Any] = []  # the last two constants: an import's level and fromlist
        module: types.ModuleType | None = None  # the module an import left on the stack
        pending: Any = None  # what the next store binds, if it is an import's (or accessor's) result
        accessor: types.ModuleType | None = None  # the module `last()` would return
        for ins in dis.get_instructions(code):
            op = ins.opname
            if op == "IMPORT_NAME":
                level, fromlist = consts if len(consts) == 2 else (0, None)
                module = _imported_module(ins.argval, level, g)
                if fromlist is None and module is not None and "." in ins.argval:
                    module = sys.modules.get(ins.argval.split(".", 1)[0])  # `import a.b` pushes a
                pending, last, accessor = module, None, None
                continue
            if op == "IMPORT_FROM":
                pending, last, accessor = _imported_name(module, ins.argval), None, None
                continue
            if op in ("PRECALL", "CALL") and ins.arg == 0 and accessor is not None:
                if op == "CALL":
                    pending = last = accessor
                    accessor = None
                continue
            accessor = None
            if op in _LOCAL_STORES and pending is not None:
                local[ins.argval] = pending
                pending = last = None
                continue
            pending = None
            if op == "LOAD_CONST":
                consts = [*consts, ins.argval][-2:]
                last = None
                continue
            consts = []
            if op in _LOCAL_LOADS and ins.argval in local:
                last = local[ins.argval]
                found.append(last)
                accessor = _accessor_module(last)
                continue
            if op in _LOADS:
                last = closure[ins.argval] if ins.argval in closure else g.get(ins.argval)
                if last is not None:
                    found.append(last)
                    accessor = _accessor_module(last)
                continue
            if op in _ATTRS:
                if isinstance(last, types.ModuleType) or inspect.isclass(last):
                    last = getattr(last, ins.argval, None)
                    if last is not None:
                        found.append(last)
                    continue
            last = None
    return found, local


_ACCESSORS: dict[int, tuple[Any, types.ModuleType | None]] = {}


def _accessor_module(obj: Any) -> types.ModuleType | None:
    """The module a lazy accessor returns: a Spore function of no arguments whose body imports a
    module and returns it (``def _ops(): from . import ops; return ops``, used where a module-level
    import would be a cycle). None for anything else."""
    if not inspect.isfunction(obj) or not _is_spore(obj):
        return None
    hit = _ACCESSORS.get(id(obj))
    if hit is not None and hit[0] is obj:
        return hit[1]
    code, out = obj.__code__, None
    takes_arguments = code.co_argcount or code.co_kwonlyargcount or code.co_flags & (inspect.CO_VARARGS
                                                                                    | inspect.CO_VARKEYWORDS)
    if not takes_arguments:
        body = [i for i in dis.get_instructions(code) if i.opname not in ("RESUME", "NOP", "COPY_FREE_VARS")]
        if len(body) >= 2 and body[-1].opname == "RETURN_VALUE" and body[-2].opname in _LOCAL_LOADS:
            value = _scan(obj)[1].get(body[-2].argval)
            out = value if isinstance(value, types.ModuleType) else None
    _ACCESSORS[id(obj)] = (obj, out)
    return out


_MEMO: dict[tuple[int, int], tuple[Any, list[Any]]] = {}


def _applies(obj: Any, budget: int, stack: set[int]) -> list[Any]:
    """The primitives `obj` applies, following Spore functions `budget` calls deep."""
    from ..ops.primitive import Primitive

    if isinstance(obj, Primitive):
        return [obj]
    if obj is None or budget < 0 or id(obj) in stack or not _is_spore(obj):
        return []
    hit = _MEMO.get((id(obj), budget))
    if hit is not None and hit[0] is obj:
        return hit[1]
    stack.add(id(obj))
    refs = _referenced(obj)
    out: list[Any] = []
    for ref in refs:  # the primitives it applies itself come first, then those of its helpers
        if isinstance(ref, Primitive) and ref not in out:
            out.append(ref)
    for ref in refs:
        for p in _applies(ref, budget - 1, stack):
            if p not in out:
                out.append(p)
    stack.discard(id(obj))
    _MEMO[(id(obj), budget)] = (obj, out)  # (a walk cut by a cycle is memoized as seen: good enough for docs)
    return out


def primitives_of(obj: Any) -> list[Any]:
    """The registered primitives a public API object applies (its own first)."""
    from ..ops.primitive import INTERNAL, Primitive

    if isinstance(obj, Primitive):
        return [obj]
    return [p for p in _applies(obj, _DEPTH, set()) if p.name not in INTERNAL]


def public_api() -> dict[str, Any]:
    """Every public name of the op surfaces: ``ops.<name>``, ``Tensor.<name>``, ``nn.<name>``."""
    import spore
    from spore import nn, ops

    out: dict[str, Any] = {}
    for name in getattr(ops, "__all__", dir(ops)):
        obj = getattr(ops, name, None)
        if not name.startswith("_") and (inspect.isfunction(obj) or inspect.isclass(obj)) and _is_spore(obj):
            out[f"ops.{name}"] = obj
    for name, obj in vars(spore.Tensor).items():
        if not name.startswith("_") and (inspect.isfunction(obj) or isinstance(obj, property)):
            out[f"Tensor.{name}"] = obj
    for name in dir(nn):
        obj = getattr(nn, name, None)
        if not name.startswith("_") and inspect.isclass(obj) and _is_spore(obj):
            out[f"nn.{name}"] = obj
    return out


@functools.lru_cache(maxsize=1)
def _api_index() -> dict[str, list[str]]:
    """Primitive name -> the public names that apply it."""
    index: dict[str, list[str]] = {}
    for qual, obj in public_api().items():
        for p in primitives_of(obj):
            index.setdefault(p.name, []).append(qual)
    return index


def _signature(fn: Any, name: str) -> str:
    try:
        return f"{name}{inspect.signature(fn)}"
    except (TypeError, ValueError):
        return f"{name}(...)"


def op_entry(prim: Any) -> dict[str, Any]:
    """One primitive's declaration as plain data."""
    inputs: list[str] = []
    attrs: dict[str, Any] = {}
    try:
        for p in inspect.signature(prim.infer).parameters.values():
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty:
                inputs.append(p.name)
            elif p.kind is p.VAR_POSITIONAL:
                inputs.append("*" + p.name)
            elif p.kind is not p.VAR_KEYWORD:
                attrs[p.name] = None if p.default is p.empty else repr(p.default)
    except (TypeError, ValueError):
        pass
    return {
        "name": prim.name,
        "doc": prim.doc,
        "shape_rule": _signature(prim.infer, "infer"),
        "inputs": inputs,
        "attrs": attrs,
        "differentiable": prim.vjp is not None and not prim.nondiff,
        "multi_output": prim.multi_output,
        "random": prim.random,
        "side_effect": prim.side_effect,
        "elementwise": prim.ufunc is not None,
        "onnx": prim.onnx is not None,
        "api": list(_api_index().get(prim.name, [])),
    }


def op_catalogue() -> list[dict[str, Any]]:
    """Every public op of the registry, sorted by name (see `op_entry` for the fields)."""
    from ..ops.primitive import REGISTRY

    return [op_entry(REGISTRY[name]) for name in sorted(REGISTRY)]


def op(name: str) -> dict[str, Any] | None:
    """One op's entry by its registry name (``"MatMul"``), or None."""
    from ..ops.primitive import REGISTRY

    prim = REGISTRY.get(name)
    return None if prim is None else op_entry(prim)


def is_spore_api(obj: Any) -> bool:
    """True for functions, classes and primitives that Spore itself defines."""
    from ..ops.primitive import Primitive

    if isinstance(obj, Primitive):
        return True
    if not (inspect.isfunction(obj) or inspect.isclass(obj) or inspect.ismethod(obj) or inspect.isbuiltin(obj)):
        return False
    return _is_spore(obj)


def describe(obj: Any) -> dict[str, Any] | None:
    """What an editor shows for a Spore API object: signature, docstring, module, the ops it applies."""
    from ..ops.primitive import Primitive

    if not is_spore_api(obj):
        return None
    if isinstance(obj, Primitive):
        entry = op_entry(obj)
        return {"name": obj.name, "signature": entry["shape_rule"].replace("infer", obj.name, 1), "doc": None,
                "module": "spore.ops", "ops": [entry]}
    name = getattr(obj, "__name__", type(obj).__name__)
    return {"name": name, "signature": _signature(obj, name), "doc": inspect.getdoc(obj),
            "module": getattr(obj, "__module__", None), "ops": [op_entry(p) for p in primitives_of(obj)]}


def lookup(name: str) -> Any:
    """Resolve an API name the user has not bound yet: ``ops.matmul``, ``MatMul``, ``nn.Dense``."""
    import spore
    from spore import nn, ops

    from ..ops.primitive import REGISTRY

    head, _, last = name.rpartition(".")
    if not last.isidentifier():
        return None
    spaces: list[Any] = [ops, nn, spore]
    # A qualified name is looked up in the namespace it names first: `nn.Dense` is the layer even
    # though `ops.Dense` (MindSpore's primitive class) also exists; `Tensor.x` is the method.
    qualifier = {"ops": ops, "nn": nn, "spore": spore, "ms": spore, "mindspore": spore,
                 "Tensor": spore.Tensor}.get(head.rsplit(".", 1)[-1])
    if qualifier is not None:
        spaces.insert(0, qualifier)
    for space in spaces:
        obj = getattr(space, last, None)
        if obj is not None and not isinstance(obj, types.ModuleType):
            return obj
    if last in REGISTRY:
        return REGISTRY[last]
    target = last.replace("_", "").lower()
    for key, p in REGISTRY.items():
        if key.replace("_", "").lower() == target:
            return p
    return None
