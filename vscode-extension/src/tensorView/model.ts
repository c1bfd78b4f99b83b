/**
 * The spore.tensor/1 bundle (what the kernel emits as application/vnd.spore.tensor+json and what
 * `spore_kernel.tensor_view.json_text` returns in a debuggee), checked and turned into what the
 * drawing code needs: stat rows, histogram bars, heatmap colours and the index under the pointer.
 *
 * Pure functions without `vscode` or the DOM, so the notebook renderer, the Inspect Tensor webview
 * and the unit tests share one copy. A bundle comes from a kernel or a file the user opened: every
 * field is checked before use, and a wrong one is named in the error instead of drawing garbage.
 */

export const TENSOR_MIME = "application/vnd.spore.tensor+json";
export const SCHEMA = "spore.tensor/1";

/** NaN and the infinities travel as strings (JSON has no such numbers). */
export type JsonNumber = number | "NaN" | "Infinity" | "-Infinity";

export interface TensorStats {
  shape: number[];
  dtype: string;
  size: number;
  nbytes: number;
  kind: string;
  sampled: boolean;
  n_read: number;
  min: JsonNumber | null;
  max: JsonNumber | null;
  mean: JsonNumber | null;
  std: JsonNumber | null;
  n_nan: number;
  n_posinf: number;
  n_neginf: number;
  n_true: number;
  all_zero: boolean;
  flags: string[];
  histogram: { counts: number[]; edges: number[] };
}

export interface Heatmap {
  /** the index on every leading axis (all 0: the first slice) */
  slice: number[];
  /** the full extent of the plane's two axes */
  shape: [number, number];
  /** the plane's row / column index each heatmap row / column shows */
  rows: number[];
  cols: number[];
  downsampled: boolean;
  min: number | null;
  max: number | null;
  data: (JsonNumber | boolean)[][];
}

export interface TensorBundle {
  schema: string;
  type: string;
  name: string | null;
  grad: string | null;
  summary: string;
  stats: TensorStats;
  heatmap: Heatmap | null;
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

const isObj = (x: unknown): x is Record<string, unknown> => typeof x === "object" && x !== null && !Array.isArray(x);
const isNum = (x: unknown): x is number => typeof x === "number" && Number.isFinite(x);
const isJsonNum = (x: unknown): x is JsonNumber => isNum(x) || x === "NaN" || x === "Infinity" || x === "-Infinity";
const isIntArray = (x: unknown): x is number[] => Array.isArray(x) && x.every((v) => Number.isInteger(v) && v >= 0);

/** Check an unknown value (item.json(), a parsed DAP result) is a spore.tensor/1 bundle. */
export function parseBundle(raw: unknown): Parsed<TensorBundle> {
  const bad = (what: string): Parsed<TensorBundle> => ({ ok: false, error: `not a Spore tensor bundle: ${what}` });
  if (!isObj(raw)) return bad("expected a JSON object");
  if (raw.schema !== SCHEMA) return bad(`schema is ${JSON.stringify(raw.schema)}, expected "${SCHEMA}"`);
  if (typeof raw.summary !== "string") return bad("summary is not a string");
  const st = raw.stats;
  if (!isObj(st)) return bad("stats is missing");
  if (!isIntArray(st.shape)) return bad("stats.shape is not a list of sizes");
  if (typeof st.dtype !== "string") return bad("stats.dtype is not a string");
  if (!isNum(st.size) || !isNum(st.nbytes)) return bad("stats.size / stats.nbytes are not numbers");
  for (const k of ["min", "max", "mean", "std"]) {
    if (st[k] !== null && st[k] !== undefined && !isJsonNum(st[k])) return bad(`stats.${k} is not a number`);
  }
  const hist = st.histogram;
  if (!isObj(hist) || !isIntArray(hist.counts) || !Array.isArray(hist.edges) || !hist.edges.every(isNum)) {
    return bad("stats.histogram needs counts and edges");
  }
  if (hist.counts.length && hist.edges.length !== hist.counts.length + 1) return bad("stats.histogram edges do not bound its counts");
  const flags = Array.isArray(st.flags) ? st.flags.filter((f): f is string => typeof f === "string") : [];
  const stats: TensorStats = {
    shape: st.shape, dtype: st.dtype, size: st.size, nbytes: st.nbytes, kind: String(st.kind ?? ""),
    sampled: st.sampled === true, n_read: isNum(st.n_read) ? st.n_read : st.size,
    min: (st.min ?? null) as JsonNumber | null, max: (st.max ?? null) as JsonNumber | null,
    mean: (st.mean ?? null) as JsonNumber | null, std: (st.std ?? null) as JsonNumber | null,
    n_nan: isNum(st.n_nan) ? st.n_nan : 0, n_posinf: isNum(st.n_posinf) ? st.n_posinf : 0,
    n_neginf: isNum(st.n_neginf) ? st.n_neginf : 0, n_true: isNum(st.n_true) ? st.n_true : 0,
    all_zero: st.all_zero === true, flags, histogram: { counts: hist.counts, edges: hist.edges as number[] },
  };
  let heatmap: Heatmap | null = null;
  if (raw.heatmap !== null && raw.heatmap !== undefined) {
    const hm = parseHeatmap(raw.heatmap);
    if (!hm.ok) return bad(hm.error);
    heatmap = hm.value;
  }
  return {
    ok: true,
    value: {
      schema: SCHEMA, type: typeof raw.type === "string" ? raw.type : "Tensor",
      name: typeof raw.name === "string" ? raw.name : null, grad: typeof raw.grad === "string" ? raw.grad : null,
      summary: raw.summary, stats, heatmap,
    },
  };
}

function parseHeatmap(raw: unknown): Parsed<Heatmap> {
  const bad = (what: string): Parsed<Heatmap> => ({ ok: false, error: `heatmap.${what}` });
  if (!isObj(raw)) return bad("is not an object");
  const { rows, cols, data, shape } = raw;
  if (!isIntArray(rows) || !isIntArray(cols)) return bad("rows/cols are not index lists");
  if (!isIntArray(shape) || shape.length !== 2) return bad("shape is not two sizes");
  if (!isIntArray(raw.slice)) return bad("slice is not an index list");
  if (!Array.isArray(data) || data.length !== rows.length) return bad("data does not have one row per index in rows");
  for (const row of data) {
    if (!Array.isArray(row) || row.length !== cols.length) return bad("data rows do not have one value per index in cols");
    if (!row.every((v) => isJsonNum(v) || typeof v === "boolean")) return bad("data holds something that is not a number");
  }
  return {
    ok: true,
    value: {
      slice: raw.slice, shape: [shape[0], shape[1]], rows, cols, downsampled: raw.downsampled === true,
      min: isNum(raw.min) ? raw.min : null, max: isNum(raw.max) ? raw.max : null,
      data: data as (JsonNumber | boolean)[][],
    },
  };
}

/** 4 significant digits, as the kernel's summary writes numbers; NaN/Inf spelled out. */
export function formatNumber(x: JsonNumber | boolean | null | undefined): string {
  if (x === null || x === undefined) return "?";
  if (typeof x === "boolean") return x ? "True" : "False";
  if (typeof x === "string") return x === "Infinity" ? "inf" : x === "-Infinity" ? "-inf" : "nan";
  if (Number.isInteger(x) && Math.abs(x) < 1e6) return String(x);
  // Python's f"{x:.4g}": exponent form below 1e-4 and from 1e4 on, trailing zeros dropped
  const trim = (t: string): string => (t.includes(".") ? t.replace(/0+$/, "").replace(/\.$/, "") : t);
  const [mant, expText] = x.toExponential(3).split("e");
  const e = Number(expText);
  if (e < -4 || e >= 4) return `${trim(mant)}e${e < 0 ? "-" : "+"}${String(Math.abs(e)).padStart(2, "0")}`;
  return trim(x.toFixed(3 - e));
}

export function humanBytes(n: number): string {
  let size = n;
  for (const unit of ["B", "KiB", "MiB", "GiB"]) {
    if (size < 1024 || unit === "GiB") return unit === "B" ? `${Math.trunc(size)} B` : `${size.toFixed(1)} ${unit}`;
    size /= 1024;
  }
  return `${size.toFixed(1)} GiB`;
}

/** The rows of the statistics table: [label, value, flagged?]. Sampled figures say so. */
export function statRows(b: TensorBundle): [string, string, boolean][] {
  const st = b.stats;
  const approx = st.sampled ? " (sampled)" : "";
  const rows: [string, string, boolean][] = [
    ["shape", `(${st.shape.join(", ")}${st.shape.length === 1 ? "," : ""})`, false],
    ["dtype", st.dtype, false],
    ["elements", st.size.toLocaleString("en-US"), false],
    ["memory", humanBytes(st.nbytes), false],
  ];
  if (b.name !== null) rows.unshift(["name", b.name, false]);
  if (st.size === 0) rows.push(["values", "empty", false]);
  else if (st.kind === "bool") rows.push([`true${approx}`, `${st.n_true.toLocaleString("en-US")} of ${st.size.toLocaleString("en-US")}`, false]);
  else if (st.min !== null) {
    rows.push([`min / max${approx}`, `${formatNumber(st.min)} / ${formatNumber(st.max)}`, false]);
    rows.push([`mean / std${approx}`, `${formatNumber(st.mean)} / ${formatNumber(st.std)}`, false]);
  }
  if (st.sampled) rows.push(["read", `${st.n_read.toLocaleString("en-US")} sampled values`, false]);
  const prefix = st.sampled ? "≈" : "";
  if (st.n_nan) rows.push(["NaN", `${prefix}${st.n_nan.toLocaleString("en-US")}`, true]);
  if (st.n_posinf) rows.push(["+Inf", `${prefix}${st.n_posinf.toLocaleString("en-US")}`, true]);
  if (st.n_neginf) rows.push(["-Inf", `${prefix}${st.n_neginf.toLocaleString("en-US")}`, true]);
  if (b.grad) rows.push(["grad", b.grad, false]);
  return rows;
}

/**
 * The summary line cut into pieces, each flag the kernel wrote into it (``NaN!3``, ``all zeros``)
 * marked, so the view can highlight them in place without repeating them. Flags not found in the
 * text are appended as their own pieces.
 */
export function summaryPieces(summary: string, flags: string[]): { text: string; flag: boolean }[] {
  const pieces: { text: string; flag: boolean }[] = [];
  let rest = summary;
  const missing: string[] = [];
  for (const f of flags) {
    const at = f ? rest.indexOf(f) : -1;
    if (at < 0) { missing.push(f); continue; }
    if (at > 0) pieces.push({ text: rest.slice(0, at), flag: false });
    pieces.push({ text: f, flag: true });
    rest = rest.slice(at + f.length);
  }
  if (rest) pieces.push({ text: rest, flag: false });
  for (const f of missing) if (f) pieces.push({ text: ` ${f}`, flag: true });
  return pieces;
}

export interface Bar { x: number; y: number; width: number; height: number; count: number; from: number; to: number }

/** Histogram bars scaled into a width x height box (tallest bar = full height). */
export function histogramBars(counts: number[], edges: number[], width: number, height: number): Bar[] {
  if (!counts.length) return [];
  const top = Math.max(...counts) || 1;
  const w = width / counts.length;
  return counts.map((c, i) => {
    const h = (c / top) * height;
    return { x: i * w, y: height - h, width: Math.max(w - 1, 1), height: h, count: c, from: edges[i], to: edges[i + 1] };
  });
}

/** The special values a heatmap cell can hold; each is drawn in its own colour and named on hover. */
export type CellKind = "value" | "nan" | "posinf" | "neginf";

export function cellKind(v: JsonNumber | boolean): CellKind {
  if (v === "NaN") return "nan";
  if (v === "Infinity") return "posinf";
  if (v === "-Infinity") return "neginf";
  return "value";
}

/** A perceptually ordered ramp (dark blue -> teal -> yellow, like viridis) for t in [0, 1]. */
const RAMP: [number, number, number][] = [[68, 1, 84], [59, 82, 139], [33, 145, 140], [94, 201, 98], [253, 231, 37]];

export function rampColor(t: number): string {
  const x = Math.min(Math.max(Number.isFinite(t) ? t : 0, 0), 1) * (RAMP.length - 1);
  const i = Math.min(Math.floor(x), RAMP.length - 2);
  const f = x - i;
  const c = RAMP[i].map((a, k) => Math.round(a + (RAMP[i + 1][k] - a) * f));
  return `rgb(${c[0]}, ${c[1]}, ${c[2]})`;
}

/** Where a value sits between the heatmap's min and max (0.5 when they are equal). */
export function heatPosition(v: number, min: number | null, max: number | null): number {
  if (min === null || max === null || !(max > min)) return 0.5;
  return (v - min) / (max - min);
}

/** The tensor index a heatmap cell shows: the slice's leading indices, then its row and column. */
export function cellIndex(hm: Heatmap, i: number, j: number): number[] {
  return [...hm.slice, hm.rows[i], hm.cols[j]];
}

/** "[0, 12, 40] = 0.1235" for the cell at heatmap row i, column j ("NaN!" / "+Inf!" flagged). */
export function cellLabel(hm: Heatmap, i: number, j: number): string {
  const v = hm.data[i][j];
  const kind = cellKind(v);
  const text = kind === "nan" ? "NaN!" : kind === "posinf" ? "+Inf!" : kind === "neginf" ? "-Inf!" : formatNumber(v);
  return `[${cellIndex(hm, i, j).join(", ")}] = ${text}`;
}

/** A caption saying what the heatmap shows: which slice, and whether rows/columns were picked. */
export function heatmapCaption(hm: Heatmap): string {
  const where = hm.slice.length ? `slice [${[...hm.slice, ":", ":"].join(", ")}]` : "values";
  const size = `${hm.shape[0]}×${hm.shape[1]}`;
  return hm.downsampled
    ? `${where}: ${hm.rows.length}×${hm.cols.length} evenly picked of ${size} (each cell one element)`
    : `${where}: ${size}`;
}
