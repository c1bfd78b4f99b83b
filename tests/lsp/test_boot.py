"""The fast start (`spore_lsp.boot`): answers before pygls has loaded, and the same answers pygls gives.

- `initialize`: the capabilities the boot thread sends equal pygls's own answer (the server started with
  `--no-fast-start`) for a range of clients (notebook support or not, position encodings, willSave, file
  operations).
- Diagnostics: the JSON the boot thread publishes equals lsprotocol's serialisation of `convert.py`'s
  Diagnostic for every issue of the examples, a notebook and a stale note.
- Over real stdio: one answer per request (pygls's second `initialize` answer is dropped), the first
  diagnostics, a hover and a change sent before pygls is ready are all answered, in order; the end of the
  input during start-up ends the server.
"""

from __future__ import annotations

import io
import json
import os
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from lsprotocol.converters import get_converter

from spore_lsp.analysis import AnalysisCache, analyse, stale_issue
from spore_lsp.api import ApiIndex
from spore_lsp.boot import HANDOVER, Boot, Frame, Output, diagnostic_json
from spore_lsp.capabilities import initialize_result
from spore_lsp.convert import diagnostic
from spore_lsp.diagnostics import publish_analysis
from spore_lsp.documents import from_cells, from_text

from .test_incremental import SHAPED

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT = 60.0
CLIENTS = {
    "bare": {},
    "notebooks": {"notebookDocument": {"synchronization": {}}},
    "utf-8 first": {"general": {"positionEncodings": ["utf-8", "utf-16"]}},
    "utf-32 and notebooks": {"general": {"positionEncodings": ["utf-32"]},
                             "notebookDocument": {"synchronization": {"dynamicRegistration": False}}},
    "unknown encoding": {"general": {"positionEncodings": ["ebcdic"]}},
    "willSave": {"textDocument": {"synchronization": {"willSave": True, "willSaveWaitUntil": True}}},
    "file operations": {"workspace": {"fileOperations": {k: True for k in (
        "willCreate", "didCreate", "willRename", "didRename", "willDelete", "didDelete")}}},
}


class Server:
    """`python -m spore_lsp` over real stdio, with a reader thread (Content-Length frames)."""

    def __init__(self, *args: str) -> None:
        env = dict(os.environ, OMP_NUM_THREADS="1")
        self.proc = subprocess.Popen([sys.executable, "-m", "spore_lsp", *args], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
        self.inbox: queue.Queue[dict[str, Any]] = queue.Queue()
        self.seen: list[dict[str, Any]] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        out = self.proc.stdout
        assert out is not None
        while True:
            length = None
            while True:
                line = out.readline()
                if not line:
                    return
                if not line.strip():
                    break
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            self.inbox.put(json.loads(out.read(length or 0)))

    def send(self, **msg: Any) -> None:
        data = json.dumps({"jsonrpc": "2.0", **msg}).encode()
        assert self.proc.stdin is not None
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(data) + data)
        self.proc.stdin.flush()

    def wait(self, pred) -> dict[str, Any]:
        deadline = time.monotonic() + TIMEOUT
        while True:
            msg = self.inbox.get(timeout=max(0.01, deadline - time.monotonic()))
            self.seen.append(msg)
            if msg.get("method") in ("client/registerCapability", "workspace/configuration") and "id" in msg:
                self.send(id=msg["id"], result=None)
            if pred(msg):
                return msg

    def response(self, rid: int) -> dict[str, Any]:
        return self.wait(lambda m: m.get("id") == rid and "method" not in m)

    def diagnostics(self, uri: str, version: int) -> list[dict[str, Any]]:
        return self.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri
                         and m["params"].get("version") == version)["params"]["diagnostics"]

    def close(self) -> None:
        try:
            self.send(id=9999, method="shutdown")
            self.response(9999)
            self.send(method="exit")
            self.proc.wait(timeout=TIMEOUT)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()


@pytest.mark.parametrize("client", sorted(CLIENTS))
def test_the_boot_threads_initialize_answer_is_pyglss(client):
    params = {"processId": None, "rootUri": None, "capabilities": CLIENTS[client]}
    server = Server("--no-fast-start")
    try:
        server.send(id=1, method="initialize", params=params)
        got = server.response(1)["result"]
    finally:
        server.close()
    assert initialize_result(params) == got, f"update capabilities.SERVER_CAPABILITIES from: {json.dumps(got)}"


def _programs():
    for name in ("simple_cnn_migration.py", "train_digits.py", "train_digits_model.py"):
        yield from_text(f"file:///{name}", (ROOT / "examples" / name).read_text(), 3)
    cells = (ROOT / "examples" / "simple_cnn_migration.py").read_text().split("\n\n\n")
    yield from_cells("file:///nb.ipynb", 2, [(f"cell{i}", c, i) for i, c in enumerate(cells)])
    yield from_text("file:///shaped.py", SHAPED, 1)
    yield from_cells("file:///nb2.ipynb", 1, [(f"c{i}", c, 1) for i, c in enumerate(SHAPED.split("\n\n\n"))])
    yield from_text("file:///u.py", "import spore as ms\nfrom spore import nn, ops\n# é 😀\nclass N(nn.Module):\n"
                    "    def forward(self, x): return x.view(-1)  # 𝔘\n"
                    "class M(nn.Cell):\n    def __init__(self):\n        super().__init__()\n"
                    "        self.fc = nn.Dense(4, 2)\n    # spore: input_shape=(3, 5)\n"
                    "    def construct(self, x):\n        print(x)\n        return ops.reduce_summ(self.fc(x))\n", None)


def test_the_boot_threads_diagnostics_are_lsprotocols():
    converter = get_converter()
    api = ApiIndex()  # the checks that need it too: their issues carry data (shapes, names)
    n = 0
    for program in _programs():
        an = analyse(program, None, api)
        for issue in an.issues:
            uri, diag = diagnostic(program, issue)
            assert diagnostic_json(program, issue) == (uri, converter.unstructure(diag, types.Diagnostic))
            n += 1
        broken = from_text(program.key, program.text + "\ndef (:\n", 4) if not program.is_notebook else None
        if broken is not None:
            note = stale_issue(analyse(broken, an, api), broken)
            assert note is not None
            uri, diag = diagnostic(broken, note)
            assert diagnostic_json(broken, note) == (uri, converter.unstructure(diag, types.Diagnostic))
    assert n >= 10


def _frame(**msg: Any) -> Frame:
    return Frame(json.dumps({"jsonrpc": "2.0", **msg}).encode())


class _Recorder:
    """Stands in for the server in `diagnostics.publish_analysis`: records what it would publish, as JSON."""

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []

    def log(self, message: str, kind: Any = None) -> None:
        self.sent.append({"log": message})

    def text_document_publish_diagnostics(self, params: types.PublishDiagnosticsParams) -> None:
        self.sent.append(get_converter().unstructure(params, types.PublishDiagnosticsParams))


def test_the_boot_thread_publishes_what_the_server_would_for_opened_files_and_notebooks():
    text = SHAPED.replace("nn.Cell", "nn.Module", 1)
    cells = [("nb#0", "import spore as ms\nfrom spore import nn\n%time x = 1\n"), ("nb#1", "# notes"),
             ("nb#2", SHAPED.split("\n\n\n", 1)[1])]
    frames: queue.Queue = queue.Queue()
    for msg in [
        dict(id=1, method="initialize", params={"capabilities": {"notebookDocument": {"synchronization": {}}}}),
        dict(method="initialized", params={}),
        dict(method="textDocument/didOpen", params={"textDocument": {"uri": "file:///a.py", "languageId": "python",
                                                                     "version": 3, "text": text}}),
        dict(method="notebookDocument/didOpen", params={
            "notebookDocument": {"uri": "file:///n.ipynb", "notebookType": "jupyter-notebook", "version": 2, "cells": [
                {"kind": 2, "document": "nb#0"}, {"kind": 1, "document": "nb#1"}, {"kind": 2, "document": "nb#2"}]},
            "cellTextDocuments": [{"uri": u, "languageId": "markdown" if u == "nb#1" else "python", "version": 1,
                                   "text": t} for u, t in cells]}),
        dict(method="textDocument/didChange", params={"textDocument": {"uri": "file:///a.py", "version": 4},
                                                      "contentChanges": [{"text": ""}]}),
        dict(method="textDocument/didOpen", params={"textDocument": {"uri": "file:///b.py", "languageId": "python",
                                                                     "version": 1, "text": text}}),
    ]:
        frames.put(_frame(**msg))
    frames.put(HANDOVER)
    buf = io.BytesIO()
    boot = Boot(frames, Output(buf), AnalysisCache())
    boot.run()
    sent = []
    data = buf.getvalue()
    while data:
        head, _, rest = data.partition(b"\r\n\r\n")
        n = int(head.split(b":")[1])
        sent.append(json.loads(rest[:n]))
        data = rest[n:]
    assert sent[0]["id"] == 1 and sent[0]["result"] == initialize_result(
        {"capabilities": {"notebookDocument": {"synchronization": {}}}})
    want = _Recorder()
    for program in (from_text("file:///a.py", text, 3),
                    from_cells("file:///n.ipynb", 2, [("nb#0", cells[0][1], 1), ("nb#2", cells[2][1], 1)])):
        publish_analysis(want, program, analyse(program, None))  # type: ignore[arg-type]
    assert [m["params"] for m in sent[1:]] == want.sent, "nothing for b.py: it came after a change"
    assert any(d["code"] == "torch-module" for d in sent[1]["params"]["diagnostics"])
    assert {m["params"]["uri"] for m in sent[2:]} == {"nb#0", "nb#2"}
    assert len(boot.replay) == 6, "every message goes to pygls afterwards, in order"


def test_requests_and_changes_sent_while_the_server_loads_are_answered_in_order():
    uri = "file:///boot/early.py"
    text = "import spore as ms\nfrom spore import nn\n\nclass Net(nn.Module):\n    pass\n"
    server = Server()
    try:
        server.send(id=1, method="initialize", params={"processId": None, "rootUri": None, "capabilities": {
            "textDocument": {"publishDiagnostics": {"versionSupport": True}}}})
        init = server.response(1)
        server.send(method="initialized", params={})
        server.send(method="textDocument/didOpen", params={"textDocument": {
            "uri": uri, "languageId": "python", "version": 1, "text": text}})
        server.send(id=2, method="textDocument/hover", params={"textDocument": {"uri": uri},
                                                               "position": {"line": 3, "character": 14}})
        fixed = text.replace("Module", "Cell")
        server.send(method="textDocument/didChange", params={"textDocument": {"uri": uri, "version": 2},
                                                             "contentChanges": [{"text": fixed}]})
        first = server.diagnostics(uri, 1)
        hover = server.response(2)
        second = server.diagnostics(uri, 2)
        server.close()
    finally:
        if server.proc.poll() is None:
            server.proc.kill()
    assert server.proc.returncode == 0, "shutdown and exit end the server cleanly"
    assert init["result"]["serverInfo"]["name"] == "spore-lsp"
    assert [d["code"] for d in first] == ["torch-module"]
    assert "error" not in hover
    assert [d["code"] for d in second] == []
    ids = [m["id"] for m in server.seen if "id" in m and "method" not in m]
    assert sorted(ids) == sorted(set(ids)), f"one answer per request: {ids}"


@pytest.mark.parametrize("fast", [True, False], ids=["fast start", "pygls from the start"])
def test_positions_are_utf16_whatever_encoding_the_client_prefers(fast):
    """A client preferring UTF-8 (Neovim 0.10+, Helix) is told UTF-16, the units every position is sent in."""
    text = 'import spore as ms\nfrom spore import nn\ns = "éé😀"; L = nn.Linear\n'
    server = Server() if fast else Server("--no-fast-start")
    try:
        server.send(id=1, method="initialize", params={"processId": None, "rootUri": None, "capabilities": {
            "general": {"positionEncodings": ["utf-8", "utf-32", "utf-16"]}}})
        assert server.response(1)["result"]["capabilities"]["positionEncoding"] == "utf-16"
        server.send(method="initialized", params={})
        server.send(method="textDocument/didOpen", params={"textDocument": {
            "uri": "file:///enc.py", "languageId": "python", "version": 1, "text": text}})
        diags = server.diagnostics("file:///enc.py", 1)
    finally:
        server.close()
    line = text.split("\n")[2]
    col = line.index("Linear")
    assert [(d["code"], d["range"]["start"]) for d in diags] == [
        ("torch-linear", {"line": 2, "character": len(line[:col].encode("utf-16-le")) // 2})]


def test_after_the_preload_the_boot_thread_imports_nothing_while_pygls_loads():
    """Two threads importing the same modules at once can deadlock on the import locks: the boot thread
    imports what it needs before the main thread starts on pygls, and nothing after."""
    code = ("import queue, sys\nfrom pathlib import Path\nfrom spore_lsp.boot import Boot, publish_json, Output\n"
            "from spore_lsp.analysis import AnalysisCache\nfrom spore_lsp.documents import from_text\n"
            "import io\nBoot(queue.Queue(), None, None).preload()\nbefore = set(sys.modules)\n"
            f"text = Path({str(ROOT / 'examples' / 'simple_cnn_migration.py')!r}).read_text()\n"
            "p = from_text('file:///a.py', text + 'import torch\\n', 1)\n"
            "publish_json(Output(io.BytesIO()), p, AnalysisCache().get(p, None))\n"
            "print(sorted(set(sys.modules) - before))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=TIMEOUT, check=True)
    assert out.stdout.strip() == "[]", out.stdout


def test_the_end_of_input_while_the_server_loads_ends_it():
    server = Server()
    server.send(id=1, method="initialize", params={"processId": None, "rootUri": None, "capabilities": {}})
    server.response(1)
    assert server.proc.stdin is not None
    server.proc.stdin.close()
    assert server.proc.wait(timeout=TIMEOUT) is not None
