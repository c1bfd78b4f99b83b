"""The `.pyi` stubs are what Pyright, Pylance, jedi and the language server see of `spore.Tensor` and
`spore.ops` (whose members are attached at import time). They are generated; these tests keep them
honest: (a) the checked-in files are what `python -m spore._stubgen` writes from today's code, and
(b) read with `ast`, independently of the generator, they declare exactly the names the running
objects have, each with the runtime's parameter names, kinds and defaults.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import math
import subprocess
import sys
import tomllib
import types
from pathlib import Path
from typing import Any

import pytest

import spore
import spore.ops as ops
import spore.tensor as tensor_mod
from spore.ops.operation import Operation

ROOT = Path(__file__).resolve().parents[2]
PKG = ROOT / "engine" / "spore"
TENSOR_STUB = PKG / "tensor.pyi"
OPS_STUB = PKG / "ops" / "__init__.pyi"
FUNCTIONAL_STUB = PKG / "ops" / "functional.pyi"
REGENERATE = "python -m spore._stubgen"
P = inspect.Parameter
# plumbing every class has; never API
SKIP = {"__module__", "__doc__", "__slots__", "__dict__", "__weakref__", "__qualname__", "__annotations__",
        "__firstlineno__", "__static_attributes__", "__orig_bases__", "__parameters__",
        "__getattr__"  # Tensor's raise-only fallback: a stub declaring it would accept every attribute
        }


# --- (a) the stubs are current ---------------------------------------------------------------------
def test_checked_in_stubs_are_what_the_generator_writes_now():
    # a fresh interpreter, as a developer runs it: what other tests imported cannot change the answer
    r = subprocess.run([sys.executable, "-m", "spore._stubgen", "--check"], capture_output=True, text=True,
                       cwd=ROOT, timeout=300)
    assert r.returncode == 0, (
        f"the .pyi stubs are stale (an op, Tensor method or signature changed): run `{REGENERATE}` "
        f"(from {ROOT}: `.venv/bin/python -m spore._stubgen`) and commit engine/spore/tensor.pyi, "
        f"engine/spore/ops/__init__.pyi and engine/spore/ops/functional.pyi.\n{r.stderr}\n{r.stdout[:6000]}")
    # every annotation resolved: none fell back to Any
    assert "written as Any" not in r.stderr, r.stderr


def test_stubs_and_py_typed_ship_in_the_package():
    assert (PKG / "py.typed").is_file()
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]["spore"]
    shipped = {p for pat in data for p in PKG.glob(pat)}  # setuptools' glob: `*` stays in one folder
    for path in (TENSOR_STUB, OPS_STUB, FUNCTIONAL_STUB, PKG / "py.typed"):
        assert path in shipped, f"{path.relative_to(PKG)} is not in [tool.setuptools.package-data]"


# --- reading a stub --------------------------------------------------------------------------------
def _parse(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def _exported(tree: ast.Module | ast.ClassDef) -> dict[str, ast.AST]:
    """Names a stub scope declares: defs, classes, annotated names and (module level) the explicit
    `from m import x as x` re-exports; a plain `from m import x` is not an export (PEP 484)."""
    out: dict[str, ast.AST] = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            out.setdefault(node.name, node)  # a property's setter repeats the name
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            out[node.target.id] = node
        elif isinstance(node, ast.ImportFrom):
            for a in node.names:
                if a.asname == a.name:
                    out[a.name] = node
    return out


def _decorators(fn: ast.FunctionDef) -> set[str]:
    return {ast.unparse(d) for d in fn.decorator_list}


def _stub_params(fn: ast.FunctionDef, drop_first: bool) -> list[tuple[str, Any, Any, str | None]]:
    """(name, kind, default, annotation text) per parameter; default is P.empty, Ellipsis for
    `...`, or the literal's value."""
    a = fn.args
    positional = [(x, P.POSITIONAL_ONLY) for x in a.posonlyargs] + [(x, P.POSITIONAL_OR_KEYWORD) for x in a.args]
    defaults: list[Any] = [P.empty] * (len(positional) - len(a.defaults)) + list(a.defaults)
    rows: list[tuple[ast.arg, Any, Any]] = [(x, k, d) for (x, k), d in zip(positional, defaults)]
    if a.vararg:
        rows.append((a.vararg, P.VAR_POSITIONAL, P.empty))
    rows += [(x, P.KEYWORD_ONLY, P.empty if d is None else d) for x, d in zip(a.kwonlyargs, a.kw_defaults)]
    if a.kwarg:
        rows.append((a.kwarg, P.VAR_KEYWORD, P.empty))
    if drop_first:
        assert rows, f"{fn.name}: a method without its self/cls parameter"
        rows = rows[1:]
    out = []
    for arg, kind, d in rows:
        if d is not P.empty:
            d = Ellipsis if isinstance(d, ast.Constant) and d.value is Ellipsis else ast.literal_eval(d)
        out.append((arg.arg, kind, d, ast.unparse(arg.annotation) if arg.annotation else None))
    return out


def _is_literal(value: Any) -> bool:
    """A default a stub must spell out: one that `repr` and `ast.literal_eval` give back unchanged."""
    if type(value) is float and not math.isfinite(value):
        return False
    try:
        back = ast.literal_eval(repr(value))
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return False
    return type(back) is type(value) and back == value


SIMPLE = {"Tensor", "int", "float", "bool", "str", "None"}


def _same_annotation(runtime: Any, stub: str | None) -> bool:
    """Plain annotations (`Tensor`, `int`...) must reach the stub as themselves, not as Any."""
    if not isinstance(runtime, str) or runtime not in SIMPLE:
        return True
    return stub in (runtime, f"builtins.{runtime}")


def _check_signature(where: str, sig: inspect.Signature, fn: ast.FunctionDef, drop_first: bool,
                     check_return: bool = True) -> None:
    got = _stub_params(fn, drop_first)
    want = list(sig.parameters.values())
    assert [(n, k) for n, k, _, _ in got] == [(p.name, p.kind) for p in want], \
        f"{where}: stub {[(n, str(k)) for n, k, _, _ in got]} != runtime {sig}"
    for (name, _, default, ann), p in zip(got, want):
        if p.default is P.empty:
            assert default is P.empty, f"{where}({name}): the stub has a default the runtime lacks"
        elif _is_literal(p.default):
            assert default is not Ellipsis and type(default) is type(p.default) and default == p.default, \
                f"{where}({name}): default {p.default!r} at run time, {default!r} in the stub"
        else:
            assert default is Ellipsis, f"{where}({name}): default {p.default!r} at run time, {default!r} in the stub"
        assert _same_annotation(p.annotation, ann), f"{where}({name}): annotated {p.annotation!r}, stub says {ann}"
    if check_return:
        ret = ast.unparse(fn.returns) if fn.returns else None
        assert _same_annotation(sig.return_annotation, ret), \
            f"{where}: returns {sig.return_annotation!r}, stub says {ret}"


def _sample(cls: type) -> Any:
    """An instance with the constructor's defaults (None when it needs arguments): its `__dict__`
    holds the attributes `__init__` sets, which the stub must declare too."""
    try:
        if issubclass(cls, spore.Parameter):
            return cls(spore.Tensor(0.0), name="p")
        if issubclass(cls, spore.Tensor):
            return cls(0.0)
        return cls()
    except Exception:  # noqa: BLE001 - needs arguments
        return None


def _check_class(where: str, cls: type, node: ast.ClassDef, stub_classes: dict[str, ast.ClassDef],
                 source_base: type, private: bool, call_from: type | None = None) -> None:
    """Names both ways, and every declared callable's signature against the runtime's.

    `source_base`: the nearest base the stub does not write (object, tuple, Operation re-exported),
    which static tools read from its own source or stub; its names count as declared.
    `private`: whether `_name` members are part of the contract (Tensor's are: the engine's own
    code uses them)."""
    chain = [node]
    while chain[-1].bases and ast.unparse(chain[-1].bases[0]) in stub_classes:
        chain.append(stub_classes[ast.unparse(chain[-1].bases[0])])
    declared: dict[str, ast.AST] = {}
    for c in chain:
        for name, n in _exported(c).items():
            declared.setdefault(name, n)
    sample = _sample(cls)

    def wanted(name: str) -> bool:
        if name in SKIP:
            return False
        return (private or not name.startswith("_")) if not (name.startswith("__") and name.endswith("__")) else True

    inherited = set(dir(source_base))
    own = {n for k in cls.__mro__ if k not in source_base.__mro__ for n in vars(k)}
    runtime = {n for n in dir(cls) if not n.startswith("_")} | {n for n in own if wanted(n)}
    runtime |= {n for n in getattr(sample, "__dict__", {}) if wanted(n)}
    missing = sorted(n for n in runtime if n not in declared and n not in inherited and wanted(n))
    assert not missing, f"{where}: the stub lacks {missing}"
    for name in declared:
        assert hasattr(cls, name) or hasattr(sample, name), f"{where}.{name} is in the stub, not at run time"

    for name, n in declared.items():
        if not isinstance(n, ast.FunctionDef):
            continue
        decos = _decorators(n)
        if name == "__init__" or name == "__new__":
            _check_signature(f"{where}()", inspect.signature(cls), n, drop_first=True, check_return=False)
            continue
        if name == "__call__" and call_from is not None:
            continue  # checked against what the call runs (construct) by the class-form test
        static = inspect.getattr_static(cls, name)
        if "property" in decos:
            assert isinstance(static, property), f"{where}.{name}: a property in the stub, not at run time"
            continue
        assert not isinstance(static, property), f"{where}.{name}: a property at run time, a method in the stub"
        if "staticmethod" in decos:
            assert isinstance(static, staticmethod), f"{where}.{name}: staticmethod only in the stub"
            _check_signature(f"{where}.{name}", inspect.signature(static.__func__), n, drop_first=False)
        elif "classmethod" in decos:
            assert isinstance(static, classmethod), f"{where}.{name}: classmethod only in the stub"
            _check_signature(f"{where}.{name}", inspect.signature(getattr(cls, name)), n, drop_first=True)
        else:
            # what a caller passes: the signature of the bound method (self dropped, whatever its name)
            bound = getattr(sample, name) if sample is not None else types.MethodType(getattr(cls, name), object())
            _check_signature(f"{where}.{name}", inspect.signature(bound), n, drop_first=True)


# --- (b) spore.tensor --------------------------------------------------------------------------------
def test_tensor_stub_declares_what_spore_tensor_defines_with_its_signatures():
    tree = _parse(TENSOR_STUB)
    declared = _exported(tree)
    runtime = {n: v for n, v in vars(tensor_mod).items()
               if (inspect.isclass(v) or inspect.isfunction(v)) and v.__module__ == "spore.tensor"}
    assert set(declared) == set(runtime), (
        f"tensor.pyi declares {sorted(set(declared) - set(runtime))} that spore.tensor lacks, and lacks "
        f"{sorted(set(runtime) - set(declared))}; run `{REGENERATE}`")
    classes = {n: node for n, node in declared.items() if isinstance(node, ast.ClassDef)}
    for name, value in runtime.items():
        node = declared[name]
        if inspect.isclass(value):
            assert isinstance(node, ast.ClassDef), name
            # the nearest base the stub does not write (object, tuple) is read from its own stub
            source = next(b for b in value.__mro__[1:] if b.__name__ not in classes)
            _check_class(f"spore.tensor.{name}", value, node, classes, source_base=source, private=True)
        else:
            assert isinstance(node, ast.FunctionDef), name
            _check_signature(f"spore.tensor.{name}", inspect.signature(value), node, drop_first=False)


def test_every_tensor_method_attached_by_the_ops_modules_is_in_the_stub():
    # the point of the stub: methods that exist only after `@tensor_method` ran
    tensor_node = _exported(_parse(TENSOR_STUB))["Tensor"]
    assert isinstance(tensor_node, ast.ClassDef)
    declared = set(_exported(tensor_node))
    attached = {n for n, v in vars(spore.Tensor).items()
                if inspect.isfunction(v) and not v.__qualname__.startswith("Tensor.")}
    assert len(attached) > 100, "expected the ops modules to attach most Tensor methods"
    assert attached - SKIP <= declared, sorted(attached - SKIP - declared)
    assert {"reshape", "sum", "mean", "transpose", "astype", "shape", "dtype", "__add__", "__getitem__"} <= declared


# --- (b) spore.ops -------------------------------------------------------------------------------------
def _ops_public() -> dict[str, Any]:
    return {n: getattr(ops, n) for n in dir(ops)
            if not n.startswith("_") and not isinstance(getattr(ops, n), types.ModuleType)}


def test_ops_stub_declares_every_public_name_of_spore_ops_and_nothing_else():
    declared = _exported(_parse(OPS_STUB))
    public = _ops_public()
    assert set(ops.__all__) <= set(public)
    assert set(declared) == set(public), (
        f"ops/__init__.pyi declares {sorted(set(declared) - set(public))} that spore.ops lacks, and lacks "
        f"{sorted(set(public) - set(declared))}; run `{REGENERATE}`")


def test_ops_functions_have_their_runtime_signatures_in_the_stub():
    declared = _exported(_parse(OPS_STUB))
    functions = {n: v for n, v in _ops_public().items() if inspect.isfunction(v)}
    assert len(functions) > 200
    for name, fn in functions.items():
        node = declared[name]
        assert isinstance(node, ast.FunctionDef), f"ops.{name} is a function, the stub has {type(node).__name__}"
        _check_signature(f"ops.{name}", inspect.signature(fn), node, drop_first=False)


def test_ops_class_forms_have_their_constructor_and_call_in_the_stub():
    declared = _exported(_parse(OPS_STUB))
    classes = {n: node for n, node in declared.items() if isinstance(node, ast.ClassDef)}
    forms = {n: v for n, v in _ops_public().items() if inspect.isclass(v) and issubclass(v, Operation)
             and v is not Operation}
    assert len(forms) > 100
    for name, cls in forms.items():
        node = classes.get(name)
        assert node is not None, f"ops.{name} (a class form) is not a class in the stub"
        # its declared base is the nearest public one: another class form, or Operation (from source)
        base = next(b for b in cls.__mro__[1:] if b is Operation or forms.get(b.__name__) is b)
        assert [ast.unparse(b) for b in node.bases] == [base.__name__], f"ops.{name}: bases {node.bases}"
        _check_class(f"ops.{name}", cls, node, classes, source_base=Operation, private=False, call_from=Operation)
        # the call: pyright checks `ops.Sqrt()(x)` against this
        call = next((c for c in [node, *(classes[b.__name__] for b in cls.__mro__[1:] if b.__name__ in classes
                                         and forms.get(b.__name__) is b)]
                     if "__call__" in _exported(c)), None)
        assert call is not None, f"ops.{name}: the stub declares no __call__"
        call_fn = _exported(call)["__call__"]
        assert isinstance(call_fn, ast.FunctionDef)
        target = next((vars(k)["__call__"] for k in cls.__mro__
                       if k not in Operation.__mro__ and "__call__" in vars(k)), cls.construct)
        sig = inspect.signature(target)  # unbound: its first parameter is the instance
        _check_signature(f"ops.{name}()(...)", sig.replace(parameters=list(sig.parameters.values())[1:]), call_fn,
                         drop_first=True)


@pytest.mark.parametrize("stub, module", [(OPS_STUB, "spore.ops"), (FUNCTIONAL_STUB, "spore.ops.functional")])
def test_reexports_are_the_runtime_objects(stub, module):
    mod = importlib.import_module(module)
    seen = 0
    for node in _parse(stub).body:
        if isinstance(node, ast.ImportFrom):
            for a in node.names:
                if a.asname == a.name:
                    source = importlib.import_module(node.module or "")
                    assert getattr(source, a.name) is getattr(mod, a.name), \
                        f"{node.module}.{a.name} is not {module}.{a.name}"
                    seen += 1
    assert seen


def test_functional_stub_declares_what_spore_ops_functional_has():
    # `from spore.ops import functional as F` (MindSpore's idiom; the engine's too) is filled in a loop
    import spore.ops.functional as F

    declared = _exported(_parse(FUNCTIONAL_STUB))
    public = {n for n, v in vars(F).items() if not n.startswith("_") and not isinstance(v, types.ModuleType)
              and type(v).__name__ != "_Feature"}  # `annotations`, from `from __future__ import annotations`
    assert set(F.__all__) <= public and len(F.__all__) > 200
    assert {n for n in declared if not n.startswith("_")} == public, \
        sorted(set(declared).symmetric_difference(public))
    for name, node in declared.items():
        value = getattr(F, name)
        if isinstance(node, ast.FunctionDef):  # its own helpers, written out
            assert value.__module__ == F.__name__, name
            _check_signature(f"functional.{name}", inspect.signature(value), node, drop_first=False)
        elif isinstance(node, ast.ImportFrom):  # ops: from the declaration module's source
            assert inspect.isfunction(value) and node.module == value.__module__, name


def test_the_signature_oracle_catches_a_wrong_stub():
    # negative control: the comparison above fails on a stub that renames, drops or changes a
    # default, or writes Any where the runtime says Tensor
    def real(input: spore.Tensor, axis: int = 0) -> spore.Tensor: ...

    real.__annotations__ = {"input": "Tensor", "axis": "int", "return": "Tensor"}  # as under __future__
    sig = inspect.signature(real)

    def stub(text: str) -> ast.FunctionDef:
        fn = ast.parse(text).body[0]
        assert isinstance(fn, ast.FunctionDef)
        return fn

    _check_signature("f", sig, stub("def f(input: Tensor, axis: int = 0) -> Tensor: ..."), drop_first=False)
    for wrong in ("def f(input: Tensor, axes: int = 0) -> Tensor: ...",
                  "def f(input: Tensor, axis: int = 1) -> Tensor: ...",
                  "def f(input: Tensor, axis: int = ...) -> Tensor: ...",
                  "def f(input: Tensor, axis: int) -> Tensor: ...",
                  "def f(input: Tensor, *, axis: int = 0) -> Tensor: ...",
                  "def f(input: Any, axis: int = 0) -> Tensor: ...",
                  "def f(input: Tensor, axis: int = 0) -> Any: ..."):
        with pytest.raises(AssertionError):
            _check_signature("f", sig, stub(wrong), drop_first=False)


# --- star imports ------------------------------------------------------------------------------------
STAR_IMPORTERS = ["spore.nn", "spore.nn.layer", "spore.ops", "spore.dataset.transforms.c_transforms",
                  "spore.dataset.transforms.py_transforms", "spore.dataset.vision.c_transforms",
                  "spore.dataset.vision.py_transforms"]


@pytest.mark.parametrize("name", STAR_IMPORTERS)
def test_modules_that_star_import_say_what_they_export(name):
    # an explicit __all__: static tools and `from m import *` see the API, not what was imported on the way
    mod = __import__(name, fromlist=["_"])
    assert isinstance(mod.__all__, list) and len(mod.__all__) == len(set(mod.__all__)), name
    for n in mod.__all__:
        assert hasattr(mod, n), f"{name}.__all__ lists {n}, which it lacks"
    public = {n for n in dir(mod) if not n.startswith("_") and not isinstance(getattr(mod, n), types.ModuleType)}
    bookkeeping = {"CLASS_MODULES", "DECLARATION_MODULES", "HIGHER_ORDER_MODULES"}  # module tuples, not ops
    extra = {"spore.ops": bookkeeping}.get(name, set())
    assert public - extra == set(mod.__all__), \
        f"{name}: public names outside __all__: {sorted(public - extra - set(mod.__all__))}"
