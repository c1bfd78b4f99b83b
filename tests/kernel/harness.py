"""Start the real `spore` kernel the way Jupyter does, and talk to it over the protocol.

The kernelspec is installed with `python -m spore_kernel install --prefix TMP` into a temporary
prefix found through JUPYTER_PATH, so what is tested is what a user installs. The kernel's
PYTHONPATH (spore_kernel and spore_viz from the work tree) and a private IPYTHONDIR (a fresh
history database) go into the spec's env. Everything listens on 127.0.0.1.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from queue import Empty
from typing import Any

from jupyter_client.blocking.client import BlockingKernelClient
from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import KernelManager

ROOT = Path(__file__).resolve().parents[2]
# engine/ too: the kernel runs the work tree's spore even where the editable install is missing or stale.
KERNEL_PATH = os.pathsep.join([str(ROOT / "kernel"), str(ROOT / "visualizer"), str(ROOT / "engine")])
TIMEOUT = 30
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def strip_ansi(text: str) -> str:
    return ANSI.sub("", text)


def install_spec(tmp: Path) -> Path:
    """Install the kernelspec with the package's own CLI into `tmp`; return the data dir to search."""
    ipython_dir = tmp / "ipython"
    ipython_dir.mkdir(exist_ok=True)
    env = dict(os.environ, PYTHONPATH=KERNEL_PATH)
    subprocess.run([sys.executable, "-m", "spore_kernel", "install", "--prefix", str(tmp),
                    "--env", f"PYTHONPATH={KERNEL_PATH}", "--env", f"IPYTHONDIR={ipython_dir}",
                    "--env", "OMP_NUM_THREADS=1", "--env", "OPENBLAS_NUM_THREADS=1"],
                   check=True, env=env, capture_output=True, text=True)
    return tmp / "share" / "jupyter"


def spec_manager(data_dir: Path) -> KernelSpecManager:
    return KernelSpecManager(kernel_dirs=[str(data_dir / "kernels")])


@dataclass
class Result:
    """An execute_reply and the iopub messages the request produced (status/execute_input dropped)."""

    reply: dict[str, Any]
    outputs: list[dict[str, Any]] = field(default_factory=list)

    @property
    def status(self) -> str:
        return self.reply["content"]["status"]

    def of_type(self, msg_type: str) -> list[dict[str, Any]]:
        return [m["content"] for m in self.outputs if m["msg_type"] == msg_type]

    @property
    def stdout(self) -> str:
        return "".join(c["text"] for c in self.of_type("stream") if c["name"] == "stdout")

    @property
    def stderr(self) -> str:
        return "".join(c["text"] for c in self.of_type("stream") if c["name"] == "stderr")

    def bundles(self) -> list[dict[str, Any]]:
        """data of every execute_result and display_data, in order."""
        return [m["content"]["data"] for m in self.outputs if m["msg_type"] in ("execute_result", "display_data")]

    def result_data(self) -> dict[str, Any]:
        found = self.of_type("execute_result")
        assert found, f"no execute_result; outputs: {self.outputs}"
        return found[-1]["data"]

    def error_text(self) -> str:
        errors = self.of_type("error")
        assert errors, f"no error output; outputs: {self.outputs}"
        return strip_ansi("\n".join(errors[-1]["traceback"]))


def install_stock_spec(tmp: Path) -> Path:
    """A plain ipykernel kernelspec (no Spore kernel class) for testing `%load_ext spore_kernel`."""
    spec_dir = tmp / "kernels" / "stock"
    spec_dir.mkdir(parents=True)
    (spec_dir / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "stock ipykernel", "language": "python",
        "env": {"PYTHONPATH": KERNEL_PATH, "IPYTHONDIR": str(tmp / "ipython"), "OMP_NUM_THREADS": "1"},
    }))
    return tmp


class Kernel:
    """One running spore kernel (or, with `kernel_name="stock"`, a plain ipykernel) and a blocking client."""

    def __init__(self, tmp: Path, kernel_name: str = "spore") -> None:
        data_dir = install_spec(tmp) if kernel_name == "spore" else install_stock_spec(tmp)
        start = time.perf_counter()
        for attempt in range(3):
            self.km = KernelManager(kernel_name=kernel_name, kernel_spec_manager=spec_manager(data_dir))
            self.km.transport = "tcp"
            self.km.ip = "127.0.0.1"
            self.km.start_kernel()
            self.kc: BlockingKernelClient = self.km.client()
            self.kc.start_channels()
            try:
                self.info = self.kc.kernel_info(reply=True, timeout=TIMEOUT)["content"]
                break
            except (Empty, TimeoutError):
                # A kernel whose ports another process took in the meantime dies binding them (two test
                # workers start kernels at once); start it again on fresh ports. A live kernel that does
                # not answer is a real failure.
                alive = self.km.is_alive()
                self.kc.stop_channels()
                self.km.shutdown_kernel(now=True)
                if alive or attempt == 2:
                    raise
        self.startup_s = time.perf_counter() - start
        self.drain()

    def drain(self) -> None:
        """Drop iopub messages left from earlier requests (waits until the kernel is idle)."""
        while True:
            try:
                self.kc.get_iopub_msg(timeout=0.2)
            except Empty:
                return

    def execute(self, code: str, timeout: float = TIMEOUT, allow_stdin: bool = False) -> Result:
        """Run `code` and collect its outputs until the kernel goes idle for this request."""
        msg_id = self.kc.execute(code, allow_stdin=allow_stdin)
        return self.collect(msg_id, timeout)

    def collect(self, msg_id: str, timeout: float = TIMEOUT) -> Result:
        outputs: list[dict[str, Any]] = []
        deadline = time.monotonic() + timeout
        while True:
            msg = self.kc.get_iopub_msg(timeout=max(deadline - time.monotonic(), 0.1))
            if msg["parent_header"].get("msg_id") != msg_id:
                continue
            if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
                break
            if msg["msg_type"] not in ("status", "execute_input"):
                outputs.append(msg)
        reply = self.shell_reply(msg_id, timeout)
        return Result(reply, outputs)

    def shell_reply(self, msg_id: str, timeout: float = TIMEOUT) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            reply = self.kc.get_shell_msg(timeout=max(deadline - time.monotonic(), 0.1))
            if reply["parent_header"].get("msg_id") == msg_id:
                return reply

    def ok(self, code: str, timeout: float = TIMEOUT) -> Result:
        res = self.execute(code, timeout)
        assert res.status == "ok", f"{code!r} failed: {res.reply['content']}\n{res.outputs}"
        return res

    def inspect(self, code: str, cursor_pos: int | None = None, detail_level: int = 0) -> dict[str, Any]:
        msg_id = self.kc.inspect(code, cursor_pos if cursor_pos is not None else len(code), detail_level)
        return self.shell_reply(msg_id)["content"]

    def complete(self, code: str, cursor_pos: int | None = None) -> dict[str, Any]:
        msg_id = self.kc.complete(code, cursor_pos if cursor_pos is not None else len(code))
        return self.shell_reply(msg_id)["content"]

    def close(self) -> None:
        self.kc.stop_channels()
        self.km.shutdown_kernel(now=True)
