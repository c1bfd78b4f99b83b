/**
 * The profile timeline webview: one track per thread (pynative / graph), boxes per op on a canvas; the
 * wheel zooms around the pointer, a drag pans, hovering shows the op, its scope, source line and
 * duration, a click on an event asks the extension to reveal its source line. Runs under a CSP with a
 * nonce and no inline handlers; every name from the trace reaches the page through textContent or the
 * canvas, never as HTML.
 *
 * Messages in: {type: "trace", name, trace, filter?: {file, line}} and {type: "filter", filter?}.
 * Messages out: {type: "ready"} once listening, {type: "reveal", file, line}.
 */
import { LAYOUT, byTrack, fit, hitTest, lowerBound, pan, rowAt, ticks, xOf, zoom, type View } from "../profile/timeline";
import { eventsOfLine, formatDuration, formatPercent, type Trace, type TraceEvent } from "../profile/trace";

declare function acquireVsCodeApi(): { postMessage(message: unknown): void };

interface LineFilter {
  file: string;
  line: number;
}

const vscodeApi = acquireVsCodeApi();

function el<K extends keyof HTMLElementTagNameMap>(tag: K, className?: string, text?: string): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

const header = el("div", "header");
const title = el("span", "title");
const summary = el("span", "summary");
const banner = el("span", "banner");
const showAll = el("button", "show-all", "Show all");
const reset = el("button", "reset", "Fit");
header.append(title, summary, banner, showAll, reset);
const canvas = el("canvas");
const tip = el("div", "tip");
const empty = el("div", "empty", "Waiting for the trace…");
document.body.dataset.sporeView = "profile";
document.body.append(header, empty, canvas, tip);

let trace: Trace | undefined;
let shown: TraceEvent[][] = [];
let maxDur: number[] = [];
let bounds: View = { start: 0, end: 1 };
let view: View = { start: 0, end: 1 };
let filter: LineFilter | undefined;

function plotWidth(): number {
  return Math.max(canvas.clientWidth - LAYOUT.gutter, 10);
}

function color(name: string, alpha = 1): string {
  let h = 0;
  for (let i = 0; i < name.length; i++) h = (h * 31 + name.charCodeAt(i)) >>> 0;
  return `hsla(${h % 360}, 55%, 52%, ${alpha})`;
}

function themeColor(name: string, fallback: string): string {
  return getComputedStyle(document.body).getPropertyValue(name).trim() || fallback;
}

/** Show a trace, or the events of one line of it. */
function setData(next: Trace | undefined, nextFilter: LineFilter | undefined): void {
  trace = next ?? trace;
  if (!trace) return;
  filter = nextFilter;
  const events = filter ? eventsOfLine(trace, filter.file, filter.line) : trace.events;
  shown = byTrack(events, trace.tracks);
  maxDur = shown.map((list) => list.reduce((m, e) => Math.max(m, e.dur), 0));
  const full = fit(trace.startUs, trace.endUs);
  bounds = full;
  if (filter && events.length) {
    const last = events.reduce((m, e) => Math.max(m, e.ts + e.dur), -Infinity);
    view = fit(events[0].ts, last);
    bounds = { start: Math.min(full.start, view.start), end: Math.max(full.end, view.end) };
  } else {
    view = { ...full };
  }
  const total = events.reduce((s, e) => s + e.dur, 0);
  summary.textContent = `${events.length} events · ${formatDuration(total)}`
    + (filter ? ` · ${formatPercent(trace.totalUs ? (100 * total) / trace.totalUs : 0)} of the trace` : "");
  banner.textContent = filter ? `Only ${filter.file.split(/[\\/]/).pop()}:${filter.line}` : "";
  banner.title = filter ? `${filter.file}:${filter.line}` : "";
  showAll.hidden = !filter;
  empty.hidden = true;
  canvas.height = 0;
  draw();
}

function draw(): void {
  if (!trace) return;
  const ratio = window.devicePixelRatio || 1;
  const style = getComputedStyle(document.body);  // the body's padding is not the canvas's to draw on
  const cssWidth = Math.max(document.body.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight), 100);
  const cssHeight = LAYOUT.axis + LAYOUT.row * trace.tracks.length + 4;
  canvas.style.width = `${cssWidth}px`;
  canvas.style.height = `${cssHeight}px`;
  if (canvas.width !== Math.round(cssWidth * ratio) || canvas.height !== Math.round(cssHeight * ratio)) {
    canvas.width = Math.round(cssWidth * ratio);
    canvas.height = Math.round(cssHeight * ratio);
  }
  const ctx = canvas.getContext("2d");
  if (!ctx) return;
  ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
  ctx.clearRect(0, 0, cssWidth, cssHeight);
  const fg = themeColor("--vscode-foreground", "#ccc");
  const grid = themeColor("--vscode-editorWidget-border", "#555");
  const width = plotWidth();
  ctx.font = "11px sans-serif";
  ctx.textBaseline = "middle";
  // axis
  ctx.fillStyle = fg;
  ctx.strokeStyle = grid;
  for (const t of ticks(view)) {
    const x = LAYOUT.gutter + xOf(t, view, width);
    ctx.beginPath();
    ctx.moveTo(x, LAYOUT.axis - 4);
    ctx.lineTo(x, cssHeight);
    ctx.stroke();
    const rel = t - trace.startUs;
    ctx.fillText(rel < 0 ? `-${formatDuration(-rel)}` : formatDuration(rel), x + 2, LAYOUT.axis / 2);
  }
  trace.tracks.forEach((track, row) => {
    const top = LAYOUT.axis + row * LAYOUT.row;
    ctx.fillStyle = fg;
    ctx.fillText(track.name.slice(0, 12), 4, top + LAYOUT.row / 2);
    ctx.save();
    ctx.beginPath();
    ctx.rect(LAYOUT.gutter, top, width, LAYOUT.row);
    ctx.clip();
    const list = shown[row];
    const pxToUs = (view.end - view.start) / width;
    for (let i = lowerBound(list, view.start - maxDur[row]); i < list.length && list[i].ts <= view.end; i++) {
      const e = list[i];
      const x = LAYOUT.gutter + xOf(e.ts, view, width);
      const w = Math.max(e.dur / pxToUs, LAYOUT.minBox);
      ctx.fillStyle = color(e.name);
      ctx.fillRect(x, top + 3, w, LAYOUT.row - 6);
      if (w > 30) {
        ctx.fillStyle = "#fff";
        ctx.fillText(e.name.slice(0, Math.floor(w / 7)), x + 3, top + LAYOUT.row / 2, w - 6);
      }
    }
    ctx.restore();
  });
}

function eventAt(clientX: number, clientY: number): TraceEvent | undefined {
  const rect = canvas.getBoundingClientRect();
  const x = clientX - rect.left - LAYOUT.gutter;
  const row = rowAt(clientY - rect.top, shown.length);
  if (row < 0 || x < 0) return undefined;
  return hitTest(shown[row], x, view, plotWidth());
}

function showTip(e: TraceEvent, clientX: number, clientY: number): void {
  tip.replaceChildren();
  const rows: [string, string][] = [
    ["op", e.fused.length > 1 ? `${e.name} (fused: ${e.fused.join(", ")})` : e.name],
    ["scope", e.scope || "—"],
    ["source", e.source || "— (no user line)"],
    ["duration", formatDuration(e.dur)],
    ["start", `+${formatDuration(e.ts - (trace?.startUs ?? 0))}`],
    ["mode", e.cat || "—"],
  ];
  for (const [key, value] of rows) {
    const line = el("div");
    line.append(el("b", undefined, `${key}: `), el("span", undefined, value));
    tip.append(line);
  }
  if (e.file && e.line) tip.append(el("div", "hint", "click: reveal the source line"));
  tip.hidden = false;
  const pad = 12;
  const left = Math.min(clientX + pad, window.innerWidth - tip.offsetWidth - 4);
  tip.style.left = `${Math.max(left, 0)}px`;
  tip.style.top = `${clientY + pad}px`;
}

let drag: { x: number; moved: boolean } | undefined;

canvas.addEventListener("wheel", (ev) => {
  ev.preventDefault();
  const rect = canvas.getBoundingClientRect();
  const x = Math.max(ev.clientX - rect.left - LAYOUT.gutter, 0);
  view = zoom(view, Math.exp(-ev.deltaY * 0.002), x, plotWidth(), bounds);
  draw();
}, { passive: false });

canvas.addEventListener("mousedown", (ev) => {
  drag = { x: ev.clientX, moved: false };
});

window.addEventListener("mousemove", (ev) => {
  if (drag && (ev.buttons & 1)) {
    const dx = ev.clientX - drag.x;
    if (Math.abs(dx) > 2 || drag.moved) {
      drag.moved = true;
      view = pan(view, dx, plotWidth(), bounds);
      drag.x = ev.clientX;
      tip.hidden = true;
      draw();
      return;
    }
  }
  const hit = ev.target === canvas ? eventAt(ev.clientX, ev.clientY) : undefined;
  if (hit) showTip(hit, ev.clientX, ev.clientY);
  else tip.hidden = true;
  canvas.style.cursor = hit?.file ? "pointer" : drag ? "grabbing" : "default";
});

window.addEventListener("mouseup", (ev) => {
  const wasDrag = drag?.moved;
  drag = undefined;
  if (wasDrag || ev.target !== canvas) return;
  const hit = eventAt(ev.clientX, ev.clientY);
  if (hit?.file && hit.line) vscodeApi.postMessage({ type: "reveal", file: hit.file, line: hit.line });
});

canvas.addEventListener("mouseleave", () => { tip.hidden = true; });
showAll.addEventListener("click", () => setData(undefined, undefined));
reset.addEventListener("click", () => {
  if (!trace) return;
  setData(undefined, filter);
});
window.addEventListener("resize", () => draw());

window.addEventListener("message", (ev: MessageEvent) => {
  const msg = ev.data as { type?: string; name?: string; trace?: Trace; filter?: LineFilter };
  if (msg?.type === "trace" && msg.trace) {
    const name = msg.name ?? "spore_trace.json";
    title.textContent = name.split(/[\\/]/).slice(-2).join("/");
    title.title = name;
    setData(msg.trace, msg.filter);
  } else if (msg?.type === "filter") {
    setData(undefined, msg.filter);
  }
});

tip.hidden = true;
showAll.hidden = true;
vscodeApi.postMessage({ type: "ready" });
