"""`python -m spore_kernel.bridge`, the VS Code notebook controller's kernel, driven over its stdio.

The bridge runs as a subprocess exactly as the extension starts it, with a real Spore kernel from a
kernelspec installed by the package's own CLI into a temporary prefix (found through JUPYTER_PATH,
as Jupyter would find it). Every stdout line must be a protocol line; a reader thread checks it.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from queue import Empty, Queue
from typing import Any

import pytest

from .harness import KERNEL_PATH, install_spec, strip_ansi

TIMEOUT = 60.0
TENSOR_MIME = "application/vnd.spore.tensor+json"


class BridgeProcess:
    """The bridge subprocess, its protocol lines (parsed by a reader thread) and its stderr."""

    def __init__(self, data_dir: Path | None, cwd: Path) -> None:
        env = dict(os.environ, PYTHONPATH=KERNEL_PATH, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
        if data_dir is not None:
            env["JUPYTER_PATH"] = str(data_dir)
        self.stderr_path = cwd / "bridge-stderr.txt"
        self._stderr = self.stderr_path.open("w")
        self.proc = subprocess.Popen([sys.executable, "-m", "spore_kernel.bridge"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=self._stderr, cwd=cwd, env=env)
        self.lines: Queue[dict[str, Any] | None] = Queue()
        self.stray: list[bytes] = []  # stdout lines that are not protocol lines
        self.next_id = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for raw in self.proc.stdout:
            try:
                obj = json.loads(raw)
                assert isinstance(obj, dict) and ("reply" in obj or "event" in obj)
            except (ValueError, AssertionError):
                self.stray.append(raw)
                continue
            self.lines.put(obj)
        self.lines.put(None)

    def send_raw(self, text: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(text.encode("utf-8"))
        self.proc.stdin.flush()

    def send(self, kind: str, **fields: Any) -> int:
        self.next_id += 1
        self.send_raw(json.dumps({"id": self.next_id, "type": kind, **fields}) + "\n")
        return self.next_id

    def next_line(self, timeout: float = TIMEOUT) -> dict[str, Any]:
        try:
            obj = self.lines.get(timeout=timeout)
        except Empty:
            raise AssertionError(f"no line from the bridge within {timeout}s; stderr:\n{self.stderr()}") from None
        assert obj is not None, f"the bridge closed its stdout; stderr:\n{self.stderr()}"
        return obj

    def until_reply(self, rid: int, timeout: float = TIMEOUT) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        """The reply to request `rid` and the events that came before it."""
        events = []
        deadline = time.monotonic() + timeout
        while True:
            obj = self.next_line(max(deadline - time.monotonic(), 0.1))
            if obj.get("reply") == rid:
                return obj, events
            events.append(obj)

    def until_event(self, name: str, timeout: float = TIMEOUT) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        seen = []
        deadline = time.monotonic() + timeout
        while True:
            obj = self.next_line(max(deadline - time.monotonic(), 0.1))
            if obj.get("event") == name:
                return obj, seen
            seen.append(obj)

    def call(self, kind: str, **fields: Any) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        return self.until_reply(self.send(kind, **fields))

    def execute(self, code: str, cell: str = "cell-1") -> tuple[dict[str, Any], list[dict[str, Any]]]:
        rep, events = self.call("execute", code=code, cell=cell, metadata={"cellId": cell})
        return rep, [e for e in events if e.get("event") == "output"]

    def stderr(self) -> str:
        self._stderr.flush()
        return self.stderr_path.read_text(errors="replace")

    def close(self) -> None:
        if self.proc.poll() is None:
            assert self.proc.stdin is not None
            self.proc.stdin.close()  # EOF: the bridge shuts its kernel down and exits
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._stderr.close()


@pytest.fixture(scope="module")
def spec_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return install_spec(tmp_path_factory.mktemp("bridge-spec"))


def started(spec_dir: Path, tmp: Path) -> tuple[BridgeProcess, dict[str, Any]]:
    b = BridgeProcess(spec_dir, tmp)
    rep, events = b.call("start", cwd=str(tmp))
    assert rep["ok"], rep
    assert events == []
    return b, rep


@pytest.fixture(scope="module")
def bridge(spec_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[BridgeProcess, dict[str, Any]]]:
    b, rep = started(spec_dir, tmp_path_factory.mktemp("bridge-cwd"))
    try:
        yield b, rep
    finally:
        b.close()
        assert b.stray == [], f"non-protocol stdout lines: {b.stray}"


def test_start_runs_the_installed_spec_over_ipc_in_a_private_directory(bridge, spec_dir):
    b, rep = bridge
    kernel, conn = rep["kernel"], rep["connection"]
    assert kernel["source"] == "installed" and kernel["name"] == "spore"
    assert Path(kernel["spec"]) == spec_dir / "kernels" / "spore"
    assert rep["implementation"] == "spore" and rep["language_info"]["name"] == "python"
    assert conn["transport"] == "ipc"
    private = Path(conn["ip"]).parent
    assert stat.S_IMODE(private.stat().st_mode) & 0o777 == 0o700  # (jupyter_client adds the sticky bit)
    assert Path(f"{conn['ip']}-{conn['shell_port']}").exists()  # the shell socket file
    assert "key" not in json.dumps(rep)  # the signing key stays in the bridge
    cwd, _ = b.call("evaluate", expression="__import__('os').getcwd()")
    assert cwd["data"]["text/plain"] == repr(kernel["cwd"])


def test_execute_forwards_outputs_in_order_with_execution_counts(bridge):
    b, _ = bridge
    code = ("import io, sys\nfrom PIL import Image as P\nfrom IPython.display import Image, display\n"
            "print('one')\nprint('two', file=sys.stderr)\nbuf = io.BytesIO(); P.new('RGB', (3, 2)).save(buf, 'PNG')\n"
            "display(Image(buf.getvalue()))\nprint('three')\n6 * 7")
    rep, outs = b.execute(code, cell="vscode-notebook-cell:/nb.ipynb#a")
    assert rep["ok"] and rep["status"] == "ok"
    kinds = [(o["msg_type"], o["content"].get("name")) for o in outs]
    assert kinds == [("stream", "stdout"), ("stream", "stderr"), ("display_data", None), ("stream", "stdout"),
                     ("execute_result", None)]
    assert all(o["id"] == rep["reply"] and o["cell"] == "vscode-notebook-cell:/nb.ipynb#a" for o in outs)
    assert outs[0]["content"]["text"] == "one\n" and outs[3]["content"]["text"] == "three\n"
    import base64

    assert base64.b64decode(outs[2]["content"]["data"]["image/png"])[:8] == b"\x89PNG\r\n\x1a\n"
    result = outs[4]["content"]
    assert result["data"]["text/plain"] == "42" and result["execution_count"] == rep["execution_count"]
    again, _ = b.execute("1")
    assert again["execution_count"] == rep["execution_count"] + 1


def test_an_error_gives_its_traceback_and_the_reply_says_error(bridge):
    b, _ = bridge
    rep, outs = b.execute("def f():\n    return 1 / 0\nf()")
    assert rep["status"] == "error" and rep["ename"] == "ZeroDivisionError"
    [err] = [o["content"] for o in outs if o["msg_type"] == "error"]
    assert err["ename"] == "ZeroDivisionError" and err["evalue"] == "division by zero"
    text = strip_ansi("\n".join(err["traceback"]))
    assert "return 1 / 0" in text and "ZeroDivisionError" in text


def test_evaluate_returns_the_mime_bundle_without_counting_or_output(bridge):
    b, _ = bridge
    before, _ = b.execute("import spore as ms\nt = ms.Tensor([[1.0, 2.0], [3.0, 4.0]])")
    rep, events = b.call("evaluate", expression="t")
    assert rep["ok"], rep
    assert events == []  # no output, no status: a silent execute
    assert rep["data"][TENSOR_MIME]["stats"]["shape"] == [2, 2]
    assert rep["data"]["text/plain"].startswith("Tensor[2, 2]")
    bad, events = b.call("evaluate", expression="no_such_name")
    assert not bad["ok"] and bad["error"].startswith("NameError") and events == []
    after, _ = b.execute("0")
    assert after["execution_count"] == before["execution_count"] + 1


def test_input_request_round_trip_and_password_prompts(bridge):
    b, _ = bridge
    rid = b.send("execute", code="name = input('Name: ')\nimport getpass\npw = getpass.getpass('Secret: ')\n"
                                 "print(name, len(pw))", cell="c-input")
    ask, _ = b.until_event("input_request")
    assert ask == {"event": "input_request", "id": rid, "cell": "c-input", "prompt": "Name: ", "password": False}
    ok, _ = b.call("input_reply", value="Ada")
    assert ok["ok"]
    ask2, _ = b.until_event("input_request")
    assert ask2["prompt"] == "Secret: " and ask2["password"] is True
    b.send("input_reply", value="hunter2")
    rep, events = b.until_reply(rid)
    assert rep["status"] == "ok"
    printed = "".join(e["content"].get("text", "") for e in events if e.get("msg_type") == "stream")
    assert "Ada 7" in printed


def test_interrupt_stops_a_sleeping_cell_quickly(bridge):
    b, _ = bridge
    # the cell would sleep for 10 minutes: a reply well before that can only come from the interrupt.
    # The bounds are generous because a CI machine running the suite on every core may deschedule
    # the kernel for seconds; an interrupt that does not work still fails them by minutes
    rid = b.send("execute", code="import time\nprint('sleeping', flush=True)\ntime.sleep(600)")
    out, _ = b.until_event("output")
    assert out["content"]["text"] == "sleeping\n"  # the cell is running now
    t0 = time.monotonic()
    b.send("interrupt")
    rep, events = b.until_reply(rid, timeout=120)
    assert time.monotonic() - t0 < 60
    assert rep["status"] == "error" and rep["ename"] == "KeyboardInterrupt"
    assert any(e.get("msg_type") == "error" and e["content"]["ename"] == "KeyboardInterrupt" for e in events)
    alive, _ = b.execute("'still here'")
    assert alive["status"] == "ok"


def test_bad_lines_get_error_events_or_failed_replies_and_the_bridge_goes_on(bridge):
    b, _ = bridge
    b.send_raw("this is not json\n")
    assert b.next_line() == {"event": "error", "message": "the line is not JSON (Expecting value at column 1)"}
    b.send_raw("[1, 2]\n")
    assert b.next_line()["message"] == "a request must be a JSON object, got list"
    b.send_raw('{"type": "execute", "code": "1"}\n')
    assert "needs an \"id\"" in b.next_line()["message"]
    b.send_raw('{"id": "x1", "type": "explode"}\n')
    rep = b.next_line()
    assert rep["reply"] == "x1" and not rep["ok"] and "unknown request type 'explode'" in rep["error"]
    b.send_raw('{"id": "x2", "type": "execute"}\n')
    assert b.next_line() == {"reply": "x2", "ok": False, "error": "execute needs 'code' (a string)"}
    b.send_raw('{"id": "x3", "type": "execute", "code": 5}\n')
    assert b.next_line()["error"] == "execute: 'code' must be a string, got int"
    b.send_raw(b"\xff\xfe\n".decode("latin-1"))
    assert b.next_line()["event"] == "error"
    again, _ = b.call("start")
    assert not again["ok"] and "already running" in again["error"]
    rep, _ = b.execute("'fine'")
    assert rep["status"] == "ok"


def test_the_kernels_own_stdout_goes_to_stderr_not_into_the_protocol(bridge):
    b, _ = bridge
    rep, outs = b.execute("import os\nos.write(1, b'raw bytes on fd 1\\n')\nNone")
    assert rep["status"] == "ok" and outs == []
    # the kernel's fd 1 is the bridge's stderr; reaching it is what the next execute's round trip ensures
    b.execute("0")
    assert "raw bytes on fd 1" in b.stderr()
    assert b.stray == []


def test_restart_loses_state_and_counts_from_one(spec_dir, tmp_path):
    b, rep = started(spec_dir, tmp_path)
    try:
        b.execute("y = 5")
        old_pid = rep["kernel"]["pid"]
        restarted, _ = b.call("restart")
        assert restarted["ok"] and restarted["pid"] != old_pid
        gone, _ = b.call("evaluate", expression="y")
        assert not gone["ok"] and "NameError" in gone["error"]
        first, _ = b.execute("1")
        assert first["execution_count"] == 1
    finally:
        b.close()
    assert b.stray == []


def test_a_kernel_that_dies_is_reported_and_can_be_restarted(spec_dir, tmp_path):
    b, _ = started(spec_dir, tmp_path)
    try:
        rid = b.send("execute", code="import os\nos._exit(7)")
        died, _ = b.until_event("kernel_died")
        assert died["exit_code"] == 7 and "restart" in died["message"]
        rep, _ = b.until_reply(rid)
        assert rep == {"reply": rid, "ok": False, "error": died["message"], "dead": True}
        refused, _ = b.execute("1")
        assert not refused["ok"] and "the kernel died; restart it" in refused["error"]
        assert "Traceback" not in b.stderr()  # a refusal is an answer, not a logged failure
        back, _ = b.call("restart")
        assert back["ok"]
        rep, outs = b.execute("'back'")
        assert rep["status"] == "ok" and outs[0]["content"]["data"]["text/plain"] == "'back'"
    finally:
        b.close()


def test_eof_on_stdin_shuts_the_kernel_down_and_removes_the_private_directory(spec_dir, tmp_path):
    b, rep = started(spec_dir, tmp_path)
    private = Path(rep["connection"]["ip"]).parent
    pid = rep["kernel"]["pid"]
    b.close()
    assert b.proc.returncode == 0, b.stderr()
    assert not private.exists()
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


def test_start_with_a_missing_directory_fails_and_the_bridge_can_still_start(spec_dir, tmp_path):
    b = BridgeProcess(spec_dir, tmp_path)
    try:
        bad, _ = b.call("start", cwd=str(tmp_path / "nope"))
        assert not bad["ok"] and "is not a directory" in bad["error"]
        missing, _ = b.call("start", kernel_name="no-such-kernel-spec")
        assert not missing["ok"] and "no kernelspec named 'no-such-kernel-spec'" in missing["error"]
        good, _ = b.call("start", cwd=str(tmp_path))
        assert good["ok"], good
    finally:
        b.close()


def test_without_an_installed_spec_the_built_in_one_is_used(tmp_path):
    from spore_kernel.bridge import resolve_kernelspec

    empty = tmp_path / "kernels"
    empty.mkdir()
    ksm, source = resolve_kernelspec("spore", tmp_path / "private", kernel_dirs=[str(empty)])
    assert source == "built-in"
    spec = ksm.get_kernel_spec("spore")
    assert spec.argv[:1] == [sys.executable] and spec.argv[-4:] == ["-m", "spore_kernel", "-f", "{connection_file}"]
    assert spec.interrupt_mode == "signal"
    with pytest.raises(ValueError, match="no kernelspec named 'other'"):
        resolve_kernelspec("other", tmp_path / "private", kernel_dirs=[str(empty)])


def test_complete_and_inspect_answer_with_the_kernels_reply(bridge):
    b, _ = bridge
    b.execute("spore_value_for_completion = 3")
    done, events = b.call("complete", code="spore_value_for_", cursor_pos=16)
    assert done["ok"] and "spore_value_for_completion" in done["matches"] and events == []
    info, _ = b.call("inspect", code="len", cursor_pos=3)
    assert info["ok"] and info["found"] and "Return the number of items" in info["data"]["text/plain"]
