import { strict as assert } from "node:assert";
import { execFileSync } from "node:child_process";
import * as path from "node:path";
import { test } from "node:test";
import {
  type Heatmap, cellLabel, summaryPieces, formatNumber, heatPosition, heatmapCaption, histogramBars, humanBytes, parseBundle, rampColor, statRows,
} from "../src/tensorView/model";
import { bundle2d } from "./tensorFixtures";
import { kernelBundles, repo, venvPython } from "./tensorKernelBundles";

test("every bundle the kernel makes parses", () => {
  for (const [name, raw] of Object.entries(kernelBundles())) {
    const p = parseBundle(raw);
    assert.ok(p.ok, `${name}: ${p.ok ? "" : p.error}`);
  }
});

test("a wrong bundle is refused with the field named", () => {
  const cases: [unknown, RegExp][] = [
    [null, /expected a JSON object/],
    [bundle2d({ schema: "spore.tensor/2" }), /schema is "spore.tensor\/2"/],
    [bundle2d({ summary: 3 }), /summary is not a string/],
    [{ ...bundle2d(), stats: { ...(bundle2d().stats as object), shape: [2, -1] } }, /stats.shape/],
    [{ ...bundle2d(), stats: { ...(bundle2d().stats as object), min: "<b>" } }, /stats.min is not a number/],
    [{ ...bundle2d(), stats: { ...(bundle2d().stats as object), histogram: { counts: [1, 2], edges: [0, 1] } } }, /edges do not bound/],
    [bundle2d({ heatmap: { slice: [], shape: [2, 3], rows: [0, 1], cols: [0, 1, 2], data: [[0, 1, 2]] } }), /one row per index/],
    [bundle2d({ heatmap: { slice: [], shape: [2, 3], rows: [0, 1], cols: [0, 1, 2], data: [[0, 1, 2], [0, 1, "x"]] } }), /not a number/],
  ];
  for (const [raw, why] of cases) {
    const p = parseBundle(raw);
    assert.equal(p.ok, false);
    assert.match(p.ok ? "" : p.error, why);
  }
});

test("numbers read as the kernel writes them (Python's 4 significant digits)", () => {
  // the same numbers through the kernel's own formatter (spore_kernel.stats.num)
  const xs = [0.5, 0.1, 2.25, 123.456, 12345.6, 1e-5, 0.000123456, -98765.4, 3.0e10, 1e6, 7];
  const py = execFileSync(venvPython(), ["-c", `from spore_kernel.stats import num; print("|".join(num(x) for x in ${JSON.stringify(xs)}))`],
    { encoding: "utf8", env: { ...process.env, PYTHONPATH: path.join(repo, "kernel") } }).trim();
  assert.equal(xs.map((x) => formatNumber(x)).join("|"), py);
  assert.deepEqual([formatNumber(3), formatNumber(0.123456), formatNumber(1234567), formatNumber("NaN"), formatNumber("-Infinity"), formatNumber(null), formatNumber(true)],
    ["3", "0.1235", "1.235e+06", "nan", "-inf", "?", "True"]);
  assert.deepEqual([humanBytes(12), humanBytes(1536), humanBytes(3 << 20)], ["12 B", "1.5 KiB", "3.0 MiB"]);
});

test("sampled statistics say so in every row that shows them", () => {
  const sampled = parseBundle(kernelBundles().sampled);
  assert.ok(sampled.ok);
  const rows = statRows(sampled.value);
  const labels = rows.map((r) => r[0]);
  assert.ok(labels.includes("min / max (sampled)") && labels.includes("mean / std (sampled)"));
  assert.deepEqual(rows.find((r) => r[0] === "read"), ["read", "65,536 sampled values", false]);
  const exact = parseBundle(kernelBundles().matrix_nan);
  assert.ok(exact.ok);
  const flagged = statRows(exact.value).filter((r) => r[2]).map((r) => `${r[0]}=${r[1]}`);
  assert.deepEqual(flagged, ["NaN=1", "+Inf=1", "-Inf=1"]);
});

test("histogram bars fill the box, the tallest at full height", () => {
  const bars = histogramBars([1, 4, 2], [0, 1, 2, 3], 300, 40);
  assert.deepEqual(bars.map((b) => [b.x, b.height]), [[0, 10], [100, 40], [200, 20]]);
  assert.equal(bars[1].y, 0);
  assert.deepEqual([bars[2].from, bars[2].to], [2, 3]);
  assert.deepEqual(histogramBars([], [], 10, 10), []);
});

test("heatmap colours span the ramp and equal values sit mid-way", () => {
  assert.equal(rampColor(0), "rgb(68, 1, 84)");
  assert.equal(rampColor(1), "rgb(253, 231, 37)");
  assert.equal(rampColor(Number.NaN), rampColor(0));
  assert.equal(heatPosition(5, 0, 10), 0.5);
  assert.equal(heatPosition(3, 3, 3), 0.5);
});

test("a downsampled heatmap cell names its true tensor index", () => {
  const b = parseBundle(kernelBundles().big4d);
  assert.ok(b.ok);
  const hm = b.value.heatmap as Heatmap;
  assert.deepEqual(hm.shape, [200, 300]);
  assert.ok(hm.downsampled && hm.rows.length === 64 && hm.cols.length === 64);
  const i = 63, j = 63;
  // values are arange: the element at [0, 0, r, c] is r * 300 + c
  assert.equal(cellLabel(hm, i, j), "[0, 0, 199, 299] = 59999");
  assert.equal(hm.data[10][20], hm.rows[10] * 300 + hm.cols[20]);
  assert.equal(heatmapCaption(hm), "slice [0, 0, :, :]: 64×64 evenly picked of 200×300 (each cell one element)");
});

test("NaN and infinities are flagged in the hover label", () => {
  const b = parseBundle(kernelBundles().matrix_nan);
  assert.ok(b.ok);
  const hm = b.value.heatmap as Heatmap;
  assert.deepEqual([cellLabel(hm, 0, 1), cellLabel(hm, 1, 0), cellLabel(hm, 1, 2), cellLabel(hm, 1, 1)],
    ["[0, 1] = NaN!", "[1, 0] = +Inf!", "[1, 2] = -Inf!", "[1, 1] = 5"]);
});

test("flags are marked inside the summary line, not repeated", () => {
  const b = parseBundle(kernelBundles().matrix_nan);
  assert.ok(b.ok);
  const pieces = summaryPieces(b.value.summary, b.value.stats.flags);
  assert.equal(pieces.map((p) => p.text).join(""), b.value.summary);
  assert.deepEqual(pieces.filter((p) => p.flag).map((p) => p.text), ["NaN!1", "+Inf!1", "-Inf!1"]);
  assert.deepEqual(summaryPieces("Tensor[2] f", ["all zeros"]), [{ text: "Tensor[2] f", flag: false }, { text: " all zeros", flag: true }]);
});
