"""Pyright (from PyPI, pinned in the dev extras; `make` caches its Node package) sees Spore's whole API:
no unknown Tensor, `spore.ops` or `spore.nn` attribute in examples/, nor in a snippet that touches
every public name; and a negative control shows the check reports an unknown one.

One pyright run serves the module (it takes tens of seconds on two cores): examples/*.py, the
quickstart notebook's code, the snippet and the negative control, checked with the repository's
`[tool.pyright]` settings (basic type checking) plus examples/ on the import path.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import subprocess
import sys
import time
import tomllib
import types
from dataclasses import dataclass
from pathlib import Path

import pytest

import spore
import spore.ops as ops
from spore import nn

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
# Rules that say static tools cannot see a name. An import or call pyright cannot resolve is never
# acceptable in an example; an unknown attribute is Spore's business when it is on a Spore object
# (other libraries' loose typing, e.g. scikit-learn's Bunch, is theirs).
ALWAYS = {"reportMissingImports", "reportMissingModuleSource", "reportCallIssue"}
ON_SPORE = {"reportAttributeAccessIssue", "reportPrivateImportUsage", "reportOptionalMemberAccess"}


@dataclass(frozen=True)
class Diag:
    file: str
    line: int  # 1-based
    rule: str
    severity: str
    message: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.rule}: {self.message.splitlines()[0]}"


def _spore_classes() -> set[str]:
    """Names of the classes Spore defines (Tensor, Parameter, Cells, class forms, Model...)."""
    import spore.dataset  # noqa: F401
    import spore.train  # noqa: F401

    return {v.__name__ for m, mod in list(sys.modules.items()) if m == "spore" or m.startswith("spore.")
            if isinstance(mod, types.ModuleType) for v in list(vars(mod).values())
            if isinstance(v, type) and str(getattr(v, "__module__", "")).startswith("spore")}


def is_spore_finding(d: Diag, spore_classes: set[str]) -> bool:
    """Whether a diagnostic says a Spore name is invisible or wrong to static tools."""
    if d.rule in ALWAYS:
        return True
    if d.rule not in ON_SPORE:
        return False
    # `"Sqrt" is not a known attribute of module "..ops"` (relative to spore/__init__) or "spore.ops"
    if re.search(r'of module "(spore\b|\.)', d.message) or 'Import "spore' in d.message:
        return True
    cls = re.search(r'for class "([A-Za-z_]\w*)', d.message)
    return bool(cls) and cls.group(1) in spore_classes


def _notebook_code(path: Path) -> str:
    """The notebook's code cells as one script (as the kernel runs them); magics become comments."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    cells = ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"]
    lines = [("# " + ln) if ln.lstrip().startswith(("%", "!")) else ln for c in cells for ln in c.splitlines()]
    return "\n".join(lines) + "\n"


# What a user writes: every call is real API usage (the test also runs it), each revealed type is
# what completion and checking then work with.
USAGE = '''\
from typing import reveal_type

import numpy as np

import spore as ms
from spore import nn, ops

x = ms.Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
w = ms.Parameter(ms.Tensor(np.ones((3, 4), np.float32)), name="w")
y = x.reshape(3, 2).transpose().astype(ms.float32)
m = ops.matmul(x, w)
s = x.sum(axis=1, keepdims=True).mean()
a = ops.ReduceSum(keep_dims=True)(x, 1)
r = ops.Sqrt()(ops.abs(x))
values, indices = x.topk(2)
pieces = ops.split(x, 1, axis=1)
c = ops.concat((x, x), axis=0)
z = ops.zeros((2, 3), ms.float32)
e = x + 1
g = x[0]
p = ops.softmax(x, axis=-1).argmax(axis=1)
flag = x.allclose(x)
arr = x.asnumpy()
shape = x.shape
net = nn.SequentialCell([nn.Dense(3, 4), nn.ReLU()])
out = net(x)
opt = nn.Adam(net.trainable_params(), learning_rate=1e-3)
name = w.name
reveal_type(y)  # expect: Tensor
reveal_type(m)  # expect: Tensor
reveal_type(s)  # expect: Tensor
reveal_type(a)  # expect: Tensor
reveal_type(r)  # expect: Tensor
reveal_type(values)  # expect: Tensor
reveal_type(pieces)  # expect: tuple[Tensor, ...]
reveal_type(c)  # expect: Tensor
reveal_type(z)  # expect: Tensor
reveal_type(e)  # expect: Tensor
reveal_type(g)  # expect: Tensor
reveal_type(p)  # expect: Tensor
reveal_type(flag)  # expect: bool
reveal_type(shape)  # expect: tuple[int, ...]
reveal_type(x.dtype)  # expect: DType
reveal_type(name)  # expect: str
reveal_type(ops.ReduceSum(keep_dims=True))  # expect: ReduceSum
'''

# Each line must be reported with the rule named in its comment.
NEGATIVE = '''\
import spore as ms
from spore import nn, ops

x = ms.Tensor([1.0, 2.0])
x.not_a_method()  # expect: reportAttributeAccessIssue
ops.NotAnOp()  # expect: reportAttributeAccessIssue
nn.NotACell()  # expect: reportAttributeAccessIssue
x.reshape(2).not_an_attribute  # expect: reportAttributeAccessIssue
ms.Parameter(x).not_a_field  # expect: reportAttributeAccessIssue
ops.matmul(x)  # expect: reportCallIssue
ops.Sqrt(1)  # expect: reportCallIssue
ops.Sqrt()(x, x)  # expect: reportCallIssue
x.sum(not_a_keyword=1)  # expect: reportCallIssue
'''


def _names_snippet() -> str:
    """An attribute access for every public name of Tensor, Parameter, spore.ops, spore.nn, nn.Cell
    and spore itself, taken from the running objects."""
    lines = ["import spore as ms", "from spore import nn, ops", "", "x = ms.Tensor([1.0])",
             "p = ms.Parameter(x, name='p')", "c = nn.Cell()", "o = ops.ReduceSum()", ""]
    lines += [f"_ = x.{n}" for n in dir(spore.Tensor) if not n.startswith("_")]
    param = spore.Parameter(spore.Tensor([1.0]), name="p")
    lines += [f"_ = p.{n}" for n in sorted(set(dir(param)) - set(dir(spore.Tensor))) if not n.startswith("_")]
    lines += [f"_ = ops.{n}" for n in dir(ops) if not n.startswith("_")
              and not isinstance(getattr(ops, n), types.ModuleType)]
    lines += [f"_ = o.{n}" for n in dir(ops.ReduceSum()) if not n.startswith("_")]
    lines += [f"_ = nn.{n}" for n in dir(nn) if not n.startswith("_")
              and not isinstance(getattr(nn, n), types.ModuleType)]
    lines += [f"_ = c.{n}" for n in dir(nn.Cell) if not n.startswith("_")]
    lines += [f"_ = ms.{n}" for n in spore.__all__]
    return "\n".join(lines) + "\n"


@dataclass
class Report:
    diags: list[Diag]
    files: dict[str, Path]
    seconds: float
    summary: dict

    def of(self, key: str) -> list[Diag]:
        path = str(self.files[key])
        return [d for d in self.diags if d.file == path]


def _run_pyright(tmp: Path) -> dict:
    """One pyright run over examples/, the notebook's code and the snippets written into `tmp`."""
    files = {p.name: p for p in sorted(EXAMPLES.glob("*.py"))}
    for key, text in {"quickstart_ipynb.py": _notebook_code(EXAMPLES / "quickstart.ipynb"), "usage.py": USAGE,
                      "negative.py": NEGATIVE, "names.py": _names_snippet()}.items():
        (tmp / key).write_text(text, encoding="utf-8")
        files[key] = tmp / key
    settings = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pyright"]
    config = dict(settings, extraPaths=[str(ROOT / p) for p in settings["extraPaths"]] + [str(EXAMPLES)])
    (tmp / "pyrightconfig.json").write_text(json.dumps(config), encoding="utf-8")
    env = dict(os.environ, PYRIGHT_PYTHON_IGNORE_WARNINGS="1")  # no version check over the network
    t0 = time.perf_counter()
    r = subprocess.run([sys.executable, "-m", "pyright", "--outputjson", "-p", str(tmp / "pyrightconfig.json"),
                        "--pythonpath", sys.executable, *map(str, files.values())],
                       capture_output=True, text=True, cwd=tmp, env=env, timeout=900)
    seconds = time.perf_counter() - t0
    assert r.returncode in (0, 1), f"pyright did not run (exit {r.returncode}):\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}"
    return {"out": json.loads(r.stdout), "files": {k: str(v) for k, v in files.items()}, "seconds": seconds}


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Report:
    # Under pytest-xdist each worker that gets one of these tests sets the fixture up: the first runs
    # pyright, the others wait for its result (a lock in the session's shared temp folder).
    run_id = os.environ.get("PYTEST_XDIST_TESTRUNUID")
    if run_id is None:
        data = _run_pyright(tmp_path_factory.mktemp("pyright"))
    else:
        shared = tmp_path_factory.getbasetemp().parent / f"pyright-{run_id}"
        shared.mkdir(exist_ok=True)
        with open(shared / "lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            result = shared / "result.json"
            if not result.exists():
                result.write_text(json.dumps(_run_pyright(shared)), encoding="utf-8")
            data = json.loads(result.read_text(encoding="utf-8"))
    out = data["out"]
    files = {k: Path(v) for k, v in data["files"].items()}
    assert out["summary"]["filesAnalyzed"] == len(files), out["summary"]
    diags = [Diag(d["file"], d["range"]["start"]["line"] + 1, d.get("rule", ""), d["severity"], d["message"])
             for d in out["generalDiagnostics"]]
    return Report(diags, files, data["seconds"], out["summary"])


def test_examples_show_no_unknown_spore_name_to_pyright(report: Report):
    spore_classes = _spore_classes()
    assert {"Tensor", "Parameter", "Dense", "Sqrt", "Model"} <= spore_classes
    example_files = [k for k in report.files if k.endswith(".py") and k not in ("usage.py", "negative.py", "names.py")]
    assert "train_digits.py" in example_files and "quickstart_ipynb.py" in example_files
    found = [d for k in example_files for d in report.of(k) if is_spore_finding(d, spore_classes)]
    assert not found, "pyright cannot see these Spore names in examples/ (a stale stub? run " \
                      "`python -m spore._stubgen`):\n" + "\n".join(map(str, found))


def test_every_public_name_is_visible_to_pyright(report: Report):
    found = report.of("names.py")
    assert not found, "\n".join(map(str, found[:50]))
    names = report.files["names.py"].read_text().count("\n_ = ")
    assert names > 700, names  # Tensor, ops, nn, Cell and spore names: the check covers the API


def test_typical_usage_type_checks_with_useful_types(report: Report):
    diags = report.of("usage.py")
    problems = [d for d in diags if d.severity != "information"]
    assert not problems, "\n".join(map(str, problems))
    revealed = {d.line: d.message for d in diags if d.message.startswith("Type of")}
    lines = USAGE.splitlines()
    expected = {i + 1: ln.split("# expect: ")[1] for i, ln in enumerate(lines) if "# expect: " in ln}
    assert expected
    for line, want in expected.items():
        assert line in revealed, f"usage.py:{line}: pyright revealed nothing for {lines[line - 1]}"
        got = re.search(r'is "(.*)"$', revealed[line])
        assert got and got.group(1) == want, f"usage.py:{line} {lines[line - 1]!r}: {revealed[line]}"


def test_the_usage_snippet_is_real_api(capfd: pytest.CaptureFixture[str]):
    # the calls pyright accepted run: the snippet is not usage that only the stubs believe in
    exec(compile(USAGE, "usage.py", "exec"), {"__name__": "usage"})
    assert "Runtime type is 'Tensor'" in capfd.readouterr().err


def test_negative_control_unknown_names_and_bad_calls_are_reported(report: Report):
    spore_classes = _spore_classes()
    diags = [d for d in report.of("negative.py") if d.severity == "error"]
    lines = NEGATIVE.splitlines()
    expected = {i + 1: ln.split("# expect: ")[1] for i, ln in enumerate(lines) if "# expect: " in ln}
    got = {d.line: d for d in diags}
    for line, rule in expected.items():
        assert line in got and got[line].rule == rule, f"negative.py:{line} {lines[line - 1]!r}: {got.get(line)}"
        # and the filter the examples test applies counts it as Spore's
        assert is_spore_finding(got[line], spore_classes), str(got[line])
    assert set(got) == set(expected), [str(d) for d in diags if d.line not in expected]
    assert 'Cannot access attribute "not_a_method" for class "Tensor"' in got[5].message
