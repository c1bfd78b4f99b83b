import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { extensionRoot, packagePath } from "../scripts/syncDebuggers";

const pkg = JSON.parse(fs.readFileSync(packagePath, "utf8"));
const lock = JSON.parse(fs.readFileSync(path.join(extensionRoot, "package-lock.json"), "utf8"));

/** "^1.100.0" -> [1, 100, 0] */
function minimum(range: string): number[] {
  const m = /^\^?(\d+)\.(\d+)\.(\d+)$/.exec(range);
  assert.ok(m, `unexpected version range ${range}`);
  return m.slice(1).map(Number);
}

test("engines.vscode is at or below 1.139 and @types/vscode matches it", () => {
  const [major, minor] = minimum(pkg.engines.vscode);
  assert.equal(major, 1);
  assert.ok(minor <= 139, `engines.vscode ${pkg.engines.vscode} is above 1.139`);
  const types = pkg.devDependencies["@types/vscode"];
  assert.deepEqual(minimum(types).slice(0, 2), [major, minor], "@types/vscode must not promise APIs the engine lacks");
});

test("every dependency is pinned exactly and the lock file agrees", () => {
  for (const [name, version] of Object.entries({ ...pkg.dependencies, ...pkg.devDependencies })) {
    assert.match(String(version), /^\d+\.\d+\.\d+$/, `${name}@${version} is not an exact pin`);
    assert.equal(lock.packages[`node_modules/${name}`]?.version, version, `package-lock.json disagrees on ${name}`);
  }
});

test("activates on Python files, notebooks and spore debug sessions", () => {
  for (const e of ["onLanguage:python", "onNotebook:jupyter-notebook", "onDebugResolve:spore"]) {
    assert.ok(pkg.activationEvents.includes(e), e);
  }
});

test("contributes the four settings and the commands", () => {
  const props = pkg.contributes.configuration.properties;
  assert.deepEqual(Object.keys(props).sort(), ["spore.graph.captureTimeout", "spore.lsp.args", "spore.lsp.enabled",
                                               "spore.pythonPath", "spore.trace.server"]);
  assert.equal(props["spore.graph.captureTimeout"].default, 60);
  assert.equal(props["spore.lsp.enabled"].default, true);
  assert.deepEqual(props["spore.trace.server"].enum, ["off", "messages", "verbose"]);
  const titles = pkg.contributes.commands.map((c: { category: string; title: string }) => `${c.category}: ${c.title}`);
  assert.deepEqual(titles.sort(), [
    "Spore: Debug Current File", "Spore: Inspect Tensor", "Spore: Interrupt Kernel", "Spore: Open Profile",
    "Spore: Restart Kernel", "Spore: Restart Language Server", "Spore: Show Graph", "Spore: Switch Mode",
  ]);
});

test("every command the code registers is declared, and the reverse", () => {
  const sources = fs.readdirSync(path.join(extensionRoot, "src"), { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".ts")).map((f) => fs.readFileSync(path.join(extensionRoot, "src", f), "utf8"));
  const registered = [...new Set(sources.flatMap((source) => [...source.matchAll(/registerCommand\("([^"]+)"/g)].map((m) => m[1])))].sort();
  const declared = pkg.contributes.commands.map((c: { command: string }) => c.command).sort();
  assert.deepEqual(registered, declared);
  for (const menu of Object.values(pkg.contributes.menus) as { command: string }[][]) {
    for (const item of menu) assert.ok(declared.includes(item.command), item.command);
  }
});
