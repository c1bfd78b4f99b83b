import { strict as assert } from "node:assert";
import { test } from "node:test";
import { escapeHtml, makeNonce, panelTitle, webviewCsp, webviewHtml } from "../src/graphView/html";

const SRC = "https://file+.vscode-resource.vscode-cdn.net";

test("the panel's CSP loads nothing but the nonce'd script and the extension's styles", () => {
  assert.equal(webviewCsp(SRC, "abcdEFGH1234"),
               `default-src 'none'; script-src 'nonce-abcdEFGH1234'; style-src ${SRC} 'nonce-abcdEFGH1234'`);
  assert.throws(() => webviewCsp(SRC, "x' 'unsafe-inline"), /nonce/);
  // what VS Code 1.139 / code-server hand out
  assert.equal(webviewCsp("'self' https://*.vscode-cdn.net", "abcdEFGH1234"),
               "default-src 'none'; script-src 'nonce-abcdEFGH1234'; style-src 'self' https://*.vscode-cdn.net 'nonce-abcdEFGH1234'");
  for (const bad of ["'unsafe-inline'", "", "https://a; script-src *", "'self' 'unsafe-eval'", "data: 'x"]) {
    assert.throws(() => webviewCsp(bad, "abcdEFGH1234"), /cspSource/, bad);
  }
});

test("nonces are fresh and alphanumeric", () => {
  const a = makeNonce(), b = makeNonce();
  assert.notEqual(a, b);
  assert.match(a, /^[A-Za-z0-9]{16,}$/);
});

test("the page carries no data and escapes its title; the script is the only one and has the nonce", () => {
  const html = webviewHtml({ cspSource: SRC, nonce: "abcdEFGH1234", scriptUri: `${SRC}/ext/dist/webviews/graph.js`,
                             title: "<img src=x onerror=alert(1)>" });
  assert.ok(html.includes("<title>&lt;img src=x onerror=alert(1)&gt;</title>"));
  assert.ok(!html.includes("<img"));
  assert.equal([...html.matchAll(/<script\b/g)].length, 1);
  assert.ok(html.includes(`<script nonce="abcdEFGH1234" src="${SRC}/ext/dist/webviews/graph.js"></script>`));
  assert.match(html, /<meta http-equiv="Content-Security-Policy" content="default-src &#39;none&#39;; script-src &#39;nonce-abcdEFGH1234&#39;/);
  assert.ok(html.includes('class="spore-graph-view"'));
});

test("panel titles read 'Spore Graph: <name>' and stay short", () => {
  assert.equal(panelTitle("Net.construct"), "Spore Graph: Net.construct");
  assert.equal(panelTitle("a\nb"), "Spore Graph: a b");
  assert.equal(panelTitle("x".repeat(100)).length, "Spore Graph: ".length + 60);
  assert.equal(escapeHtml(`<a href="x">'&'</a>`), "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
});
