"""`spore-viz` / `python -m spore_viz`: the output format follows the file extension."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

import spore_viz
from spore_viz.cli import main


def test_graph_command_writes_html_svg_and_png_by_extension(resmlp_paths, tmp_path, capsys):
    for name, head in (("g.html", b"<!DOCTYPE html>"), ("g.svg", b"<svg "), ("g.png", b"\x89PNG")):
        assert main(["graph", str(resmlp_paths[1]), "-o", str(tmp_path / name)]) == 0
        assert (tmp_path / name).read_bytes().startswith(head)
    assert str(tmp_path / "g.png") in capsys.readouterr().out


def test_graph_command_defaults_to_html_next_to_the_input(resmlp_paths, tmp_path):
    src = tmp_path / "net_after.json"
    src.write_text(resmlp_paths[1].read_text())
    assert main(["graph", str(src)]) == 0
    assert (tmp_path / "net_after.html").exists()


def test_bad_inputs_exit_non_zero_with_one_line(tmp_path, capsys):
    assert main(["graph", str(tmp_path / "missing.json")]) == 2
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"schema": "other"}))
    assert main(["graph", str(bad)]) == 1
    err = capsys.readouterr().err
    assert "no such file" in err and "spore.graph/1" in err


def test_tensor_and_curves_commands_write_pngs(tmp_path):
    np.save(tmp_path / "x.npy", np.zeros((2, 4, 6, 6), np.float32))
    (tmp_path / "h.json").write_text(json.dumps({"loss": [3, 2, 1], "accuracy": [0.1, 0.5, 0.9]}))
    assert main(["tensor", str(tmp_path / "x.npy")]) == 0
    assert main(["curves", str(tmp_path / "h.json"), "-o", str(tmp_path / "c.png")]) == 0
    assert (tmp_path / "x.png").read_bytes()[:4] == b"\x89PNG"
    assert (tmp_path / "c.png").read_bytes()[:4] == b"\x89PNG"


def test_python_dash_m_runs_the_cli(resmlp_paths, tmp_path):
    pkg_root = str(Path(spore_viz.__file__).resolve().parents[1])
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([pkg_root, os.environ.get("PYTHONPATH", "")]))
    out = tmp_path / "g.svg"
    proc = subprocess.run([sys.executable, "-m", "spore_viz", "graph", str(resmlp_paths[1]), "-o", str(out)],
                          capture_output=True, text=True, env=env, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert out.read_text().startswith("<svg ")


def test_payload_command_prints_the_viewer_payload_and_sources_only_from_the_given_dir(resmlp_paths, tmp_path, capsys):
    assert main(["payload", str(resmlp_paths[1])]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["kind"] == "spore.view/1" and data["nOps"] > 0 and data["sources"] == {}
    here = str(Path(__file__).parent)
    assert main(["payload", str(resmlp_paths[1]), "--sources", here, "--expand", "all"]) == 0
    data = json.loads(capsys.readouterr().out)
    (lines,) = data["sources"].values()
    assert any("F.matmul(x, self.weight)" in text for text in lines.values())
    assert main(["graph", str(resmlp_paths[1]), "--sources", here, "-o", str(tmp_path / "g.html")]) == 0
    assert "F.matmul(x, self.weight)" in (tmp_path / "g.html").read_text("utf-8")
    assert main(["payload", str(resmlp_paths[1]), "--sources", str(tmp_path / "nope")]) == 1
    assert "is not a directory" in capsys.readouterr().err


def test_a_fifo_or_a_directory_is_refused_not_read(tmp_path, capsys):
    fifo = tmp_path / "g.json"
    os.mkfifo(fifo)
    assert main(["payload", str(fifo)]) == 1  # returns at once: a FIFO would block a reader forever
    assert main(["graph", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert err.count("is not a regular file") == 2
