import { strict as assert } from "node:assert";
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import { test } from "node:test";
import { extensionRoot } from "../scripts/syncDebuggers";

// The bundled renderer (npm test bundles first) run in headless Debian Chromium on the kernel's mime
// data, with a fake renderer context recording postMessage: the DOM contract the e2e suite relies on,
// the reveal message a click sends, and hostile names shown as text.
const CHROMIUM = "/usr/bin/chromium";
const python = path.join(extensionRoot, "..", ".venv", "bin", "python");
const HOSTILE = '"><img src=x onerror="document.documentElement.setAttribute(\'data-pwned\',\'1\')">';

function graph(): Record<string, unknown> {
  const loc = (line: number) => ({ file: "/tmp/ipykernel_9/cell7.py", line, col: 8, end_col: 20, cell: 7 });
  return {
    schema: "spore.graph/1", name: "Net.construct",
    inputs: [{ id: "%0", name: "x", shape: [2, 4], dtype: "float32" }], params: [], outputs: ["%2"],
    edges: [{ from: "input:%0", to: "n0", var: "%0", shape: [2, 4], dtype: "float32" },
            { from: "n0", to: "n1", var: "%1", shape: [2, 4], dtype: "float32" }],
    nodes: [
      { id: "n0", op: "ReLU", inputs: ["%0"], outputs: ["%1"], shapes: [[2, 4]], dtypes: ["float32"], attrs: {},
        scope: `Net.${HOSTILE}`, loc: loc(3), fused: [] },
      { id: "n1", op: HOSTILE, inputs: ["%1"], outputs: ["%2"], shapes: [[2, 4]], dtypes: ["float32"], attrs: {},
        scope: "Net", loc: null, fused: [] },
    ],
  };
}

test("the graph renderer mounts the viewer with the DOM contract, posts reveal on a click, marks the cursor's line", () => {
  assert.ok(fs.existsSync(CHROMIUM), `${CHROMIUM} is missing (make sysdeps installs it)`);
  assert.ok(fs.existsSync(python), `${python} is missing: run make (it bootstraps .venv)`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "spore-renderer-"));
  const g = graph();
  fs.writeFileSync(path.join(dir, "g.json"), JSON.stringify(g));
  const view = JSON.parse(execFileSync(python, ["-m", "spore_viz", "payload", path.join(dir, "g.json"), "--expand", "all"],
                                       { encoding: "utf8" }));
  const mime = { ...g, view };
  const renderer = pathToFileURL(path.join(extensionRoot, "dist", "renderers", "graph.js")).href;
  const page = path.join(dir, "page.html");
  fs.writeFileSync(page, `<!DOCTYPE html><html><head><meta charset="utf-8"></head><body>
<script type="application/json" id="data">${JSON.stringify(mime).replace(/</g, "\\u003c")}</script>
<script type="module">
import { activate } from ${JSON.stringify(renderer)};
const posted = [];
let listener;
const r = activate({ postMessage: (m) => posted.push(m), onDidReceiveMessage: (f) => { listener = f; return { dispose() {} }; } });
const el = document.createElement("div");
document.body.appendChild(el);
r.renderOutputItem({ id: "out1", mime: "application/vnd.spore.graph+json", json: () => JSON.parse(document.getElementById("data").textContent) }, el);
const root = el.querySelector(".spore-graph-view");
const nodes = [...el.querySelectorAll("[data-node-id]")].map((n) => [n.getAttribute("data-node-id"), n.getAttribute("data-line")]);
el.querySelector('[data-node-id="n0"] .body').dispatchEvent(new MouseEvent("click", { bubbles: true }));
el.querySelector('[data-node-id="n1"] .body').dispatchEvent(new MouseEvent("click", { bubbles: true }));
listener({ type: "highlight", cellId: 7, lines: [3] });
const lit = [...el.querySelectorAll(".lhit")].map((n) => n.getAttribute("data-node-id"));
listener({ type: "highlight", cellId: 8, lines: [3] });  // another cell: nothing of this graph
const litOther = el.querySelectorAll(".lhit").length;
const out = { root: !!root, nodes, posted, lit, litOther, labels: [...el.querySelectorAll("text.lbl")].map((t) => t.textContent),
              imgs: document.querySelectorAll("img").length, styles: document.querySelectorAll("style#spore-graph-view-styles").length };
r.renderOutputItem({ id: "out2", json: () => ({ schema: "spore.graph/1", nodes: [] }) }, document.body.appendChild(document.createElement("div")));
out.notice = document.querySelector(".sv-error")?.textContent;
// a saved notebook output can carry any payload: a cycle in the tree or a huge pass count is refused, not run
const crafted = JSON.parse(document.getElementById("data").textContent);
const cyclic = { ...crafted, view: { ...crafted.view, items: crafted.view.items.map((it, i) => (i === 0 ? [...it.slice(0, 2), 0, ...it.slice(3)] : it)) } };
const slow = { ...crafted, view: { ...crafted.view, C: { ...crafted.view.C, PASSES: 1e9 } } };
out.crafted = [cyclic, slow].map((data, k) => {
  const box = document.body.appendChild(document.createElement("div"));
  r.renderOutputItem({ id: "bad" + k, json: () => data }, box);
  return box.querySelector(".sv-error")?.textContent;
});
r.disposeOutputItem("out1");
out.afterDispose = el.querySelectorAll("[data-node-id]").length;
const pre = document.createElement("pre"); pre.id = "probe"; pre.textContent = JSON.stringify(out); document.body.appendChild(pre);
</script></body></html>`);
  const dom = execFileSync(CHROMIUM, ["--no-sandbox", "--headless", "--disable-gpu", "--disable-dev-shm-usage",
    "--allow-file-access-from-files", "--window-size=1200,800", "--virtual-time-budget=2000", "--dump-dom",
    pathToFileURL(page).href], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"], timeout: 90000 });
  const m = /<pre id="probe">(.*?)<\/pre>/s.exec(dom);
  assert.ok(m, dom.slice(-2000));
  const out = JSON.parse(m[1].replace(/&quot;/g, '"').replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&"));
  assert.equal(out.root, true);
  assert.deepEqual(out.nodes, [["n0", "3"], ["n1", null]]);
  // n0 has a location (in cell In[7]); n1 has none, so its click posts nothing
  assert.deepEqual(out.posted, [{ type: "reveal", file: "/tmp/ipykernel_9/cell7.py", line: 3, col: 8, cellId: 7 }]);
  assert.deepEqual(out.lit, ["n0"]);  // the cursor on line 3 of cell In[7] marks the node made there
  assert.equal(out.litOther, 0);
  assert.ok(out.labels.includes(HOSTILE), "the hostile op name is shown as text");
  assert.equal(out.imgs, 0);
  assert.ok(!/<html[^>]*data-pwned/.test(dom));
  assert.equal(out.styles, 1);
  assert.match(out.notice, /no viewer layout: the kernel that made it lacks spore_viz/);
  assert.equal(out.afterDispose, 0);
  assert.match(out.crafted[0], /malformed payload: item 0 has a bad parent/);
  assert.match(out.crafted[1], /malformed payload: C.PASSES must be 0..20/);
});

test("no bundled graph view builds markup from strings", () => {
  for (const file of ["renderers/graph.js", "webviews/graph.js"]) {
    const src = fs.readFileSync(path.join(extensionRoot, "dist", file), "utf8");
    assert.ok(!/\.innerHTML\s*=|insertAdjacentHTML|outerHTML\s*=|document\.write/.test(src), `${file} writes markup`);
  }
});
