import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import { builtinModules } from "node:module";
import * as path from "node:path";
import { test } from "node:test";
import { extensionRoot } from "../scripts/syncDebuggers";

// `npm test` bundles first, so this reads the dist/extension.js the .vsix ships.
const bundlePath = path.join(extensionRoot, "dist", "extension.js");
const pkg = JSON.parse(fs.readFileSync(path.join(extensionRoot, "package.json"), "utf8"));

test("package.json's main is the bundle", () => {
  assert.equal(path.resolve(extensionRoot, pkg.main), bundlePath);
});

test("the bundle requires only vscode and node's built-ins (the .vsix ships no node_modules)", () => {
  const source = fs.readFileSync(bundlePath, "utf8");
  const required = new Set([...source.matchAll(/require\("([^"]+)"\)/g)].map((m) => m[1]));
  assert.ok(required.has("vscode"), "the bundle should load the vscode API");
  const builtins = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));
  const foreign = [...required].filter((m) => m !== "vscode" && !builtins.has(m));
  assert.deepEqual(foreign, []);
});

test("the vsix file list ships the bundles and the manifest only", () => {
  const ignore = fs.readFileSync(path.join(extensionRoot, ".vscodeignore"), "utf8").split("\n").filter(Boolean);
  assert.equal(ignore[0], "**");
  assert.ok(ignore.includes(`!${pkg.main.replace(/^\.\//, "")}`));
  assert.ok(ignore.includes("!dist/renderers/*.js") && ignore.includes("!dist/webviews/*.js"));
});

test("every notebook renderer's entrypoint is built", () => {
  for (const r of pkg.contributes.notebookRenderer) {
    assert.ok(fs.existsSync(path.resolve(extensionRoot, r.entrypoint)), `${r.id}: ${r.entrypoint} was not bundled`);
  }
});
