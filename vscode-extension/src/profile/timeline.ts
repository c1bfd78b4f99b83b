/**
 * The timeline's geometry, without the DOM: the visible time window, zoom around the pointer, pan by a
 * drag, and which event is under the pointer. The webview (src/webviews/profile.ts) draws with it; node's
 * test runner checks it (test/profileTimeline.test.ts).
 */
import type { TraceEvent, Track } from "./trace";

/** The visible window, µs. */
export interface View {
  start: number;
  end: number;
}

export const LAYOUT = {
  /** the time axis above the tracks */
  axis: 22,
  /** one track's height */
  row: 30,
  /** the track names' column */
  gutter: 80,
  /** narrower boxes are drawn (and hit) this wide, so a 1 µs op among 10 ms ones can still be found */
  minBox: 2,
} as const;

/** The narrowest window zoom allows (µs): below this a box is wider than any screen anyway. */
export const MIN_SPAN = 0.01;

/** The window showing `from`..`to` with a margin, never narrower than MIN_SPAN. */
export function fit(from: number, to: number): View {
  const span = Math.max(to - from, MIN_SPAN);
  const margin = span * 0.02;
  return { start: from - margin, end: from + span + margin };
}

/** An x position (px, 0 at the tracks' left edge) of a time, for a plot `width` px wide. */
export function xOf(ts: number, view: View, width: number): number {
  return ((ts - view.start) / (view.end - view.start)) * width;
}

/** The time at an x position. */
export function timeAt(x: number, view: View, width: number): number {
  return view.start + (x / width) * (view.end - view.start);
}

/**
 * Zoom by `factor` (> 1 zooms in) keeping the time under `x` where it is; the window stays within
 * `bounds` (the trace with its margin) and no narrower than MIN_SPAN.
 */
export function zoom(view: View, factor: number, x: number, width: number, bounds: View): View {
  if (!(factor > 0) || !Number.isFinite(factor)) return view;
  const anchor = timeAt(x, view, width);
  const full = bounds.end - bounds.start;
  const span = Math.min(Math.max((view.end - view.start) / factor, MIN_SPAN), full);
  const left = anchor - (x / width) * span;
  return clamp({ start: left, end: left + span }, bounds);
}

/** Pan by a drag of `dx` px (to the right shows earlier time). */
export function pan(view: View, dx: number, width: number, bounds: View): View {
  const dt = (dx / width) * (view.end - view.start);
  return clamp({ start: view.start - dt, end: view.end - dt }, bounds);
}

function clamp(view: View, bounds: View): View {
  const span = view.end - view.start;
  if (span >= bounds.end - bounds.start) return { ...bounds };
  if (view.start < bounds.start) return { start: bounds.start, end: bounds.start + span };
  if (view.end > bounds.end) return { start: bounds.end - span, end: bounds.end };
  return view;
}

/** Each track's events in start order (the trace's events are sorted by start already). */
export function byTrack(events: readonly TraceEvent[], tracks: readonly Track[]): TraceEvent[][] {
  const index = new Map(tracks.map((t, i) => [t.tid, i]));
  const out: TraceEvent[][] = tracks.map(() => []);
  for (const e of events) {
    const i = index.get(e.tid);
    if (i !== undefined) out[i].push(e);
  }
  return out;
}

/** The first index in start-sorted `events` whose start is >= ts. */
export function lowerBound(events: readonly TraceEvent[], ts: number): number {
  let lo = 0;
  let hi = events.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (events[mid].ts < ts) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The track row at a y position (px, 0 at the canvas top), or -1. */
export function rowAt(y: number, nTracks: number): number {
  const row = Math.floor((y - LAYOUT.axis) / LAYOUT.row);
  return y >= LAYOUT.axis && row < nTracks ? row : -1;
}

/**
 * The event of a track under x (px in the plot), boxes at least LAYOUT.minBox wide; the latest-starting
 * one when boxes overlap. Looks back at most SCAN events from the pointer (ops of one track run one after
 * another, so the box under the pointer is among the last few that started before it).
 */
export function hitTest(events: readonly TraceEvent[], x: number, view: View, width: number): TraceEvent | undefined {
  const pxToUs = (view.end - view.start) / width;
  const t = timeAt(x, view, width);
  const slack = pxToUs * 0.5;  // half a pixel either side: a box's edge is hit where it is drawn
  for (let i = lowerBound(events, t + slack) - 1, seen = 0; i >= 0 && seen < SCAN; i--, seen++) {
    const e = events[i];
    const end = e.ts + Math.max(e.dur, LAYOUT.minBox * pxToUs);
    if (t >= e.ts - slack && t <= end + slack) return e;
  }
  return undefined;
}

const SCAN = 4096;

/** Axis ticks: a "nice" step (1, 2 or 5 × 10^k µs) giving about `target` ticks over the window. */
export function ticks(view: View, target = 8): number[] {
  const span = view.end - view.start;
  if (!(span > 0)) return [];
  const raw = span / target;
  const pow = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * pow).find((s) => s >= raw) ?? 10 * pow;
  const out: number[] = [];
  for (let t = Math.ceil(view.start / step) * step; t <= view.end && out.length < 100; t += step) out.push(t);
  return out;
}
