import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { contentSecurityPolicy, makeNonce, tensorPanelHtml } from "../src/tensorView/html";

const pkg = JSON.parse(fs.readFileSync(path.join(__dirname, "..", "..", "package.json"), "utf8"));

test("the panel's CSP loads nothing remote and runs only the nonce'd script", () => {
  const csp = contentSecurityPolicy("vscode-resource:", "N0NCE");
  const parts = csp.split("; ");
  assert.equal(parts[0], "default-src 'none'");
  assert.ok(parts.includes("script-src 'nonce-N0NCE'"));
  assert.ok(!csp.includes("unsafe-inline") && !csp.includes("unsafe-eval") && !csp.includes("http"));
});

test("the panel page escapes its title and nonces its one script", () => {
  const html = tensorPanelHtml({ cspSource: "vscode-resource:", nonce: "abc", scriptUri: "https://file+.vscode-resource/dist/webviews/tensor.js", title: "Tensor: <img src=x onerror=alert(1)>" });
  assert.ok(html.includes("<title>Tensor: &lt;img src=x onerror=alert(1)&gt;</title>"));
  assert.equal((html.match(/<script/g) ?? []).length, 1);
  assert.ok(html.includes('<script nonce="abc" src="https://file+.vscode-resource/dist/webviews/tensor.js"></script>'));
});

test("nonces are fresh and alphanumeric", () => {
  const a = makeNonce();
  assert.match(a, /^[A-Za-z0-9]{16,}$/);
  assert.notEqual(a, makeNonce());
});

test("Inspect Tensor is in the editor context menu for notebook cells and Python debugging, and on debug variables", () => {
  const editor = pkg.contributes.menus["editor/context"].find((m: { command: string }) => m.command === "spore.inspectTensor");
  assert.match(editor.when, /resourceScheme == vscode-notebook-cell/);
  assert.match(editor.when, /inDebugMode && debugType =~/);
  const variables = pkg.contributes.menus["debug/variables/context"].find((m: { command: string }) => m.command === "spore.inspectTensor");
  assert.ok(variables);
  assert.ok(pkg.contributes.notebookRenderer.some((r: { mimeTypes: string[] }) => r.mimeTypes.includes("application/vnd.spore.tensor+json")));
});
