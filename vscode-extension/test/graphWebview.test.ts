import { strict as assert } from "node:assert";
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import { test } from "node:test";
import { webviewHtml } from "../src/graphView/html";
import { extensionRoot } from "../scripts/syncDebuggers";

// The Show Graph panel's page (html.ts) with its real CSP and the bundled dist/webviews/graph.js, in
// headless Chromium; acquireVsCodeApi is a stand-in recording what the script posts. Checks that the
// viewer mounts under the CSP (its nonce'd stylesheet applies), a click posts reveal, a highlight
// marks the nodes of that line, and a scope named like markup renders as text.
const CHROMIUM = "/usr/bin/chromium";
const python = path.join(extensionRoot, "..", ".venv", "bin", "python");
const HOSTILE = "<img src=x onerror=alert(1)>";

test("the panel's script mounts the viewer under the CSP, reveals on click and highlights the cursor's line", () => {
  assert.ok(fs.existsSync(CHROMIUM), `${CHROMIUM} is missing (make sysdeps installs it)`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "spore-webview-"));
  const file = "/work/proj/train.py";
  const g = {
    schema: "spore.graph/1", name: "Net.construct", inputs: [{ id: "%0", name: "x", shape: [2], dtype: "float32" }],
    params: [], outputs: ["%2"],
    edges: [{ from: "input:%0", to: "n0", var: "%0", shape: [2], dtype: "float32" },
            { from: "n0", to: "n1", var: "%1", shape: [2], dtype: "float32" }],
    nodes: [
      { id: "n0", op: "ReLU", inputs: ["%0"], outputs: ["%1"], shapes: [[2]], dtypes: ["float32"], attrs: {}, fused: [],
        scope: `Net.${HOSTILE}`, loc: { file, line: 12, col: 8 } },
      { id: "n1", op: "Exp", inputs: ["%1"], outputs: ["%2"], shapes: [[2]], dtypes: ["float32"], attrs: {}, fused: [],
        scope: "Net", loc: { file, line: 13, col: 8 } },
    ],
  };
  fs.writeFileSync(path.join(dir, "g.json"), JSON.stringify(g));
  const view = JSON.parse(execFileSync(python, ["-m", "spore_viz", "payload", path.join(dir, "g.json")], { encoding: "utf8" }));
  const nonce = "testNonce12345678";
  const script = pathToFileURL(path.join(extensionRoot, "dist", "webviews", "graph.js")).href;
  let html = webviewHtml({ cspSource: "file:", nonce, scriptUri: script, title: "Spore Graph" });
  const fake = `<script nonce="${nonce}">window.__posted = []; window.acquireVsCodeApi = () => ({ postMessage: (m) => window.__posted.push(m) });</script>`;
  const drive = `<script nonce="${nonce}">
const VIEW = ${JSON.stringify(view).replace(/</g, "\\u003c")};
const out = {};
out.readyFirst = window.__posted.length === 1 && window.__posted[0].type === "ready";
window.postMessage({ type: "show", view: VIEW }, "*");
setTimeout(() => {
  out.position = getComputedStyle(document.querySelector(".sv-top")).position;
  out.nodes = [...document.querySelectorAll("[data-node-id]")].map((n) => n.getAttribute("data-node-id"));
  out.scopeText = [...document.querySelectorAll("text.hdr, text.lbl")].map((t) => t.textContent);
  document.querySelector('[data-node-id="n1"] .body').dispatchEvent(new MouseEvent("click", { bubbles: true }));
  window.postMessage({ type: "highlight", file: ${JSON.stringify(file)}, lines: [12] }, "*");
  setTimeout(() => {
    out.lit = [...document.querySelectorAll(".lhit")].map((n) => n.getAttribute("data-node-id"));
    out.posted = window.__posted;
    out.imgs = document.querySelectorAll("img").length;
    const pre = document.createElement("pre"); pre.id = "probe"; pre.textContent = JSON.stringify(out); document.body.appendChild(pre);
  }, 100);
}, 100);
</script>`;
  html = html.replace("<script nonce", `${fake}\n<script nonce`).replace("</body>", `${drive}\n</body>`);
  const page = path.join(dir, "panel.html");
  fs.writeFileSync(page, html);
  const dom = execFileSync(CHROMIUM, ["--no-sandbox", "--headless", "--disable-gpu", "--disable-dev-shm-usage",
    "--allow-file-access-from-files", "--window-size=1200,800", "--virtual-time-budget=3000", "--dump-dom",
    pathToFileURL(page).href], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"], timeout: 90000 });
  const m = /<pre id="probe">(.*?)<\/pre>/s.exec(dom);
  assert.ok(m, dom.slice(-2000));
  const out = JSON.parse(m[1].replace(/&quot;/g, '"').replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&"));
  assert.equal(out.readyFirst, true);
  assert.equal(out.position, "absolute", "the viewer's stylesheet did not apply under the CSP");
  assert.deepEqual(out.nodes.sort(), ["n0", "n1"]);
  assert.ok(out.scopeText.some((t: string) => t.includes(HOSTILE)), "the hostile scope name is shown as text");
  assert.equal(out.imgs, 0);
  assert.deepEqual(out.posted.slice(1), [{ type: "reveal", file, line: 13, col: 8 }]);
  assert.deepEqual(out.lit, ["n0"]);
});
