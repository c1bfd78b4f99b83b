import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { test } from "node:test";
import { expandSetting, isFile, resolvePython, ResolveInputs, venvPython } from "../src/interpreter";

function inputs(over: Partial<ResolveInputs>): ResolveInputs {
  return { setting: undefined, workspaceFolders: ["/ws"], platform: "linux", home: "/home/u", isFile: () => false, ...over };
}

test("the setting wins over a .venv and the Python extension", async () => {
  let asked = false;
  const r = await resolvePython(inputs({
    setting: "/opt/py/bin/python", isFile: () => true,
    pythonExtension: async () => { asked = true; return "/ext/python"; },
  }));
  assert.deepEqual([r.command, r.source], ["/opt/py/bin/python", "setting"]);
  assert.equal(asked, false, "the Python extension is not asked when the setting decides");
});

test("a blank setting counts as unset", async () => {
  const r = await resolvePython(inputs({ setting: "   ", isFile: (p) => p === "/ws/.venv/bin/python" }));
  assert.deepEqual([r.command, r.source], ["/ws/.venv/bin/python", "workspace-venv"]);
});

test("the setting expands ${workspaceFolder}, ~ and relative paths", () => {
  assert.equal(expandSetting("${workspaceFolder}/.venv/bin/python", "/ws", "/home/u", "linux"), "/ws/.venv/bin/python");
  assert.equal(expandSetting("~/envs/s/bin/python", "/ws", "/home/u", "linux"), "/home/u/envs/s/bin/python");
  assert.equal(expandSetting("${userHome}/py", "/ws", "/home/u", "linux"), "/home/u/py");
  assert.equal(expandSetting("env/bin/python", "/ws", "/home/u", "linux"), "/ws/env/bin/python");
  assert.equal(expandSetting("python3.11", "/ws", "/home/u", "linux"), "python3.11", "a bare command stays a PATH lookup");
  assert.equal(expandSetting(" /abs/python ", undefined, undefined, "linux"), "/abs/python");
});

test("the .venv of the first folder that has one wins over the Python extension", async () => {
  const r = await resolvePython(inputs({
    workspaceFolders: ["/a", "/b"], isFile: (p) => p === "/b/.venv/bin/python",
    pythonExtension: async () => "/ext/python",
  }));
  assert.deepEqual([r.command, r.source], ["/b/.venv/bin/python", "workspace-venv"]);
});

test("Windows venvs keep their interpreter in Scripts", () => {
  assert.equal(venvPython("C:\\ws", "win32"), "C:\\ws\\.venv\\Scripts\\python.exe");
  assert.equal(venvPython("/ws", "darwin"), "/ws/.venv/bin/python");
});

test("without a setting or .venv the Python extension's interpreter is used", async () => {
  const r = await resolvePython(inputs({ pythonExtension: async () => "/ext/python" }));
  assert.deepEqual([r.command, r.source], ["/ext/python", "python-extension"]);
});

test("a Python extension that fails or has no selection falls through to python3", async () => {
  for (const pythonExtension of [async () => { throw new Error("not ready"); }, async () => undefined, async () => ""]) {
    const r = await resolvePython(inputs({ pythonExtension }));
    assert.deepEqual([r.command, r.source], ["python3", "default"]);
  }
  const win = await resolvePython(inputs({ platform: "win32" }));
  assert.equal(win.command, "python");
});

test("no workspace at all: python3", async () => {
  const r = await resolvePython(inputs({ workspaceFolders: [] }));
  assert.deepEqual([r.command, r.source], ["python3", "default"]);
});

test("the real probe finds a venv interpreter that is a symlink, and not a folder", async () => {
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), "spore-ws-"));
  try {
    const r0 = await resolvePython(inputs({ workspaceFolders: [ws], isFile }));
    assert.equal(r0.source, "default");
    fs.mkdirSync(path.join(ws, ".venv", "bin", "python"), { recursive: true });
    const r1 = await resolvePython(inputs({ workspaceFolders: [ws], isFile }));
    assert.equal(r1.source, "default", "a folder named python is not an interpreter");
    fs.rmdirSync(path.join(ws, ".venv", "bin", "python"));
    fs.writeFileSync(path.join(ws, "real-python"), "");
    fs.symlinkSync(path.join(ws, "real-python"), path.join(ws, ".venv", "bin", "python"));
    const r2 = await resolvePython(inputs({ workspaceFolders: [ws], isFile }));
    assert.deepEqual([r2.command, r2.source], [path.join(ws, ".venv", "bin", "python"), "workspace-venv"]);
  } finally {
    fs.rmSync(ws, { recursive: true, force: true });
  }
});

