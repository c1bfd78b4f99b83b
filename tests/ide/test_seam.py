"""The IDE faces (kernel, visualizer, and later the language server, the debug adapter) use the
engine only through `spore.ide` and the user-facing API: no engine-internal module, no private
attribute the engine defines, no reads of an engine object's `__dict__` entries."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FACES = [ROOT / "kernel" / "spore_kernel", ROOT / "visualizer" / "spore_viz", ROOT / "lsp" / "spore_lsp",
         ROOT / "debugger" / "spore_debug"]
ALLOWED_MODULES = {"spore", "spore.ide", "spore.nn", "spore.ops"}  # the seam, and what users import


def face_files() -> list[Path]:
    return sorted(p for face in FACES if face.is_dir() for p in face.rglob("*.py"))


def engine_private_names() -> set[str]:
    """Every `_name` the engine defines as an attribute (self._x = ..., class-level _x, def _x, slots)."""
    names: set[str] = set()
    for path in (ROOT / "engine" / "spore").rglob("*.py"):
        tree = ast.parse(path.read_text("utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                names.add(node.attr)
            elif isinstance(node, ast.ClassDef):
                for item in node.body:
                    if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        names.add(item.name)
                    elif isinstance(item, (ast.Assign, ast.AnnAssign)):
                        targets = item.targets if isinstance(item, ast.Assign) else [item.target]
                        names.update(t.id for t in targets if isinstance(t, ast.Name))
                        if any(isinstance(t, ast.Name) and t.id == "__slots__" for t in targets):
                            names.update(e.value for e in ast.walk(item.value)
                                         if isinstance(e, ast.Constant) and isinstance(e.value, str))
    return {n for n in names if n.startswith("_") and not (n.startswith("__") and n.endswith("__"))}


def violations(path: Path, private: set[str]) -> list[str]:
    tree = ast.parse(path.read_text("utf-8"))
    rel = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path.name
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if (a.name == "spore" or a.name.startswith("spore.")) and a.name not in ALLOWED_MODULES:
                    out.append(f"{rel}:{node.lineno}: import {a.name}")
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            mod = node.module
            if mod == "spore" or mod.startswith("spore."):
                if mod not in ALLOWED_MODULES:
                    out.append(f"{rel}:{node.lineno}: from {mod} import ...")
                for a in node.names:
                    full = f"{mod}.{a.name}"
                    if a.name.startswith("_") or (mod == "spore" and a.name in {"compiler", "autodiff", "common",
                                                                               "errors", "tensor", "context",
                                                                               "profiler", "train", "amp"}
                                                  and full not in ALLOWED_MODULES):
                        out.append(f"{rel}:{node.lineno}: from {mod} import {a.name}")
        elif isinstance(node, ast.Attribute):
            base = node.value
            own = isinstance(base, ast.Name) and base.id in ("self", "cls")
            if node.attr in private and not own:
                out.append(f"{rel}:{node.lineno}: .{node.attr} (an engine-private attribute)")
        elif isinstance(node, ast.Subscript) or (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                                                 and node.func.attr == "get"):
            target = node.value if isinstance(node, ast.Subscript) else node.func.value
            if isinstance(target, ast.Attribute) and target.attr == "__dict__":
                out.append(f"{rel}:{node.lineno}: reads an entry of {ast.unparse(target)}")
    return out


def test_faces_use_the_engine_only_through_the_seam():
    files = face_files()
    assert len(files) > 20, "the scan must see the faces' sources"
    private = engine_private_names()
    assert {"_data", "_node", "_out_index"} <= private  # the scan knows what the engine keeps private
    found = [v for f in files for v in violations(f, private)]
    assert not found, "faces reach into the engine:\n" + "\n".join(found)


@pytest.mark.parametrize("snippet, expected", [
    ("from spore.compiler.jit import JitFunction\n", "from spore.compiler.jit import"),
    ("import spore.errors\n", "import spore.errors"),
    ("from spore import compiler\n", "from spore import compiler"),
    ("from spore.ops.primitive import REGISTRY\n", "from spore.ops.primitive import"),
    ("def f(t):\n    return t._data\n", "._data"),
    ("def f(c):\n    return c.__dict__['_jit_bound']\n", "reads an entry of c.__dict__"),
    ("def f(c):\n    return c.__dict__.get('_graph_fn')\n", "reads an entry of c.__dict__"),
])
def test_the_scan_catches_each_kind_of_back_door(tmp_path, snippet, expected):
    """Negative controls: each way a face could bypass the seam is reported."""
    path = tmp_path / "probe.py"
    path.write_text(snippet)
    found = violations(path, engine_private_names())
    assert any(expected in v for v in found), found


def test_allowed_imports_pass_the_scan(tmp_path):
    path = tmp_path / "probe.py"
    path.write_text("import spore\nfrom spore import ide, nn, ops\nfrom spore.ide import compile_graph\n"
                    "def f(self, t):\n    return self._x, t.asnumpy(), 'plt' in type(t).__dict__\n")
    assert violations(path, engine_private_names()) == []


def test_importing_the_seam_loads_neither_numpy_nor_the_engine():
    code = ("import sys, spore.ide; "
            "print(sorted(m for m in ('numpy', 'spore.ops', 'spore.nn', 'spore.tensor') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
