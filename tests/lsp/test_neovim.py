"""A second, independent client: Neovim's built-in LSP client, headless, drives `python -m spore_lsp`.

`nvim --headless -u NONE` (no user config; XDG dirs point into tmp_path) edits a Spore file and runs a
Lua script that starts the server with `vim.lsp.start_client`, attaches it to the buffer and, in its
`textDocument/publishDiagnostics` handler, keeps what arrives. The script waits (`vim.wait` on a
condition, bounded) until the diagnostics name both expected codes, writes every notification it
received as JSON and quits. The test then checks the codes, lines and ranges Neovim saw.
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
  local want = { ["graph-print"] = false, ["graph-try"] = false, ["torch-module"] = false }
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
local f = io.open(out_path, "w")
f:write(vim.fn.json_encode({ started = ok, arrived = arrived, uri = vim.uri_from_bufnr(0),
                             notifications = received }))
f:close()
if id ~= nil then vim.lsp.stop_client(id, true) end
vim.cmd(arrived and "qall!" or "cquit!")
"""


def lua_string(s: str) -> str:
    return json.dumps(s)  # a JSON string of plain paths is a valid Lua string literal


def test_neovim_headless_sees_graph_mode_and_pytorch_diagnostics_on_the_right_lines(tmp_path: Path):
    nvim = shutil.which("nvim")
    assert nvim is not None, "Neovim is a test dependency: `make` installs Debian's neovim (APT_PKGS)"
    src = tmp_path / "net.py"
    src.write_text(SOURCE)
    out = tmp_path / "diagnostics.json"
    script = tmp_path / "spore_lsp_client.lua"
    cmd = "{" + ", ".join(lua_string(s) for s in (sys.executable, "-m", "spore_lsp")) + "}"
    script.write_text(LUA % {"out": lua_string(str(out)), "cmd": cmd, "root": lua_string(str(tmp_path)),
                             "timeout_ms": 60_000})
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NVIM", "VIM", "MYVIMRC"))}
    env.update(XDG_CONFIG_HOME=str(tmp_path / "config"), XDG_DATA_HOME=str(tmp_path / "data"),
               XDG_STATE_HOME=str(tmp_path / "state"), XDG_CACHE_HOME=str(tmp_path / "cache"),
               HOME=str(tmp_path), OMP_NUM_THREADS="1")
    proc = subprocess.run([nvim, "--headless", "-u", "NONE", "-i", "NONE", "-n", "-c", f"edit {src}",
                           "-c", f"luafile {script}"], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=120, stdin=subprocess.DEVNULL)
    assert out.exists(), f"nvim wrote nothing (rc {proc.returncode}): {proc.stderr[-2000:]}"
    report = json.loads(out.read_text())
    assert report["started"] is True, "vim.lsp.start_client / buf_attach_client failed"
    assert report["arrived"] is True, f"the expected diagnostics did not arrive: {report['notifications']}"
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert report["uri"].endswith("/net.py")
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
