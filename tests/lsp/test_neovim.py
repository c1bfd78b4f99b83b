"""A second, independent client: Neovim's built-in LSP client, headless, drives `python -m spore_lsp`.

`nvim --headless -u NONE` (no user config; XDG dirs point into tmp_path) edits a Spore file and runs a
Lua script that starts the server with `vim.lsp.start_client`, attaches it to the buffer and, in its
`textDocument/publishDiagnostics` handler, keeps what arrives. The script waits (`vim.wait` on a
condition, bounded) until the diagnostics name the expected codes, optionally asks for the code actions of one
of them and a hover (`vim.lsp.buf_request_sync`), writes every notification and answer it received as JSON
and quits. The tests then check the codes, lines and ranges Neovim saw: Graph-mode and PyTorch-habit
diagnostics, and a static-shape mismatch with its quick fix and the shape hover.
"""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

SOURCE = """import spore as ms
from spore import nn, ops

ms.set_context(mode=ms.GRAPH_MODE, jit_syntax_level=ms.STRICT)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(4, 2)

    def construct(self, x):
        print(x)
        try:
            x = self.fc(x)
        except ValueError:
            pass
        return ops.relu(x)
"""

LUA = r"""
local out_path = %(out)s
local received = {}
local function codes_seen()
  local last = received[#received]
  if last == nil then return false end
  local want = %(want)s
  for _, d in ipairs(last.diagnostics or {}) do
    if want[d.code] ~= nil then want[d.code] = true end
  end
  for _, seen in pairs(want) do if not seen then return false end end
  return true
end

vim.bo.filetype = "python"
local id = vim.lsp.start_client({
  name = "spore-lsp",
  cmd = %(cmd)s,
  root_dir = %(root)s,
  handlers = {
    ["textDocument/publishDiagnostics"] = function(err, result, ctx, config)
      if result ~= nil and result.uri == vim.uri_from_bufnr(0) then table.insert(received, result) end
    end,
  },
})
local ok = id ~= nil and vim.lsp.buf_attach_client(0, id)
local arrived = ok and vim.wait(%(timeout_ms)d, codes_seen, 20)
-- then, for the first diagnostic of the code asked for (if any): the code actions Neovim gets for it, and a hover
local followed = {}
local ask = %(ask)s
if arrived and ask ~= vim.NIL then
  local uri = vim.uri_from_bufnr(0)
  for _, d in ipairs(received[#received].diagnostics or {}) do
    if d.code == ask.code and followed.actions == nil then
      local res = vim.lsp.buf_request_sync(0, "textDocument/codeAction", {
        textDocument = { uri = uri }, range = d.range, context = { diagnostics = { d } } }, %(timeout_ms)d)
      followed.actions = (res and res[id] and res[id].result) or {}
      res = vim.lsp.buf_request_sync(0, "textDocument/hover", {
        textDocument = { uri = uri }, position = ask.hover }, %(timeout_ms)d)
      followed.hover = (res and res[id] and res[id].result) or vim.NIL
    end
  end
end
local f = io.open(out_path, "w")
f:write(vim.fn.json_encode({ started = ok, arrived = arrived, uri = vim.uri_from_bufnr(0),
                             notifications = received, followed = followed }))
f:close()
if id ~= nil then vim.lsp.stop_client(id, true) end
vim.cmd(arrived and "qall!" or "cquit!")
"""


def lua_string(s: str) -> str:
    return json.dumps(s)  # a JSON string of plain paths is a valid Lua string literal


def run_neovim(tmp_path: Path, source: str, want: list[str], ask: dict | None = None) -> dict:
    """Edit `source` in headless Neovim with spore-lsp attached; what its client received (and, with `ask`,
    the code actions and hover it got for the first diagnostic of code ask["code"])."""
    nvim = shutil.which("nvim")
    assert nvim is not None, "Neovim is a test dependency: `make` installs Debian's neovim (APT_PKGS)"
    src = tmp_path / "net.py"
    src.write_text(source)
    out = tmp_path / "diagnostics.json"
    script = tmp_path / "spore_lsp_client.lua"
    cmd = "{" + ", ".join(lua_string(s) for s in (sys.executable, "-m", "spore_lsp")) + "}"
    want_lua = "{ " + ", ".join(f"[{lua_string(c)}] = false" for c in want) + " }"
    ask_lua = "vim.NIL" if ask is None else (f"{{ code = {lua_string(ask['code'])}, hover = {{ line = "
                                             f"{ask['hover'][0]}, character = {ask['hover'][1]} }} }}")
    script.write_text(LUA % {"out": lua_string(str(out)), "cmd": cmd, "root": lua_string(str(tmp_path)),
                             "timeout_ms": 60_000, "want": want_lua, "ask": ask_lua})
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NVIM", "VIM", "MYVIMRC"))}
    env.update(XDG_CONFIG_HOME=str(tmp_path / "config"), XDG_DATA_HOME=str(tmp_path / "data"),
               XDG_STATE_HOME=str(tmp_path / "state"), XDG_CACHE_HOME=str(tmp_path / "cache"),
               HOME=str(tmp_path), OMP_NUM_THREADS="1")
    proc = subprocess.run([nvim, "--headless", "-u", "NONE", "-i", "NONE", "-n", "-c", f"edit {src}",
                           "-c", f"luafile {script}"], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=180, stdin=subprocess.DEVNULL)
    assert out.exists(), f"nvim wrote nothing (rc {proc.returncode}): {proc.stderr[-2000:]}"
    report = json.loads(out.read_text())
    assert report["started"] is True, "vim.lsp.start_client / buf_attach_client failed"
    assert report["arrived"] is True, f"the expected diagnostics did not arrive: {report['notifications']}"
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert report["uri"].endswith("/net.py")
    return report


def test_neovim_headless_sees_graph_mode_and_pytorch_diagnostics_on_the_right_lines(tmp_path: Path):
    report = run_neovim(tmp_path, SOURCE, ["graph-print", "graph-try", "torch-module"])
    diags = report["notifications"][-1]["diagnostics"]
    assert all(d["source"] == "spore" for d in diags)
    lines = SOURCE.split("\n")
    seen = {(d["code"], d["range"]["start"]["line"], d["range"]["start"]["character"], d["range"]["end"]["line"],
             d["range"]["end"]["character"], d["severity"]) for d in diags}
    print_line = lines.index("        print(x)")
    try_line = lines.index("        try:")
    module_line = lines.index("class Net(nn.Module):")
    # STRICT Graph mode refuses print and try: errors (severity 1), each on its own statement's line
    assert ("graph-print", print_line, 8, print_line, len("        print(x)"), 1) in seen, seen
    assert any(c == "graph-try" and (ln, col, sev) == (try_line, 8, 1) for c, ln, col, _, _, sev in seen), seen
    # the PyTorch habit: `Module` of `nn.Module`, an error whose message names the Spore spelling
    start = len("class Net(nn.")
    assert ("torch-module", module_line, start, module_line, start + len("Module"), 1) in seen, seen
    assert "nn.Cell" in next(d for d in diags if d["code"] == "torch-module")["message"]
    assert {c for c, *_ in seen} == {"graph-print", "graph-try", "torch-module"}, seen


SHAPED = """import numpy as np
import spore as ms
from spore import nn


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 16, 3, pad_mode="pad", padding=1)
        self.pool = nn.MaxPool2d(kernel_size=2, stride=2)
        self.flatten = nn.Flatten()
        self.fc = nn.Dense(16 * 16 * 8, 10)

    def construct(self, x):
        x = self.conv(x)
        x = self.pool(x)
        x = self.flatten(x)
        return self.fc(x)


out = Net()(ms.Tensor(np.ones((4, 3, 32, 32), np.float32)))
"""


def test_neovim_headless_sees_the_shape_mismatch_with_its_fix_and_the_shape_hover(tmp_path: Path):
    lines = SHAPED.split("\n")
    flat = lines.index("        x = self.flatten(x)")
    report = run_neovim(tmp_path, SHAPED, ["shape-mismatch"], {"code": "shape-mismatch", "hover": (flat, 8)})
    diags = report["notifications"][-1]["diagnostics"]
    (d,) = [d for d in diags if d["code"] == "shape-mismatch"]
    fc_line = lines.index("        return self.fc(x)")
    start = len("        return ")
    assert (d["range"]["start"], d["range"]["end"], d["severity"]) == (
        {"line": fc_line, "character": start}, {"line": fc_line, "character": start + len("self.fc(x)")}, 1)
    assert "2048" in d["message"] and "4096" in d["message"], d["message"]
    # the quick fix Neovim gets rewrites the constructor argument on the __init__ line
    fixes = [a for a in report["followed"]["actions"] if a.get("kind") == "quickfix"]
    assert [a["title"] for a in fixes] == ["Change fc's in_channels to 4096"], report["followed"]["actions"]
    (edits,) = fixes[0]["edit"]["changes"].values()
    assert [(e["range"]["start"]["line"], e["newText"]) for e in edits] == \
        [(lines.index("        self.fc = nn.Dense(16 * 16 * 8, 10)"), "4096")]
    # hovering the flattened x shows its inferred shape
    hover = report["followed"]["hover"]
    assert "(4, 4096) f32" in hover["contents"]["value"], hover
