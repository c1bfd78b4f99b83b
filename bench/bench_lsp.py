"""Benchmark: the language server's latency as an editor sees it, beside a yardstick in the same run.

Drives `python -m spore_lsp` over stdio with a minimal hand-written JSON-RPC client (no client library
between the clock and the pipe) and measures: server start to first diagnostics (and to the full ones,
once the API index has loaded); time to first diagnostics for generated Spore files of 300 / 3,000 /
10,000 lines (Cells with `__init__` and `construct`, some Graph-mode findings and PyTorch habits);
re-diagnosis after a one-character edit and after a new line / deleted line in the middle (every later line
moves); hover and completion latency (median of --repeats); the
server's peak RSS (VmHWM). Yardstick on the same files: `ruff check` (a separate process, so its
start-up is included) and plain `ast.parse` in this process. Targets (issue 11): 3,000 lines diagnosed
in under 200 ms, an edit re-diagnosed in under 50 ms, hover/completion under 20 ms, start to first
diagnostics under 1 s.

    .venv/bin/python bench/bench_lsp.py [--repeats 30]      # pinned to one core: taskset -c 1 ...

Start-up is timed over the fast start (`spore_lsp/boot.py`: the first diagnostics before pygls has
loaded) and, separately, to the first hover answered (pygls loaded).
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import queue
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from itertools import count
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SIZES = (300, 3_000, 10_000)
TIMEOUT = 60.0

HEADER = '''"""A generated Spore model file for the language-server bench."""
import numpy as np

import spore as ms
from spore import nn, ops

ms.set_context(mode=ms.GRAPH_MODE)

'''

CELL = '''

class Block{i}(nn.Cell):
    """Block {i}: conv, activation, pooling and a dense head."""

    def __init__(self, channels={c}):
        super().__init__()
        self.conv = nn.Conv2d(3, channels, 3, pad_mode="pad", padding=1)
        self.bn = nn.BatchNorm2d(channels)
        self.relu = nn.ReLU()
        self.pool = nn.MaxPool2d(kernel_size=2, stride=2)
        self.flatten = nn.Flatten()
        self.fc = nn.Dense(channels * 16 * 16, 10)

    def construct(self, x):
        x = self.conv(x)
        x = self.bn(x)
        x = self.relu(x)
        x = self.pool(x)
        x = self.flatten(x)
{extra}        return self.fc(x)
'''
EXTRAS = ["        print(x)\n", "        x = x.view(x.shape[0], -1)\n", "        y = ops.matmul(x, x.T)\n",
          "        x = ops.relu(x) + 1\n"]


def generate(lines: int) -> str:
    """A Spore file of about `lines` lines: Cells with construct methods (a print, a .view habit, ...)."""
    parts = [HEADER]
    n = HEADER.count("\n")
    i = 0
    while n < lines - 4:
        block = CELL.format(i=i, c=4 + i % 5 * 4, extra=EXTRAS[i % len(EXTRAS)])
        parts.append(block)
        n += block.count("\n")
        i += 1
    parts.append("\n\nnet = Block0()\nout = net(ms.Tensor(np.ones((2, 3, 32, 32), np.float32)))\n")
    return "".join(parts)


class Client:
    """A minimal LSP client over the server's stdin/stdout: Content-Length frames, a reader thread."""

    def __init__(self) -> None:
        env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
        self.t_start = time.perf_counter()
        self.proc = subprocess.Popen([sys.executable, "-m", "spore_lsp"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, cwd=ROOT)
        self.inbox: queue.Queue[tuple[float, dict[str, Any]]] = queue.Queue()
        self.ids = count(1)
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
                line = line.strip()
                if not line:
                    break
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            body = out.read(length or 0)
            self.inbox.put((time.perf_counter(), json.loads(body)))

    def send(self, msg: dict[str, Any]) -> None:
        data = json.dumps({"jsonrpc": "2.0", **msg}).encode()
        assert self.proc.stdin is not None
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(data) + data)
        self.proc.stdin.flush()

    def notify(self, method: str, params: Any) -> None:
        self.send({"method": method, "params": params})

    def wait(self, pred) -> tuple[float, dict[str, Any]]:
        """The first incoming message matching `pred` (others are dropped), with its arrival time."""
        deadline = time.perf_counter() + TIMEOUT
        while True:
            try:
                t, msg = self.inbox.get(timeout=max(0.0, deadline - time.perf_counter()))
            except queue.Empty:
                raise TimeoutError(f"the server did not answer within {TIMEOUT:.0f} s") from None
            if msg.get("method") in ("workspace/configuration", "client/registerCapability",
                                     "window/workDoneProgress/create") and "id" in msg:
                self.send({"id": msg["id"], "result": None})
            if pred(msg):
                return t, msg

    def request(self, method: str, params: Any) -> tuple[float, Any]:
        """(seconds until the response, its result)."""
        rid = next(self.ids)
        t0 = time.perf_counter()
        self.send({"id": rid, "method": method, "params": params})
        t, msg = self.wait(lambda m: m.get("id") == rid and "method" not in m)
        return t - t0, msg.get("result")

    def diagnostics(self, uri: str, version: int | None = None, pred=lambda ds: True) -> tuple[float, list]:
        t, msg = self.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                           and m["params"]["uri"] == uri and (version is None or m["params"].get("version") == version)
                           and pred(m["params"]["diagnostics"]))
        return t, msg["params"]["diagnostics"]

    def open(self, uri: str, text: str, version: int = 1) -> None:
        self.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python", "version": version,
                                                              "text": text}})

    def initialize(self) -> None:
        self.request("initialize", {"processId": os.getpid(), "rootUri": None, "capabilities": {
            "textDocument": {"publishDiagnostics": {"versionSupport": True},
                             "hover": {"contentFormat": ["markdown", "plaintext"]}}}})
        self.notify("initialized", {})

    def peak_rss_mib(self) -> float:
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
        return float("nan")

    def close(self) -> None:
        try:
            self.request("shutdown", None)
            self.notify("exit", None)
            self.proc.wait(timeout=10)
        except (TimeoutError, subprocess.TimeoutExpired, OSError):
            self.proc.kill()
            self.proc.wait()


def offset_position(text: str, i: int) -> dict[str, int]:
    """The LSP position of offset `i` (the generated texts are ASCII: UTF-16 columns are characters)."""
    return {"line": text.count("\n", 0, i), "character": i - (text.rfind("\n", 0, i) + 1)}


def position(text: str, needle: str, delta: int = 0) -> dict[str, int]:
    return offset_position(text, text.index(needle) + delta)


def start_to_first_diagnostics() -> tuple[float, float, float]:
    """Seconds from spawning the server to (the first diagnostics, the first hover answered — the server
    fully loaded —, the diagnostics with Spore's names)."""
    c = Client()
    try:
        c.initialize()
        uri = "file:///bench/start.py"
        text = "from spore import ops\nops.reduce_summ\n"
        c.open(uri, text)
        rid = next(c.ids)  # a hover on no name: answered at once by a loaded server (no API index to wait for)
        c.send({"id": rid, "method": "textDocument/hover", "params": {"textDocument": {"uri": uri},
                                                                      "position": {"line": 2, "character": 0}}})
        seen: dict[str, float] = {}
        while len(seen) < 3:  # they may come in any order
            t, msg = c.wait(lambda m: m.get("id") == rid and "method" not in m
                            or m.get("method") == "textDocument/publishDiagnostics")
            if msg.get("id") == rid:
                seen["hover"] = t
                continue
            seen.setdefault("first", t)
            if any(d.get("code") == "unknown-api" for d in msg["params"]["diagnostics"]):
                seen.setdefault("full", t)
        return seen["first"] - c.t_start, seen["hover"] - c.t_start, seen["full"] - c.t_start
    finally:
        c.close()


def ms(s: float) -> str:
    return f"{s * 1000:.1f} ms" if s < 1 else f"{s:.2f} s"


def ruff_check(path: Path) -> float:
    ruff = Path(sys.executable).with_name("ruff")
    t0 = time.perf_counter()
    subprocess.run([str(ruff), "check", "--no-cache", "--isolated", "--exit-zero", "-q", str(path)],
                   capture_output=True, timeout=TIMEOUT, check=True)
    return time.perf_counter() - t0


def best(f, repeats: int) -> float:
    return min(f() for _ in range(repeats))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeats", type=int, default=30, help="hover/completion/edit samples (median)")
    a = ap.parse_args(argv)
    texts = {n: generate(n) for n in SIZES}
    starts = [start_to_first_diagnostics() for _ in range(3)]
    start_first = statistics.median(s[0] for s in starts)
    start_hover = statistics.median(s[1] for s in starts)
    start_full = statistics.median(s[2] for s in starts)

    rows: list[tuple[str, str, str, str]] = []  # (what, value, target, verdict)

    def row(what: str, value: float | None, target: float | None, note: str = "") -> None:
        shown = ms(value) if value is not None else "n/a"
        verdict = "" if target is None or value is None else ("met" if value < target else "MISSED")
        goal = "" if not target else (f"< {target * 1000:g} ms" if target < 1 else f"< {target:g} s")
        rows.append((what, shown + (f" {note}" if note else ""), goal, verdict))

    c = Client()
    open_times: dict[int, float] = {}
    edit_times: dict[int, float] = {}
    newline_times: dict[int, float] = {}
    n_diags: dict[int, int] = {}
    hover_s: list[float] = []
    completion_s: list[float] = []
    n_edits = max(5, a.repeats // 3)
    try:
        c.initialize()
        warm = "file:///bench/warm.py"
        c.open(warm, "from spore import ops\nops.reduce_summ\n")
        c.diagnostics(warm, pred=lambda ds: any(d.get("code") == "unknown-api" for d in ds))  # API index loaded
        for n, text in texts.items():
            samples = []
            for r in range(3):  # a fresh URI each time: no cached analysis
                uri = f"file:///bench/gen_{n}_{r}.py"
                t0 = time.perf_counter()
                c.open(uri, text)
                t, diags = c.diagnostics(uri)
                samples.append(t - t0)
                n_diags[n] = len(diags)
            open_times[n] = statistics.median(samples)
            # one-character edits in the middle of the file: `kernel_size=2` -> 3 -> 2 -> ...
            middle = text.index(f"class Block{text.count('class Block') // 2}(")
            p = offset_position(text, text.index("kernel_size=", middle) + len("kernel_size="))
            edits = []
            version = 1
            for k in range(n_edits):
                version += 1
                t0 = time.perf_counter()
                c.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                                                    "contentChanges": [{"range": {"start": p, "end": {
                                                        "line": p["line"], "character": p["character"] + 1}},
                                                        "text": "3" if k % 2 == 0 else "2"}]})
                t, _ = c.diagnostics(uri, version)
                edits.append(t - t0)
            edit_times[n] = statistics.median(edits)
            # Enter and Backspace at the start of that class: every later line moves (their trees are shifted)
            q = offset_position(text, middle)
            lines_edits = []
            for k in range(n_edits):
                version += 1
                change = ({"range": {"start": q, "end": q}, "text": "\n"} if k % 2 == 0 else
                          {"range": {"start": q, "end": {"line": q["line"] + 1, "character": 0}}, "text": ""})
                t0 = time.perf_counter()
                c.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                                                    "contentChanges": [change]})
                t, _ = c.diagnostics(uri, version)
                lines_edits.append(t - t0)
            newline_times[n] = statistics.median(lines_edits)
            if n == 3_000:
                ident = {"uri": uri}
                hover_at = position(text, "nn.Conv2d(", 4)
                complete_at = position(text, "nn.Conv2d(", 3)  # right after `nn.`
                for _ in range(a.repeats):
                    dt, res = c.request("textDocument/hover", {"textDocument": ident, "position": hover_at})
                    assert res and "Conv2d" in json.dumps(res), res
                    hover_s.append(dt)
                    dt, res = c.request("textDocument/completion", {"textDocument": ident, "position": complete_at})
                    assert res and len(res.get("items", [])) > 10, res
                    completion_s.append(dt)
        peak = c.peak_rss_mib()
    finally:
        c.close()

    with tempfile.TemporaryDirectory(prefix="spore-bench-lsp-") as tmp:
        yard = {}
        for n, text in texts.items():
            f = Path(tmp) / f"gen_{n}.py"
            f.write_text(text)
            try:
                ruff_s: float | None = best(lambda f=f: ruff_check(f), 3)
            except (OSError, subprocess.SubprocessError):
                ruff_s = None
            parse_s = best(lambda text=text: (t0 := time.perf_counter(), ast.parse(text))
                           and time.perf_counter() - t0, 5)
            yard[n] = (ruff_s, parse_s)

    row("server start -> first diagnostics", start_first, 1.0)
    row("server start -> first hover answered (pygls loaded)", start_hover, None)
    row("server start -> diagnostics with Spore's names (API index loaded)", start_full, None)
    for n in SIZES:
        lines = texts[n].count("\n")
        row(f"open {lines:,}-line file -> diagnostics ({n_diags[n]} findings)", open_times[n],
            0.2 if n == 3_000 else None)
    for n in SIZES:
        row(f"one-character edit, {texts[n].count(chr(10)):,} lines -> diagnostics (median of {n_edits})",
            edit_times[n], 0.05 if n == 3_000 else None)
    for n in SIZES:
        row(f"new line / line deleted, {texts[n].count(chr(10)):,} lines -> diagnostics (median of {n_edits})",
            newline_times[n], 0.05 if n == 3_000 else None)
    row(f"hover, 3,000 lines (median of {len(hover_s)})", statistics.median(hover_s), 0.02,
        f"(p90 {ms(sorted(hover_s)[int(0.9 * len(hover_s))])})")
    row(f"completion after `nn.`, 3,000 lines (median of {len(completion_s)})", statistics.median(completion_s), 0.02,
        f"(p90 {ms(sorted(completion_s)[int(0.9 * len(completion_s))])})")
    for n in SIZES:
        ruff_s, parse_s = yard[n]
        row(f"  yardstick: ruff check, {texts[n].count(chr(10)):,} lines (process incl. start-up)", ruff_s, None)
        row(f"  yardstick: ast.parse, {texts[n].count(chr(10)):,} lines", parse_s, None)
    w = max(len(r[0]) for r in rows)
    v = max(len(r[1]) for r in rows)
    g = max(len("target"), *(len(r[2]) for r in rows))
    print(f"{'measurement':<{w}}  {'time':<{v}}  {'target':<{g}}  verdict")
    for what, shown, target, verdict in rows:
        print(f"{what:<{w}}  {shown:<{v}}  {target:<{g}}  {verdict}".rstrip())
    print(f"server peak RSS (VmHWM) after all of the above: {peak:.0f} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
