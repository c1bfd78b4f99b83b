"""`python -m spore_viz capture FILE --line N`, run on real programs in a child process, as the VS Code
command runs it: the graph of the construct under the cursor for the inputs the program passes, and
the program's step never runs (each program writes a marker file after the call)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from spore_viz.capture import find_target

HEADER = """\
import numpy as np
import spore as ms
from spore import nn


class Block(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(4, 4)

    def construct(self, x):
        return ms.ops.relu(self.fc(x))  # line 12


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.b = Block()
        self.out = nn.Dense(4, 2)

    def construct(self, x):
        h = self.b(x)  # line 22
        return self.out(h)


@ms.jit
def step(a, b):
    return a * b + a  # line 28

"""
NET_LINE, BLOCK_LINE, JIT_LINE = 22, 12, 28


def _capture(tmp_path: Path, body: str, line: int, *extra: str, timeout: float = 120) -> subprocess.CompletedProcess:
    prog = tmp_path / "prog.py"
    prog.write_text(HEADER + textwrap.dedent(body), encoding="utf-8")
    env = {**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
    return subprocess.run([sys.executable, "-m", "spore_viz", "capture", str(prog), "--line", str(line), *extra],
                          capture_output=True, text=True, timeout=timeout, cwd="/", env=env)


def _ops(payload: dict) -> list[tuple[str, str]]:
    return sorted((d["op"], d["scope"]) for d in payload["details"].values())


def test_header_lines_are_where_the_tests_say():
    lines = HEADER.splitlines()
    assert "line 12" in lines[BLOCK_LINE - 1] and "line 22" in lines[NET_LINE - 1] and "line 28" in lines[JIT_LINE - 1]


def test_a_cell_construct_is_captured_with_the_real_input_and_the_step_never_runs(tmp_path):
    res = _capture(tmp_path, """\
        print("the program's own output")
        net = Net()
        y = net(ms.Tensor(np.ones((3, 4), np.float32)))
        open("ran.txt", "w").write("the step ran")
        """, NET_LINE)
    assert res.returncode == 0, res.stderr
    payload = json.loads(res.stdout)  # stdout is the payload alone; the program's prints went to stderr
    assert "the program's own output" in res.stderr
    assert payload["kind"] == "spore.view/1" and payload["name"] == "Net.construct"
    assert [it[3] for it in payload["items"] if it[0] == "input"] == ["3×4 f32"]
    assert {scope for _, scope in _ops(payload)} == {"Net.b.fc", "Net.out"}
    prog = str((tmp_path / "prog.py").resolve())
    assert payload["sources"][prog][str(NET_LINE + 1)] == "        return self.out(h)"
    assert not (tmp_path / "ran.txt").exists()


def test_a_sub_cell_in_graph_mode_shows_its_part_of_the_parent_graph(tmp_path):
    res = _capture(tmp_path, """\
        ms.set_context(mode=ms.GRAPH_MODE)
        net = Net()
        y = net(ms.Tensor(np.ones((5, 4), np.float32)))
        open("ran.txt", "w").write("the step ran")
        """, BLOCK_LINE)
    assert res.returncode == 0, res.stderr
    payload = json.loads(res.stdout)
    assert payload["name"] == "Net.b (in Net.construct)"
    assert _ops(payload) == [("FusedDense", "Net.b.fc")]
    assert not (tmp_path / "ran.txt").exists()


def test_a_sub_cell_in_pynative_is_caught_at_its_own_call(tmp_path):
    res = _capture(tmp_path, """\
        net = Net()
        y = net(ms.Tensor(np.ones((2, 4), np.float32)))
        """, BLOCK_LINE)
    assert res.returncode == 0, res.stderr
    payload = json.loads(res.stdout)
    assert payload["name"] == "Block.construct"
    assert [it[3] for it in payload["items"] if it[0] == "input"] == ["2×4 f32"]


def test_a_cell_used_only_inside_a_jit_function_shows_that_functions_graph(tmp_path):
    res = _capture(tmp_path, """\
        net = Net()

        @ms.jit
        def train_step(x):
            return net(x).sum()

        train_step(ms.Tensor(np.ones((3, 4), np.float32)))
        open("ran.txt", "w").write("the step ran")
        """, NET_LINE)
    assert res.returncode == 0, res.stderr
    payload = json.loads(res.stdout)
    assert payload["name"] == "train_step"
    lines = {d["loc"]["line"] for d in payload["details"].values() if d.get("loc")}
    assert {BLOCK_LINE, NET_LINE + 1} <= lines  # Net's nodes are in it, found by their lines
    assert not (tmp_path / "ran.txt").exists()


def test_a_jit_function_is_captured_with_its_arguments(tmp_path):
    res = _capture(tmp_path, """\
        a = ms.Tensor(np.ones((2, 3), np.float32))
        out = step(a, a)
        open("ran.txt", "w").write("the step ran")
        """, JIT_LINE)
    assert res.returncode == 0, res.stderr
    payload = json.loads(res.stdout)
    assert [it[3] for it in payload["items"] if it[0] == "input"] == ["2×3 f32", "2×3 f32"]
    assert payload["nOps"] >= 1
    assert not (tmp_path / "ran.txt").exists()


def test_a_program_that_never_calls_the_construct_says_so(tmp_path):
    res = _capture(tmp_path, """\
        net = Net()
        print("done")
        """, NET_LINE)
    assert res.returncode == 3 and res.stdout == ""
    assert "prog.py ended without calling Net.construct" in res.stderr


def test_a_program_that_exits_first_says_so(tmp_path):
    res = _capture(tmp_path, """\
        import sys
        sys.exit(7)
        """, NET_LINE)
    assert res.returncode == 3 and "prog.py exited (code 7) without calling Net.construct" in res.stderr


def test_a_program_that_raises_first_names_the_error_and_its_line(tmp_path):
    res = _capture(tmp_path, """\
        net = Net()
        raise ValueError("no data in ./data")
        """, NET_LINE)
    assert res.returncode == 3
    assert "prog.py raised ValueError: no data in ./data at prog.py:31 before calling Net.construct" in res.stderr


def test_a_graph_mode_compile_error_is_reported_not_run(tmp_path):
    res = _capture(tmp_path, """\
        class Bad(nn.Cell):
            def construct(self, x):
                try:
                    return x * 2
                except Exception:
                    return x

        Bad()(ms.Tensor(np.ones((2,), np.float32)))
        """, 33)
    assert res.returncode == 4 and res.stdout == ""
    assert "compiling the graph of Bad.construct failed" in res.stderr and "try" in res.stderr


def test_a_program_that_loops_forever_is_stopped_by_the_timeout(tmp_path):
    res = _capture(tmp_path, """\
        while True:
            pass
        """, NET_LINE, "--timeout", "2", timeout=60)
    assert res.returncode == 5 and "prog.py did not call Net.construct within 2 s" in res.stderr


def test_a_line_outside_any_construct_or_function_is_refused_before_running(tmp_path):
    res = _capture(tmp_path, """\
        open("ran.txt", "w").write("ran")
        """, 2)
    assert res.returncode == 2 and "not inside a Cell's construct or a function" in res.stderr
    assert not (tmp_path / "ran.txt").exists()


def test_find_target_picks_the_innermost_construct_or_function():
    src = HEADER + "class Sub(Net):\n    pass\n"
    assert find_target(src, "f.py", NET_LINE).describe() == "Net.construct"
    assert find_target(src, "f.py", BLOCK_LINE).describe() == "Block.construct"
    assert find_target(src, "f.py", JIT_LINE).describe() == "step()"
    assert find_target(src, "f.py", 26).lines == frozenset({26, 27})  # the decorator's line and the def's
    with pytest.raises(LookupError, match="not inside"):
        find_target(src, "f.py", 9)  # __init__ of a Cell: not a construct
    with pytest.raises(LookupError, match="cannot parse"):
        find_target("def (:", "f.py", 1)
