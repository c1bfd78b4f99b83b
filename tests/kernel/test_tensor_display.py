"""Tensor displays in a real Spore kernel, hardened (issue 15): any shape or dtype displays, a failing
view logs to the kernel's own log (the process's stderr, not the cell's output) and shows the plain
repr, and displaying a huge tensor reads and copies only a bounded part of it.

The kernel is started with its stderr sent to a file, as a front end keeps the kernel's log, so the
tests can see both sides: what reached the notebook over iopub and what reached the kernel log.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from pathlib import Path
from queue import Empty
from typing import Any

import pytest
from jupyter_client.manager import KernelManager

from .harness import TIMEOUT, Kernel, install_spec, spec_manager

MIME_T = "application/vnd.spore.tensor+json"
SETUP = "import numpy as np\nimport spore as ms\nimport spore_kernel.tensor_view as _tv\n"


class LoggedKernel(Kernel):
    """The harness's Kernel, started with its stderr (the kernel log) going to `log_path`."""

    def __init__(self, tmp: Path) -> None:  # noqa: D107 - the harness's start, plus stderr=
        self.log_path = tmp / "kernel.log"
        self._log = self.log_path.open("wb")
        self.km = KernelManager(kernel_name="spore", kernel_spec_manager=spec_manager(install_spec(tmp)))
        self.km.transport, self.km.ip = "tcp", "127.0.0.1"
        # ipykernel turns off its capture of fd 1/2 when it sees PYTEST_CURRENT_TEST; a user's kernel
        # has it on, and that capture is what put the log into the cell: start the kernel as users do.
        env = {k: v for k, v in os.environ.items() if k != "PYTEST_CURRENT_TEST"}
        self.km.start_kernel(stderr=self._log, env=env)
        self.kc = self.km.client()
        self.kc.start_channels()
        self.info = self.kc.kernel_info(reply=True, timeout=TIMEOUT)["content"]
        self.drain()

    def log_text(self) -> str:
        return self.log_path.read_text(errors="replace")

    def wait_for_log(self, needle: str, timeout: float = TIMEOUT) -> str:
        """The kernel log once it contains `needle` (the process writes it asynchronously)."""
        deadline = time.monotonic() + timeout
        while needle not in (text := self.log_text()):
            assert time.monotonic() < deadline, f"{needle!r} never reached the kernel log:\n{text}"
            time.sleep(0.05)
        return text

    def until_stream(self, code: str, marker: str) -> list[dict[str, Any]]:
        """Run `code`; every iopub message, whatever cell it names, until a stream carries `marker`."""
        self.kc.execute(code)
        seen: list[dict[str, Any]] = []
        deadline = time.monotonic() + TIMEOUT
        while not any(m["msg_type"] == "stream" and marker in m["content"]["text"] for m in seen):
            try:
                seen.append(self.kc.get_iopub_msg(timeout=max(deadline - time.monotonic(), 0.1)))
            except Empty:
                raise AssertionError(f"{marker!r} never arrived; got {[m['content'] for m in seen]}") from None
        self.drain()
        return seen

    def close(self) -> None:
        super().close()
        self._log.close()


@pytest.fixture(scope="module")
def k(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LoggedKernel]:
    kernel = LoggedKernel(tmp_path_factory.mktemp("spore-kernel-log"))
    try:
        kernel.ok(SETUP)
        yield kernel
    finally:
        kernel.close()


def texts(msgs: list[dict[str, Any]]) -> str:
    """All text the notebook received: streams, results, displays and errors."""
    out = []
    for m in msgs:
        c = m["content"]
        out.append(c.get("text", ""))
        out.extend(str(v) for v in c.get("data", {}).values())
        out.extend(c.get("traceback", []))
    return "\n".join(out)


def test_a_failing_view_logs_to_the_kernel_log_not_the_cell_and_shows_the_repr(k: LoggedKernel) -> None:
    # ipykernel pipes fd 2 into the notebook through one FIFO, read in order by one thread. The cell
    # shows a tensor whose view fails, then writes a marker to fd 2 itself: once the marker has
    # arrived over iopub, a log line that had gone through fd 2 would have arrived before it.
    k.ok("import os\n_saved = _tv.bundle\n_tv.bundle = lambda t: 1 / 0")
    try:
        seen = k.until_stream("display(ms.Tensor([1.0, 2.0]))\nos.write(2, b'FD2-MARK\\n')", "FD2-MARK")
    finally:
        k.ok("_tv.bundle = _saved")
    shown = [m["content"]["data"] for m in seen if m["msg_type"] == "display_data"]
    assert shown == [{"text/plain": "Tensor(shape=[2], dtype=Float32, value= [1., 2.])"}]
    text = texts(seen)
    assert "spore display" not in text and "ZeroDivisionError" not in text and "Traceback" not in text
    log = k.wait_for_log("ZeroDivisionError")
    assert "[spore_kernel] WARNING | spore display of Tensor failed; showing its repr" in log
    assert MIME_T in k.ok("ms.Tensor([1.0])").result_data()


SHAPES = ["(0, 2, 2)", "(2, 3, 0, 4, 5)", "(0,)", "(3, 0)", "()", "(1,)", "(5, 1, 1, 7)"]


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", ["float32", "int32", "bool", "float16", "bfloat16"])
def test_every_shape_and_dtype_gets_the_rich_display(k: LoggedKernel, shape: str, dtype: str) -> None:
    before = k.log_text()
    make = f"ms.Tensor(np.arange(int(np.prod({shape}))).reshape({shape}) % 3 == 1)" if dtype == "bool" else \
        f"ms.Tensor(np.arange(int(np.prod({shape})), dtype=np.float32).reshape({shape}), ms.{dtype})"
    data = k.ok(make).result_data()
    assert set(data) == {"text/plain", "text/html", MIME_T}, data.get("text/plain")
    bundle = data[MIME_T]
    dims = list(eval(shape)) if shape != "()" else []  # noqa: S307 - our own literal tuples
    assert bundle["stats"]["shape"] == dims and bundle["stats"]["dtype"] == dtype
    assert data["text/plain"].startswith(f"Tensor[{', '.join(map(str, dims))}] {dtype}")
    empty = 0 in dims
    assert ("empty" in data["text/plain"]) == empty
    assert (bundle["heatmap"] is None) == (empty or len(dims) < 2)
    assert k.log_text() == before  # nothing failed, so nothing was logged


def test_displaying_a_2e7_element_bfloat16_tensor_stays_bounded(k: LoggedKernel) -> None:
    # tracemalloc sees NumPy's buffers; the display is formatted the way the output area gets it.
    code = ("import tracemalloc\n"
            "big = ms.Tensor(np.linspace(-3, 3, 20_000_000, dtype=np.float32).reshape(400, 50, 1000), ms.bfloat16)\n"
            "tracemalloc.start()\n"
            "_fmt, _ = get_ipython().display_formatter.format(big)\n"
            "_peak = tracemalloc.get_traced_memory()[1]\n"
            "tracemalloc.stop()\n"
            "print(_peak)\n"
            "print(json.dumps(_fmt['application/vnd.spore.tensor+json']['stats']))\n")
    out = k.ok("import json\n" + code).stdout.splitlines()
    peak, stats = int(out[0]), json.loads(out[1])
    assert peak < 4 << 20, f"the display allocated {peak:,} bytes for a 40 MB tensor"
    assert stats["sampled"] is True and stats["n_read"] == 65536 and stats["size"] == 20_000_000
    assert -3.01 < stats["min"] < -2.9 and 2.9 < stats["max"] < 3.01 and abs(stats["mean"]) < 0.01


def test_print_in_the_kernel_of_a_huge_tensor_copies_only_the_corners(k: LoggedKernel) -> None:
    code = ("import tracemalloc\n"
            "view = ms.Tensor(np.broadcast_to(np.array(0.5, ms.bfloat16.np), (5000, 50_000)))\n"
            "tracemalloc.start()\nprint(view)\n_peak = tracemalloc.get_traced_memory()[1]\ntracemalloc.stop()\n"
            "print(_peak)")
    lines = k.ok(code).stdout.splitlines()
    assert lines[0] == "[[0.5 0.5 0.5 ... 0.5 0.5 0.5]" and int(lines[-1]) < 1 << 20
