/**
 * A Spore Profiler trace (`spore_trace.json`, Chrome trace format) read, checked and summed, without
 * `vscode` or the DOM: the extension host uses it for the code lenses, the webview for the timeline, and
 * node's test runner checks it against a trace a real Spore run wrote (test/fixtures/).
 *
 * What `spore.profiler.Profiler.chrome_trace` writes: `{traceEvents: [{name, cat: "pynative"|"graph",
 * ph: "X", ts, dur (µs), pid, tid: 0|1, args: {scope, source: "file:line", fused}}], ...}`. Other Chrome
 * traces open too (a bare event array, metadata events, events without args); only complete ("X") events
 * are timed.
 */

/** Traces larger than this are refused before reading: the webview gets every event. */
export const MAX_TRACE_BYTES = 64 * 1024 * 1024;
/** ... and more events than this are refused after parsing (a timeline of millions of boxes is no help). */
export const MAX_EVENTS = 500_000;

export interface TraceEvent {
  name: string;
  cat: string;
  /** start, µs */
  ts: number;
  /** duration, µs */
  dur: number;
  tid: number;
  scope: string;
  /** "file:line" as the trace says, "" when the op has no user line */
  source: string;
  file?: string;
  /** 1-based */
  line?: number;
  fused: string[];
}

export interface Track {
  tid: number;
  /** "pynative", "graph", a thread_name metadata event's name, or "thread <tid>" */
  name: string;
}

export interface Trace {
  events: TraceEvent[];
  tracks: Track[];
  /** sum of every event's duration, µs: the 100% of the lenses (as the Profiler's own table) */
  totalUs: number;
  /** first start and last end, µs */
  startUs: number;
  endUs: number;
}

/** A trace that cannot be shown; the message names what is wrong (and where). */
export class TraceError extends Error {}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function finite(value: unknown): value is number {
  return typeof value === "number" && Number.isFinite(value);
}

/** "path/to/file.py:12" -> {file, line}; undefined for "" or a source without a line number. */
export function splitSource(source: string): { file: string; line: number } | undefined {
  const m = /^(.*):(\d+)$/.exec(source);
  if (!m || !m[1]) return undefined;
  const line = Number(m[2]);
  return line >= 1 ? { file: m[1], line } : undefined;
}

/** Check a trace file's size before it is read (a clear refusal instead of a hung webview). */
export function checkSize(bytes: number, name: string): void {
  if (bytes > MAX_TRACE_BYTES) {
    throw new TraceError(`${name} is ${(bytes / 1024 / 1024).toFixed(1)} MiB; Spore opens traces up to `
      + `${MAX_TRACE_BYTES / 1024 / 1024} MiB (profile fewer steps)`);
  }
}

/** Parse and check a trace's text. Throws TraceError naming the first problem. */
export function parseTrace(text: string, name = "the trace"): Trace {
  checkSize(text.length, name);  // characters: at most the bytes, and the file's own size is checked before reading
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new TraceError(`${name} is not JSON: ${err instanceof Error ? err.message : String(err)}`);
  }
  return traceFromJson(data, name);
}

/** Check an already parsed trace (the webview receives it this way). */
export function traceFromJson(data: unknown, name = "the trace"): Trace {
  let raw: unknown;
  let where = "traceEvents";
  if (Array.isArray(data)) {
    raw = data;
    where = "";
  } else if (isRecord(data)) {
    raw = data.traceEvents;
    if (!Array.isArray(raw)) {
      throw new TraceError(`${name} has no "traceEvents" array (a Chrome trace as spore.Profiler writes it)`);
    }
  } else {
    throw new TraceError(`${name} is JSON but not a Chrome trace (an object with "traceEvents")`);
  }
  const list = raw as unknown[];
  const events: TraceEvent[] = [];
  const names = new Map<number, string>();
  const cats = new Map<number, string>();
  for (let i = 0; i < list.length; i++) {
    const ev = list[i];
    const at = `${where}[${i}]`;
    if (!isRecord(ev)) throw new TraceError(`${name}: ${at} is not an object`);
    if (ev.ph === "M" && ev.name === "thread_name" && finite(ev.tid) && isRecord(ev.args) && typeof ev.args.name === "string") {
      names.set(ev.tid, ev.args.name);
      continue;
    }
    if (ev.ph !== "X") continue;  // instant, counter, flow ... events carry no duration
    if (typeof ev.name !== "string") throw new TraceError(`${name}: ${at}.name must be a string`);
    if (!finite(ev.ts)) throw new TraceError(`${name}: ${at}.ts must be a number (µs)`);
    if (!finite(ev.dur) || ev.dur < 0) throw new TraceError(`${name}: ${at}.dur must be a non-negative number (µs)`);
    const tid = finite(ev.tid) ? ev.tid : 0;
    const args = isRecord(ev.args) ? ev.args : {};
    const source = typeof args.source === "string" ? args.source : "";
    const cat = typeof ev.cat === "string" ? ev.cat : "";
    const fused = Array.isArray(args.fused) ? args.fused.filter((f): f is string => typeof f === "string") : [];
    const out: TraceEvent = { name: ev.name, cat, ts: ev.ts, dur: ev.dur, tid, source, fused,
                              scope: typeof args.scope === "string" ? args.scope : "" };
    const split = splitSource(source);
    if (split) { out.file = split.file; out.line = split.line; }
    events.push(out);
    if (cat && !cats.has(tid)) cats.set(tid, cat);
    if (events.length > MAX_EVENTS) throw new TraceError(`${name} has more than ${MAX_EVENTS} events; profile fewer steps`);
  }
  if (events.length === 0) throw new TraceError(`${name} has no timed events ("ph": "X"); was the Profiler running while ops ran?`);
  events.sort((a, b) => a.ts - b.ts);
  const tids = [...new Set(events.map((e) => e.tid))].sort((a, b) => a - b);
  const tracks = tids.map((tid) => ({ tid, name: names.get(tid) ?? cats.get(tid) ?? `thread ${tid}` }));
  let totalUs = 0;
  let endUs = -Infinity;
  for (const e of events) {
    totalUs += e.dur;
    endUs = Math.max(endUs, e.ts + e.dur);
  }
  return { events, tracks, totalUs, startUs: events[0].ts, endUs };
}

export interface LineStat {
  file: string;
  line: number;
  totalUs: number;
  calls: number;
  /** of the trace's total op time */
  percent: number;
  /** ops on this line, most time first */
  ops: string[];
}

/** A comparable form of a path: forward slashes, a lower-case drive letter (traces from Windows). */
export function pathKey(file: string): string {
  const slashed = file.replace(/\\/g, "/");
  return /^[A-Za-z]:\//.test(slashed) ? slashed[0].toLowerCase() + slashed.slice(1) : slashed;
}

/** Per file (by pathKey), per line: the events' total time, share of the trace and count. */
export function aggregateByLine(trace: Trace): Map<string, Map<number, LineStat>> {
  const out = new Map<string, Map<number, LineStat>>();
  const opTime = new Map<LineStat, Map<string, number>>();
  for (const e of trace.events) {
    if (e.file === undefined || e.line === undefined) continue;
    const key = pathKey(e.file);
    let lines = out.get(key);
    if (!lines) out.set(key, (lines = new Map()));
    let stat = lines.get(e.line);
    if (!stat) {
      lines.set(e.line, (stat = { file: e.file, line: e.line, totalUs: 0, calls: 0, percent: 0, ops: [] }));
      opTime.set(stat, new Map());
    }
    stat.totalUs += e.dur;
    stat.calls += 1;
    const ops = opTime.get(stat)!;
    ops.set(e.name, (ops.get(e.name) ?? 0) + e.dur);
  }
  for (const lines of out.values()) {
    for (const stat of lines.values()) {
      stat.percent = trace.totalUs > 0 ? (100 * stat.totalUs) / trace.totalUs : 0;
      stat.ops = [...opTime.get(stat)!.entries()].sort((a, b) => b[1] - a[1]).map(([op]) => op);
    }
  }
  return out;
}

/**
 * The per-line stats of one open document. A trace names files as the profiled process saw them; an
 * exact path match wins, else the trace file whose path ends with the document's workspace-relative path
 * (a trace made on another machine or in a container), when exactly one does.
 */
export function statsForFile(stats: Map<string, Map<number, LineStat>>, fsPath: string,
                             relativePath?: string): Map<number, LineStat> | undefined {
  const exact = stats.get(pathKey(fsPath));
  if (exact || !relativePath) return exact;
  const tail = "/" + pathKey(relativePath).replace(/^\/+/, "");
  const matches = [...stats.keys()].filter((k) => k.endsWith(tail));
  return matches.length === 1 ? stats.get(matches[0]) : undefined;
}

/** 3210.4 µs -> "3.21 ms"; three significant digits from ns to s. */
export function formatDuration(us: number): string {
  if (!Number.isFinite(us) || us < 0) return "?";
  const [value, unit] = us >= 1e6 ? [us / 1e6, "s"] : us >= 1e3 ? [us / 1e3, "ms"] : us >= 1 ? [us, "µs"] : [us * 1e3, "ns"];
  const digits = value >= 100 ? 0 : value >= 10 ? 1 : 2;
  return `${value.toFixed(digits)} ${unit}`;
}

/** 12.44 -> "12.4%"; a share too small to show as a digit says so instead of "0.0%". */
export function formatPercent(percent: number): string {
  return percent > 0 && percent < 0.05 ? "<0.1%" : `${percent.toFixed(1)}%`;
}

/** The code lens: "$(watch) 3.21 ms · 12.4% · 200 calls" (VS Code draws `$(watch)` as its stopwatch icon). */
export function lensTitle(stat: LineStat): string {
  return `$(watch) ${formatDuration(stat.totalUs)} · ${formatPercent(stat.percent)} · ${stat.calls} ${stat.calls === 1 ? "call" : "calls"}`;
}

/** The events of one source line (what a lens click shows). */
export function eventsOfLine(trace: Trace, file: string, line: number): TraceEvent[] {
  const key = pathKey(file);
  return trace.events.filter((e) => e.line === line && e.file !== undefined && pathKey(e.file) === key);
}

/**
 * The candidate (a workspace file) that shares the longest path tail with a file a trace names, at least
 * its base name: where to reveal a source line of a trace made on another machine or in a container.
 */
export function bestSuffixMatch(traceFile: string, candidates: readonly string[]): string | undefined {
  const want = pathKey(traceFile).split("/").reverse();
  let best: string | undefined;
  let bestLen = 0;
  for (const c of candidates) {
    const parts = pathKey(c).split("/").reverse();
    let n = 0;
    while (n < want.length && n < parts.length && want[n] === parts[n]) n++;
    if (n > bestLen) { best = c; bestLen = n; }
  }
  return best;
}
