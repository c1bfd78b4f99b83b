"""Start-up, interrupt, restart and the kernelspec installer."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from .harness import KERNEL_PATH, TIMEOUT, Kernel, spec_manager

TRAIN = """
import numpy as np
import spore as ms
from spore import nn
from spore.autodiff import tape
from spore.ops.observers import OBSERVERS
from spore.ops.primitive import TRACING

net = nn.SequentialCell([nn.Dense(16, 32), nn.ReLU(), nn.Dense(32, 4)])
loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
train = nn.TrainOneStepCell(nn.WithLossCell(net, loss), nn.SGD(net.trainable_params(), 0.01))
train.set_train()
xb = ms.Tensor(np.random.rand(8, 16).astype(np.float32))
yb = ms.Tensor(np.arange(8) % 4, ms.int32)
"""


def start_and_interrupt(k: Kernel, code: str) -> dict:
    """Run `code` (which prints 'started' before looping), interrupt it once it has, return the reply."""
    msg_id = k.kc.execute(code)
    while True:
        msg = k.kc.get_iopub_msg(timeout=TIMEOUT)
        if (msg["parent_header"].get("msg_id") == msg_id and msg["msg_type"] == "stream"
                and "started" in msg["content"]["text"]):
            break
    k.km.interrupt_kernel()
    return k.collect(msg_id).reply["content"]


def test_kernel_starts_with_spore_imported_and_answers_kernel_info(kernel: Kernel,
                                                                   record_property: pytest.RecordProperty) -> None:
    record_property("startup_seconds", round(kernel.startup_s, 3))
    print(f"spore kernel start-up (start_kernel -> kernel_info_reply): {kernel.startup_s:.2f} s")
    assert kernel.info["implementation"] == "spore" and kernel.info["status"] == "ok"
    assert kernel.info["language_info"]["name"] == "python"
    assert "debugger" in kernel.info["supported_features"]  # ipykernel's debugger is kept
    res = kernel.ok("import sys\n'spore' in sys.modules, 'spore_kernel' in sys.modules, "
                    "'spore.tensor' in sys.modules, 'numpy' in sys.modules")
    assert res.result_data()["text/plain"] == "(True, True, False, False)"  # the engine loads on first use
    res = kernel.ok("import spore as ms\nt = ms.Tensor([1.0, 2.0])\nhasattr(t, 'plt'), type(t).__name__")
    assert res.result_data()["text/plain"] == "(True, 'Tensor')"  # set up as the engine loaded


def test_interrupt_stops_a_training_loop_and_keeps_the_kernel(kernel: Kernel) -> None:
    kernel.ok(TRAIN)
    reply = start_and_interrupt(kernel, "print('started', flush=True)\nwhile True:\n    train(xb, yb)")
    assert reply["status"] == "error" and reply["ename"] == "KeyboardInterrupt"
    state = kernel.ok("tape.STATE.depth, TRACING.builder is None, OBSERVERS.active == (), float(train(xb, yb)) > 0")
    assert state.result_data()["text/plain"] == "(0, True, True, True)"


def test_interrupt_inside_a_profiled_cell_stops_the_profiler(kernel: Kernel) -> None:
    kernel.ok(TRAIN)
    reply = start_and_interrupt(kernel, "%%spore_profile\nprint('started', flush=True)\nwhile True:\n    train(xb, yb)")
    assert reply["ename"] == "KeyboardInterrupt"
    res = kernel.ok("ms.Profiler._active is None, OBSERVERS.active == ()")
    assert res.result_data()["text/plain"] == "(True, True)"


def test_interrupt_in_graph_mode(kernel: Kernel) -> None:
    kernel.ok(TRAIN + "ms.set_context(mode=ms.GRAPH_MODE)")
    try:
        reply = start_and_interrupt(kernel, "print('started', flush=True)\nwhile True:\n    train(xb, yb)")
        assert reply["ename"] == "KeyboardInterrupt"
        assert kernel.ok("float(train(xb, yb)) > 0").result_data()["text/plain"] == "True"
    finally:
        kernel.ok("%spore_mode pynative")


def test_restart_gives_a_fresh_namespace_with_spore_set_up(kernel: Kernel) -> None:
    kernel.ok("marker = 42")
    kernel.km.restart_kernel()
    kernel.kc.wait_for_ready(timeout=TIMEOUT)
    kernel.drain()
    res = kernel.execute("marker")
    assert res.status == "error" and res.reply["content"]["ename"] == "NameError"
    data = kernel.ok("import spore as ms\nms.Tensor([1.0])").result_data()
    assert data["application/vnd.spore.tensor+json"]["stats"]["size"] == 1


def install(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "spore_kernel", "install", *args], capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=KERNEL_PATH), timeout=60)


def test_install_writes_the_spore_kernelspec(tmp_path: Path) -> None:
    done = install("--prefix", str(tmp_path), "--env", "SPORE_X=1")
    assert done.returncode == 0, done.stderr
    spec_dir = tmp_path / "share" / "jupyter" / "kernels" / "spore"
    spec = json.loads((spec_dir / "kernel.json").read_text())
    assert spec["display_name"] == "Spore (Python)" and spec["language"] == "python"
    assert spec["metadata"] == {"debugger": True}
    assert spec["argv"][0] == sys.executable and spec["argv"][-4:] == ["-m", "spore_kernel", "-f", "{connection_file}"]
    assert spec["env"] == {"SPORE_X": "1"}
    assert (spec_dir / "logo-svg.svg").read_text().startswith("<svg")
    found = spec_manager(tmp_path / "share" / "jupyter").get_kernel_spec("spore")
    assert found.display_name == "Spore (Python)"


def test_install_locations_are_exclusive(tmp_path: Path) -> None:
    done = install("--user", "--prefix", str(tmp_path))
    assert done.returncode == 2 and "not allowed with argument" in done.stderr
