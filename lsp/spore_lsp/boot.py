"""Fast start over stdio: the first diagnostics before pygls and lsprotocol have loaded.

Importing pygls and lsprotocol (550 attrs classes, then a converter that resolves all their type hints)
takes about 0.8 s of CPU, more than the whole budget from starting the server to the first diagnostics
(1 s). The analysis itself needs none of it. So `serve_stdio` starts a reader thread that owns stdin and
cuts it into messages, and a *boot* thread that answers what arrives before pygls is ready —
`initialize` (with the capabilities pygls would compute, `capabilities.py`), `textDocument/didOpen` and
`notebookDocument/didOpen` (analysed with the same `AnalysisCache`, published as the same JSON
`convert.py` makes) — while the main
thread imports the server. Then every message the boot thread saw is handed to pygls, in order, followed
by the rest of the stream: pygls initialises its workspace from the same `initialize`, opens the same
documents (their analyses are already cached) and answers whatever the boot thread left; its own
`initialize` response is dropped, since the client has one.

The boot thread handles nothing that changes a document it has seen (`didChange`, `didClose`, notebook
sync): from the first such message on, it only queues, so pygls applies every change in order. Requests
that arrive early (a hover) are queued and answered by pygls once it has loaded.
`--no-fast-start` skips all this (pygls answers from the first message).
"""

from __future__ import annotations

import json
import os
import queue
import sys
import threading
from typing import Any, BinaryIO

from .analysis import Analysis, AnalysisCache, Issue, stale_issue
from .capabilities import initialize_result
from .documents import Program, from_cells, from_text, to_utf16

SEVERITY = {"error": 1, "warning": 2, "information": 3, "hint": 4}
# notifications that change no document: the boot thread lets them wait for pygls and goes on
HARMLESS = {"initialized", "$/setTrace", "$/cancelRequest", "workspace/didChangeConfiguration",
            "workspace/didChangeWorkspaceFolders", "window/workDoneProgress/cancel"}
EOF_ = object()
HANDOVER = object()


class Frame:
    """One message as read from the client: its body bytes and (when it is JSON) the decoded message."""

    __slots__ = ("body", "message")

    def __init__(self, body: bytes) -> None:
        self.body = body
        try:
            msg = json.loads(body)
        except ValueError:
            msg = None
        self.message: dict[str, Any] | None = msg if isinstance(msg, dict) else None

    def raw(self) -> bytes:
        return b"Content-Length: %d\r\n\r\n" % len(self.body) + self.body


class FdReader:
    """`readline` and `read(n)` over a file descriptor, read with `os.read`.

    Not stdin's BufferedReader: the reader thread is a daemon blocked in a read when the server exits, and a
    daemon holding the BufferedReader's lock makes the interpreter's shutdown abort ("could not acquire lock
    for <_io.BufferedReader name='<stdin>'> at interpreter shutdown")."""

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._buf = b""

    def _more(self) -> bool:
        chunk = os.read(self._fd, 65536)
        self._buf += chunk
        return bool(chunk)

    def readline(self) -> bytes:
        while True:
            i = self._buf.find(b"\n")
            if i >= 0:
                line, self._buf = self._buf[:i + 1], self._buf[i + 1:]
                return line
            if not self._more():
                line, self._buf = self._buf, b""
                return line

    def read(self, n: int) -> bytes:
        while len(self._buf) < n and self._more():
            pass
        out, self._buf = self._buf[:n], self._buf[n:]
        return out


def read_frames(stream: Any, out: queue.Queue) -> None:
    """Cut the client's byte stream into messages (Content-Length framing) until it ends."""
    try:
        while True:
            length = None
            while True:
                line = stream.readline()
                if not line:
                    return
                if not line.strip():
                    if length is not None:
                        break
                    continue
                name, _, value = line.partition(b":")
                if name.strip().lower() == b"content-length":
                    length = int(value.strip())
            body = stream.read(length)
            if len(body) < length:
                return
            out.put(Frame(body))
    except (OSError, ValueError):
        return
    finally:
        out.put(EOF_)


class FrameReader:
    """The stream pygls reads (`readline` and `read(n)`): the boot thread's messages again, then the rest."""

    def __init__(self, replay: list[Frame], frames: queue.Queue) -> None:
        self._buf = b"".join(f.raw() for f in replay)
        self._pos = 0
        self._frames = frames
        self._ended = False

    def _fill(self) -> bool:
        while self._pos >= len(self._buf):
            if self._ended:
                return False
            item = self._frames.get()
            if item is EOF_:
                self._ended = True
                return False
            if isinstance(item, Frame):
                self._buf, self._pos = item.raw(), 0
        return True

    def readline(self) -> bytes:
        if not self._fill():
            return b""
        end = self._buf.find(b"\n", self._pos)
        end = len(self._buf) if end < 0 else end + 1
        line, self._pos = self._buf[self._pos:end], end
        return line

    def read(self, n: int = -1) -> bytes:
        parts = []
        while n and self._fill():
            chunk = self._buf[self._pos:self._pos + n]
            self._pos += len(chunk)
            n -= len(chunk)
            parts.append(chunk)
        return b"".join(parts)


class Output:
    """stdout, shared by the boot thread and then pygls; pygls's answer to the `initialize` the boot thread
    already answered is dropped."""

    def __init__(self, stream: BinaryIO) -> None:
        self._stream = stream
        self._lock = threading.Lock()
        self.drop_id: Any = None
        self._dropping = False

    def send(self, message: dict[str, Any]) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        self.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    def write(self, data: bytes) -> None:
        if self._dropping:
            head, sep, body = data.partition(b"\r\n\r\n")
            try:
                msg = json.loads(body) if sep else None
            except ValueError:
                msg = None
            if isinstance(msg, dict) and msg.get("id") == self.drop_id and "method" not in msg:
                self._dropping = False
                return
        with self._lock:
            self._stream.write(data)
            self._stream.flush()

    def drop_response(self, rid: Any) -> None:
        self.drop_id, self._dropping = rid, True

    def flush(self) -> None:
        """Every write is flushed already (pygls's writer calls this after each)."""

    def close(self) -> None:
        self._stream.close()


def diagnostic_json(program: Program, issue: Issue) -> tuple[str, dict[str, Any]]:
    """`convert.diagnostic` as JSON, without lsprotocol: (document URI, the Diagnostic)."""
    uri, start = _position(program, issue.line, issue.col)
    end_uri, end = _position(program, issue.end_line, issue.end_col)
    if end_uri != uri:
        chunk = program.chunk_by_uri(uri)
        last = chunk.first_line + chunk.n_lines - 1 if chunk else issue.line
        _, end = _position(program, last, len(program.line_text(last)))
    out: dict[str, Any] = {"range": {"start": start, "end": end}, "message": issue.message,
                           "severity": SEVERITY[issue.severity], "code": issue.code, "source": "spore"}
    if issue.data:
        out["data"] = dict(issue.data)
    return uri, out


def _position(program: Program, line: int, col: int) -> tuple[str, dict[str, int]]:
    uri, local = program.to_local(line)
    return uri, {"line": local, "character": to_utf16(program.line_text(line), col)}


def publish_json(out: Output, current: Program, an: Analysis) -> None:
    """`diagnostics.publish_analysis` for a freshly opened program, as JSON."""
    for err in an.errors:
        out.send({"method": "window/logMessage", "params": {"type": 2, "message": f"spore-lsp: {current.key}: {err}"}})
    by_uri: dict[str, list[dict[str, Any]]] = {c.uri: [] for c in an.program.chunks}
    for issue in an.issues if an.tree is not None else []:
        uri, diag = diagnostic_json(an.program, issue)
        by_uri.setdefault(uri, []).append(diag)
    for chunk in current.chunks:
        by_uri.setdefault(chunk.uri, [])
    note = stale_issue(an, current)
    if note is not None:
        uri, diag = diagnostic_json(current, note)
        by_uri.setdefault(uri, []).append(diag)
    versions = {c.uri: c.version for c in current.chunks}
    for uri, diags in by_uri.items():
        if uri not in versions:
            continue
        params: dict[str, Any] = {"uri": uri, "diagnostics": diags}
        if versions[uri] is not None:
            params["version"] = versions[uri]
        out.send({"method": "textDocument/publishDiagnostics", "params": params})


def notebook_program(params: dict[str, Any]) -> Program | None:
    """`SporeLanguageServer.program_for` of a notebook being opened: its Python code cells in order."""
    nb = params.get("notebookDocument")
    docs = params.get("cellTextDocuments")
    if not isinstance(nb, dict) or not isinstance(nb.get("uri"), str) or not isinstance(docs, list):
        return None
    by_uri = {d.get("uri"): d for d in docs if isinstance(d, dict)}
    cells = []
    for cell in nb.get("cells") or []:
        doc = by_uri.get(cell.get("document")) if isinstance(cell, dict) else None
        if doc is None or cell.get("kind") != 2 or (doc.get("languageId") or "python") != "python":
            continue  # markup cells, cells in other languages
        if not isinstance(doc.get("text"), str):
            return None
        cells.append((doc["uri"], doc["text"], doc.get("version")))
    return from_cells(nb["uri"], nb.get("version"), cells)


class Boot:
    """What the server does before pygls has loaded (run on its own thread by `serve_stdio`)."""

    def __init__(self, frames: queue.Queue, out: Output, analyses: AnalysisCache) -> None:
        self.frames, self.out, self.analyses = frames, out, analyses
        self.replay: list[Frame] = []
        self.ready = threading.Event()  # pygls has loaded: answer nothing more, only queue
        self.preloaded = threading.Event()
        self.initialized = False
        self.handling = True
        self.ended = False

    def preload(self) -> None:
        """Import what answering needs before the main thread starts on pygls, so the two threads never import
        the same module at once: analysing a two-line Spore file imports every check module the analysis
        uses, whatever checks are added later."""
        from .analysis import analyse

        analyse(from_text("spore-lsp:warm-up", "import spore as ms\nms.set_context(mode=ms.GRAPH_MODE)\n", None),
                None)

    def run(self) -> None:
        try:
            self.preload()
        finally:
            self.preloaded.set()
        while True:
            item = self.frames.get()
            if item is HANDOVER:
                return
            if item is EOF_:
                self.ended = True
                continue  # pygls will see the end after the messages before it
            self.replay.append(item)
            if self.handling and not self.ready.is_set():
                try:
                    self.handle(item.message)
                except Exception:  # noqa: BLE001 - whatever went wrong, pygls answers from here on
                    self.handling = False

    def handle(self, msg: dict[str, Any] | None) -> None:
        method = msg.get("method") if msg is not None else None
        if not self.initialized:
            if method == "initialize" and "id" in msg:
                self.out.send({"id": msg["id"], "result": initialize_result(msg.get("params") or {})})
                self.out.drop_response(msg["id"])
                self.initialized = True
            else:
                self.handling = False
        elif method == "textDocument/didOpen":
            doc = (msg.get("params") or {}).get("textDocument") or {}
            uri, text, version = doc.get("uri"), doc.get("text"), doc.get("version")
            if not isinstance(uri, str) or not isinstance(text, str):
                self.handling = False
                return
            program = from_text(uri, text, version)
            publish_json(self.out, program, self.analyses.get(program, None))
        elif method == "notebookDocument/didOpen":
            program = notebook_program(msg.get("params") or {})
            if program is None:
                self.handling = False
                return
            publish_json(self.out, program, self.analyses.get(program, None))
        elif method in HARMLESS or (method is not None and "id" in msg):
            pass  # waits for pygls (a request is answered once it has loaded)
        else:
            self.handling = False  # a change to a document: from here on, pygls applies everything in order


def serve_stdio(stdin: BinaryIO | None = None, stdout: BinaryIO | None = None) -> None:
    """Serve LSP over stdio, answering the first messages while the server loads (see the module doc)."""
    stdin = stdin or sys.stdin.buffer
    stdout = stdout or sys.stdout.buffer
    try:
        source: Any = FdReader(stdin.fileno())
    except (AttributeError, OSError, ValueError):  # not a real file (an in-memory stream)
        source = stdin
    frames: queue.Queue = queue.Queue()
    threading.Thread(target=read_frames, args=(source, frames), name="spore-lsp-stdin", daemon=True).start()
    out = Output(stdout)
    analyses = AnalysisCache()
    boot = Boot(frames, out, analyses)
    thread = threading.Thread(target=boot.run, name="spore-lsp-boot", daemon=True)
    thread.start()
    boot.preloaded.wait()
    from .features import server  # the heavy import, meanwhile

    boot.ready.set()
    frames.put(HANDOVER)
    thread.join()
    server.analyses = analyses
    reader = FrameReader(boot.replay, frames)
    if boot.ended:
        frames.put(EOF_)
    server.start_io(reader, out)
