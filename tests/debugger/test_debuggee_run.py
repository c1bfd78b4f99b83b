"""`python -m spore_debug.run` runs a program as plain Python would — `__main__`, `sys.argv`,
`sys.path[0]`, exit codes, uncaught exceptions printed from the program's frames — after installing
Spore's hooks; and its command line is parsed without taking the program's own options."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from spore_debug.run import Options, UsageError, parse_address, parse_args

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _launch(*args: str, cwd: str | None = None, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "spore_debug.run", *args], capture_output=True, text=True,
                          cwd=cwd or ROOT, env={**os.environ, **(env or {})}, timeout=120)


def _plain(*args: str, cwd: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, cwd=cwd, timeout=120)


def test_parse_program_and_its_own_options():
    assert parse_args(["prog.py", "--break-on-nan", "-m", "x"]) == Options(program="prog.py",
                                                                           args=["--break-on-nan", "-m", "x"])
    opts = parse_args(["--listen", "5678", "--wait-for-client", "--break-on-nan", "-m", "pkg.mod", "a", "--b"])
    assert opts == Options(listen=("127.0.0.1", 5678), wait_for_client=True, break_on_nan=True, module="pkg.mod",
                           args=["a", "--b"])
    assert parse_args(["--listen=0.0.0.0:9", "p.py"]).listen == ("0.0.0.0", 9)
    assert parse_args(["--", "-weird.py"]).program == "-weird.py"
    assert parse_address("localhost:7") == ("localhost", 7)
    for bad in ([], ["--listen"], ["--listen", "x:y", "p.py"], ["--nope", "p.py"], ["-m"], ["--listen", "70000", "p"]):
        with pytest.raises(UsageError):
            parse_args(bad)


PROGRAM = """
import os, sys
print("name", __name__)
print("argv", sys.argv)
print("path0", os.path.realpath(sys.path[0]))
print("spore loaded", "spore" in sys.modules)
code = int(sys.argv[1]) if len(sys.argv) > 1 and sys.argv[1].isdigit() else 0
if "boom" in sys.argv:
    def inner():
        raise ValueError("boom from the program")
    inner()
sys.exit(code)
"""


def test_a_program_runs_as_under_plain_python(tmp_path):
    prog = tmp_path / "prog.py"
    prog.write_text(PROGRAM)
    ours = _launch(str(prog), "3", "x", cwd=str(tmp_path))
    plain = _plain(str(prog), "3", "x", cwd=str(tmp_path))
    assert ours.returncode == plain.returncode == 3
    assert ours.stdout == plain.stdout
    assert f"argv ['{prog}', '3', 'x']" in ours.stdout and "name __main__" in ours.stdout
    assert f"path0 {os.path.realpath(tmp_path)}" in ours.stdout
    assert "spore loaded False" in ours.stdout  # the hooks do not load the engine for a program without it


def test_an_uncaught_exception_prints_the_programs_frames_only(tmp_path):
    prog = tmp_path / "prog.py"
    prog.write_text(PROGRAM)
    ours = _launch(str(prog), "boom", cwd=str(tmp_path))
    plain = _plain(str(prog), "boom", cwd=str(tmp_path))
    assert ours.returncode == plain.returncode == 1
    assert ours.stderr == plain.stderr
    assert "spore_debug" not in ours.stderr and "runpy" not in ours.stderr


def test_dash_m_runs_a_module_with_its_arguments(tmp_path):
    pkg = tmp_path / "mypkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "tool.py").write_text(PROGRAM)
    ours = _launch("-m", "mypkg.tool", "4", cwd=str(tmp_path))
    plain = _plain("-m", "mypkg.tool", "4", cwd=str(tmp_path))
    assert ours.returncode == plain.returncode == 4
    assert ours.stdout == plain.stdout
    assert f"argv ['{pkg / 'tool.py'}', '4']" in ours.stdout


def test_missing_program_and_module_are_said_like_python(tmp_path):
    missing = _launch(str(tmp_path / "nope.py"))
    assert missing.returncode == 2 and "can't open file" in missing.stderr and "nope.py" in missing.stderr
    no_mod = _launch("-m", "no_such_module_here")
    assert no_mod.returncode == 1 and "No module named no_such_module_here" in no_mod.stderr
    usage = _launch("--wait-for-client", "x.py")
    assert usage.returncode == 2 and "usage:" in usage.stderr


def test_a_spore_error_prints_from_the_users_lines_with_the_hooks_installed(tmp_path):
    prog = tmp_path / "net.py"
    prog.write_text(textwrap.dedent("""
        import numpy as np
        import spore as ms
        from spore import nn, ops


        class Net(nn.Cell):
            def construct(self, x):
                h = x - 1.0
                return ops.log(h)


        Net()(ms.Tensor(np.zeros(3, np.float32)))
    """))
    out = _launch("--break-on-nan", str(prog), cwd=str(tmp_path))
    assert out.returncode == 1
    frames = [ln.strip() for ln in out.stderr.splitlines() if ln.strip().startswith('File "')]
    assert frames == [f'File "{prog}", line 13, in <module>', f'File "{prog}", line 10, in construct'], out.stderr
    assert "NonFiniteError: NaN produced by Log" in out.stderr
    assert _launch(str(prog), cwd=str(tmp_path)).returncode == 0  # the guard is off by default
