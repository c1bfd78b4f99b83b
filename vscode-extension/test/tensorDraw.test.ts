import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { renderMessage, renderTensorView, SPECIAL_FILL } from "../src/tensorView/draw";
import { parseBundle, type TensorBundle } from "../src/tensorView/model";
import { container } from "./tensorFakeDom";
import { kernelBundles } from "./tensorKernelBundles";

function real(name: string): TensorBundle {
  const p = parseBundle(kernelBundles()[name]);
  assert.ok(p.ok, p.ok ? "" : p.error);
  return p.value;
}

test("the DOM contract: root, summary, stats, histogram, and a heatmap from two axes on", () => {
  const expectHeatmap: Record<string, boolean> = {
    matrix_nan: true, big4d: true, bf16: true, booleans: true, hostile: true, sampled: true,
    vector: false, scalar: false, empty: false, empty5: false,
  };
  for (const [name, heat] of Object.entries(expectHeatmap)) {
    const { el, node } = container();
    renderTensorView(el, real(name));
    const root = node.one("spore-tensor-view");
    assert.equal(root.one("spore-tensor-summary").textContent.startsWith(real(name).summary), true, name);
    root.one("spore-tensor-stats");
    root.one("spore-tensor-histogram");
    assert.equal(root.byClass("spore-tensor-heatmap").length, heat ? 1 : 0, name);
  }
});

test("a name from user code is text, never markup", () => {
  const { el, node } = container();
  renderTensorView(el, real("hostile"));
  assert.ok(node.textContent.includes("<img src=x onerror=alert(1)>"));
  assert.deepEqual(node.all().filter((n) => n.tagName === "IMG"), []);
  assert.ok(node.all().every((n) => ![...n.attributes.keys()].some((k) => k.startsWith("on"))));
});

test("hovering a heatmap cell shows its tensor index and value", () => {
  const { el, node } = container();
  renderTensorView(el, real("big4d"));
  const heat = node.one("spore-tensor-heatmap");
  const svg = heat.all().find((n) => n.tagName === "svg");
  assert.ok(svg);
  const cells = svg.children.filter((n) => n.tagName === "rect");
  assert.equal(cells.length, 64 * 64);
  const cell = cells.find((c) => c.getAttribute("data-i") === "63" && c.getAttribute("data-j") === "63");
  assert.ok(cell);
  svg.dispatch("mousemove", cell);
  assert.equal(heat.one("spore-tensor-hover").textContent, "[0, 0, 199, 299] = 59999");
  assert.match(heat.one("spore-tensor-caption").textContent, /64×64 evenly picked of 200×300/);
});

test("NaN and infinities are flagged: summary tags, stats rows, own cell colours", () => {
  const { el, node } = container();
  renderTensorView(el, real("matrix_nan"));
  const tags = node.byClass("spore-tensor-alert").map((n) => n.textContent);
  assert.deepEqual(tags, ["NaN!1", "+Inf!1", "-Inf!1", "1", "1", "1"]);
  const special = node.byClass("spore-tensor-special");
  assert.deepEqual(special.map((n) => n.classes[1]), ["spore-tensor-nan", "spore-tensor-posinf", "spore-tensor-neginf"]);
  assert.equal(special[0].style.fill, SPECIAL_FILL.nan);
  const svg = node.one("spore-tensor-heatmap").all().find((n) => n.tagName === "svg");
  svg?.dispatch("mousemove", special[0]);
  assert.equal(node.one("spore-tensor-hover").textContent, "[0, 1] = NaN!");
});

test("sampled statistics are labelled in the view", () => {
  const { el, node } = container();
  renderTensorView(el, real("sampled"));
  const text = node.one("spore-tensor-stats").textContent;
  assert.ok(text.includes("min / max (sampled)") && text.includes("65,536 sampled values"));
  assert.match(node.one("spore-tensor-histogram").textContent, /histogram of 65,536 sampled values/);
});

test("an error message replaces the view as text", () => {
  const { el, node } = container();
  renderMessage(el, "<b>bad</b>");
  assert.equal(node.one("spore-tensor-error").textContent, "<b>bad</b>");
  assert.equal(node.all().length, 2);
});

test("the shipped tensor bundles never parse markup", () => {
  for (const f of ["dist/renderers/tensor.js", "dist/webviews/tensor.js"]) {
    const source = fs.readFileSync(path.join(__dirname, "..", "..", f), "utf8");
    assert.ok(source.length > 1000, `${f} is bundled`);
    for (const sink of ["innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval("]) {
      assert.ok(!source.includes(sink), `${f} uses ${sink}`);
    }
  }
});
