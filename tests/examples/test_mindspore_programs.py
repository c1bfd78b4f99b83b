"""Two programs written for MindSpore (examples/mindspore_programs/, on the topics of MindSpore's
own tutorials) run under Spore after changing nothing but their import lines.

Both programs also ran under real MindSpore 2.10 (tests/parity/generate_programs.py). MindSpore's
trained checkpoints are in tests/fixtures/mindspore-2.10/programs/, with the logits MindSpore's
trained networks give. Loaded into the same program under Spore, they must give the same logits,
in both modes.
"""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import spore as ms

ROOT = Path(__file__).resolve().parents[2]
PROGRAMS = ROOT / "examples" / "mindspore_programs"
FIXTURES = ROOT / "tests" / "fixtures" / "mindspore-2.10" / "programs"
IMPORT = re.compile(r"^(\s*)(import|from) mindspore\b", re.M)


def swapped(name: str, tmp_path: Path) -> Path:
    """The program with `mindspore` replaced by `spore` in its import lines, and nowhere else."""
    src = (PROGRAMS / f"{name}.py").read_text(encoding="utf-8")
    out = IMPORT.sub(r"\1\2 spore", src)
    changed = [(a, b) for a, b in zip(src.splitlines(), out.splitlines()) if a != b]
    assert changed and all(IMPORT.match(a) for a, _ in changed), changed
    assert "mindspore" not in "\n".join(b for _, b in changed)
    path = tmp_path / f"{name}_spore.py"
    path.write_text(out, encoding="utf-8")
    return path


def run(path: Path, *args: str) -> dict:
    proc = subprocess.run([sys.executable, str(path), *args], capture_output=True, text=True, timeout=300,
                          cwd=path.parent)
    assert proc.returncode == 0, proc.stderr[-3000:]
    line = next(ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT "))
    return json.loads(line[len("RESULT "):])


def test_the_resnet_classifier_trains_evaluates_and_round_trips_its_checkpoint(tmp_path):
    r = run(swapped("resnet_classifier", tmp_path), "3", str(tmp_path / "net.ckpt"))
    assert r["accuracy"] >= 0.9, r     # MindSpore 2.10: 1.0 on the same data
    assert r["restored_equal"] is True


def test_the_text_classifier_learns_with_a_functional_training_loop(tmp_path):
    r = run(swapped("text_classifier", tmp_path), "6")
    assert r["vocab"] == 34           # the Vocab built from the data: MindSpore 2.10 also has 34 tokens
    assert r["accuracy"] >= 0.9, r    # MindSpore 2.10: 0.981
    assert r["last_loss"] < 0.3 * r["first_loss"], r


def _module(name: str, tmp_path: Path):
    path = swapped(name, tmp_path)
    spec = importlib.util.spec_from_file_location(f"{name}_spore", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE], ids=["pynative", "graph"])
@pytest.mark.parametrize("name", ["resnet_classifier", "text_classifier"])
def test_mindspores_trained_checkpoint_gives_mindspores_logits(name, mode, tmp_path):
    mod = _module(name, tmp_path)
    ref = np.load(FIXTURES / f"{name}_ref.npz", allow_pickle=False)
    params = ms.load_checkpoint(str(FIXTURES / f"{name}.ckpt"))
    if name == "resnet_classifier":
        net = mod.ResNet()
    else:
        net = mod.LSTMClassifier(params["embedding.embedding_table"].shape[0])
    not_loaded, _ = ms.load_param_into_net(net, params, strict_load=True)
    assert not not_loaded
    net.set_train(False)
    ms.set_context(mode=mode)
    try:
        logits = net(ms.Tensor(ref["inputs"])).asnumpy()
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_allclose(logits, ref["logits"], rtol=1e-4, atol=1e-5)
