/**
 * Draws a spore.tensor/1 bundle into a DOM element: the summary line, the statistics table, an SVG
 * histogram and an SVG heatmap whose hover names each cell's tensor index and value. Shared by the
 * notebook renderer (src/renderers/tensor.ts) and the Inspect Tensor webview (src/webviews/tensor.ts).
 *
 * DOM contract (the e2e suite relies on it): root `.spore-tensor-view` with `.spore-tensor-summary`,
 * `.spore-tensor-stats`, `.spore-tensor-histogram` and, for two axes or more and at least one element,
 * `.spore-tensor-heatmap` (its hover line `.spore-tensor-hover`).
 *
 * Safety: every string from the bundle goes in through `textContent` or an attribute value, never
 * markup; styles are set through the CSSOM (`el.style`), which a strict style-src CSP allows.
 * Colours follow the VS Code theme through its CSS variables; the heatmap's ramp is fixed
 * (a data colour scale must not change with the theme), NaN and ±Inf cells get their own colours.
 */
import {
  type Heatmap, type TensorBundle, cellKind, cellLabel, formatNumber, heatPosition, heatmapCaption, histogramBars,
  rampColor, statRows, summaryPieces,
} from "./model";

const SVG = "http://www.w3.org/2000/svg";
const FG = "var(--vscode-foreground, currentColor)";
const MUTED = "var(--vscode-descriptionForeground, #888)";
const ALERT = "var(--vscode-errorForeground, #e5484d)";
const BAR = "var(--vscode-charts-blue, #4c72b0)";
const BORDER = "var(--vscode-panel-border, rgba(128, 128, 128, 0.35))";
export const SPECIAL_FILL: Record<string, string> = { nan: "#ff00ff", posinf: "#ffffff", neginf: "#000000" };
export const HEAT_CELL = 6; // px per heatmap cell (64 cells: 384 px)

type Attrs = Record<string, string | number>;

function el<K extends keyof HTMLElementTagNameMap>(doc: Document, tag: K, cls?: string, text?: string): HTMLElementTagNameMap[K] {
  const e = doc.createElement(tag);
  if (cls) e.setAttribute("class", cls);
  if (text !== undefined) e.textContent = text;
  return e;
}

function svg(doc: Document, tag: string, attrs: Attrs = {}): SVGElement {
  const e = doc.createElementNS(SVG, tag) as SVGElement;
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  return e;
}

/** Replace `container`'s content with the view of `bundle`. */
export function renderTensorView(container: HTMLElement, bundle: TensorBundle): HTMLElement {
  const doc = container.ownerDocument;
  const root = el(doc, "div", "spore-tensor-view");
  root.style.color = FG;
  root.style.fontFamily = "var(--vscode-editor-font-family, monospace)";
  root.style.fontSize = "var(--vscode-editor-font-size, 13px)";
  root.appendChild(summary(doc, bundle));
  const body = el(doc, "div", "spore-tensor-body");
  body.style.display = "flex";
  body.style.flexWrap = "wrap";
  body.style.gap = "1.5em";
  body.style.alignItems = "flex-start";
  body.style.marginTop = "0.5em";
  body.appendChild(statsTable(doc, bundle));
  body.appendChild(histogram(doc, bundle));
  root.appendChild(body);
  if (bundle.heatmap && bundle.stats.shape.length >= 2 && bundle.stats.size > 0) {
    root.appendChild(heatmap(doc, bundle.heatmap));
  }
  container.replaceChildren(root);
  return root;
}

/** A message in place of the view (a bundle that failed its checks, an evaluation error). */
export function renderMessage(container: HTMLElement, message: string): HTMLElement {
  const doc = container.ownerDocument;
  const root = el(doc, "div", "spore-tensor-view spore-tensor-error", message);
  root.style.color = ALERT;
  container.replaceChildren(root);
  return root;
}

function summary(doc: Document, b: TensorBundle): HTMLElement {
  const line = el(doc, "div", "spore-tensor-summary");
  const code = el(doc, "code");
  code.style.whiteSpace = "pre-wrap";
  for (const piece of summaryPieces(b.summary, b.stats.flags)) {
    if (!piece.flag) { code.appendChild(doc.createTextNode(piece.text)); continue; }
    const alarming = /NaN|Inf/.test(piece.text);
    const tag = el(doc, "span", alarming ? "spore-tensor-flag spore-tensor-alert" : "spore-tensor-flag", piece.text);
    tag.style.color = alarming ? ALERT : MUTED;
    tag.style.fontWeight = "bold";
    code.appendChild(tag);
  }
  line.appendChild(code);
  return line;
}

function statsTable(doc: Document, b: TensorBundle): HTMLElement {
  const table = el(doc, "table", "spore-tensor-stats");
  table.style.borderCollapse = "collapse";
  for (const [label, value, flagged] of statRows(b)) {
    const tr = el(doc, "tr");
    const th = el(doc, "th", undefined, label);
    th.style.textAlign = "left";
    th.style.fontWeight = "normal";
    th.style.color = MUTED;
    th.style.paddingRight = "1em";
    const td = el(doc, "td", flagged ? "spore-tensor-alert" : undefined, value);
    if (flagged) td.style.color = ALERT;
    tr.append(th, td);
    table.appendChild(tr);
  }
  return table;
}

function histogram(doc: Document, b: TensorBundle, width = 260, height = 64): HTMLElement {
  const box = el(doc, "div", "spore-tensor-histogram");
  const { counts, edges } = b.stats.histogram;
  if (!counts.length) {
    box.appendChild(el(doc, "span", undefined, b.stats.size ? "no finite values to histogram" : "no values"));
    box.style.color = MUTED;
    return box;
  }
  const pic = svg(doc, "svg", { width, height: height + 16, role: "img", "aria-label": "histogram of the values" });
  for (const bar of histogramBars(counts, edges, width, height)) {
    const r = svg(doc, "rect", { x: bar.x.toFixed(1), y: bar.y.toFixed(1), width: bar.width.toFixed(1), height: bar.height.toFixed(1) });
    r.style.fill = BAR;
    const title = svg(doc, "title");
    title.textContent = `[${formatNumber(bar.from)}, ${formatNumber(bar.to)}]: ${bar.count.toLocaleString("en-US")}`;
    r.appendChild(title);
    pic.appendChild(r);
  }
  const lo = svg(doc, "text", { x: 0, y: height + 12, "font-size": 10 });
  lo.textContent = formatNumber(edges[0]);
  const hi = svg(doc, "text", { x: width, y: height + 12, "font-size": 10, "text-anchor": "end" });
  hi.textContent = formatNumber(edges[edges.length - 1]);
  for (const t of [lo, hi]) { t.style.fill = MUTED; pic.appendChild(t); }
  box.appendChild(pic);
  const note = b.stats.sampled ? `histogram of ${b.stats.n_read.toLocaleString("en-US")} sampled values` : "histogram of the finite values";
  const caption = el(doc, "div", "spore-tensor-caption", note);
  caption.style.color = MUTED;
  caption.style.fontSize = "0.85em";
  box.appendChild(caption);
  return box;
}

function heatmap(doc: Document, hm: Heatmap): HTMLElement {
  const box = el(doc, "div", "spore-tensor-heatmap");
  box.style.marginTop = "0.75em";
  const caption = el(doc, "div", "spore-tensor-caption", heatmapCaption(hm));
  caption.style.color = MUTED;
  box.appendChild(caption);
  const w = hm.cols.length * HEAT_CELL;
  const h = hm.rows.length * HEAT_CELL;
  const pic = svg(doc, "svg", { width: w, height: h, role: "img", "aria-label": "heatmap of the values" });
  pic.style.border = `1px solid ${BORDER}`;
  pic.style.cursor = "crosshair";
  for (let i = 0; i < hm.rows.length; i++) {
    for (let j = 0; j < hm.cols.length; j++) {
      const v = hm.data[i][j];
      const kind = cellKind(v);
      const r = svg(doc, "rect", { x: j * HEAT_CELL, y: i * HEAT_CELL, width: HEAT_CELL, height: HEAT_CELL, "data-i": i, "data-j": j });
      const numeric = typeof v === "boolean" ? Number(v) : (v as number);
      r.style.fill = kind === "value" ? rampColor(heatPosition(numeric, hm.min, hm.max)) : SPECIAL_FILL[kind];
      if (kind !== "value") r.setAttribute("class", `spore-tensor-special spore-tensor-${kind}`);
      pic.appendChild(r);
    }
  }
  const hover = el(doc, "div", "spore-tensor-hover", "hover a cell for its index and value");
  hover.style.color = MUTED;
  hover.style.minHeight = "1.4em";
  pic.addEventListener("mousemove", (ev: Event) => {
    const target = ev.target as Element | null;
    const i = Number(target?.getAttribute?.("data-i"));
    const j = Number(target?.getAttribute?.("data-j"));
    if (!Number.isInteger(i) || !Number.isInteger(j) || target?.getAttribute("data-i") === null) return;
    hover.textContent = cellLabel(hm, i, j);
    hover.style.color = cellKind(hm.data[i][j]) === "value" ? FG : ALERT;
  });
  pic.addEventListener("mouseleave", () => { hover.style.color = MUTED; });
  box.appendChild(pic);
  box.appendChild(legend(doc, hm));
  box.appendChild(hover);
  return box;
}

function legend(doc: Document, hm: Heatmap): HTMLElement {
  const row = el(doc, "div", "spore-tensor-legend");
  row.style.display = "flex";
  row.style.gap = "0.75em";
  row.style.alignItems = "center";
  row.style.color = MUTED;
  row.style.fontSize = "0.85em";
  const swatch = (fill: string, label: string): void => {
    const s = el(doc, "span");
    s.style.display = "inline-block";
    s.style.width = "0.9em";
    s.style.height = "0.9em";
    s.style.background = fill;
    s.style.border = `1px solid ${BORDER}`;
    s.style.verticalAlign = "middle";
    const item = el(doc, "span");
    item.append(s, doc.createTextNode(` ${label}`));
    row.appendChild(item);
  };
  swatch(rampColor(0), formatNumber(hm.min));
  swatch(rampColor(1), formatNumber(hm.max));
  const kinds = new Set(hm.data.flat().map(cellKind));
  if (kinds.has("nan")) swatch(SPECIAL_FILL.nan, "NaN");
  if (kinds.has("posinf")) swatch(SPECIAL_FILL.posinf, "+Inf");
  if (kinds.has("neginf")) swatch(SPECIAL_FILL.neginf, "-Inf");
  return row;
}
