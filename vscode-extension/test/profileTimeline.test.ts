import { strict as assert } from "node:assert";
import { test } from "node:test";
import { LAYOUT, MIN_SPAN, byTrack, fit, hitTest, pan, rowAt, ticks, timeAt, xOf, zoom } from "../src/profile/timeline";
import type { TraceEvent } from "../src/profile/trace";

function box(name: string, ts: number, dur: number, tid = 0): TraceEvent {
  return { name, cat: "pynative", ts, dur, tid, scope: "", source: "", fused: [] };
}

const bounds = { start: 0, end: 1000 };

test("x and time are inverse", () => {
  const view = { start: 100, end: 300 };
  assert.equal(xOf(200, view, 400), 200);
  assert.equal(timeAt(200, view, 400), 200);
  assert.equal(timeAt(xOf(123, view, 400), view, 400), 123);
});

test("zoom keeps the time under the pointer and stays within the trace", () => {
  const view = { start: 0, end: 1000 };
  const zoomed = zoom(view, 4, 250, 1000, bounds);
  assert.equal(zoomed.end - zoomed.start, 250);
  assert.ok(Math.abs(timeAt(250, zoomed, 1000) - 250) < 1e-9, "the anchor stays under the pointer");
  assert.deepEqual(zoom(zoomed, 0.01, 500, 1000, bounds), bounds, "zooming out stops at the whole trace");
  let deep = view;
  for (let i = 0; i < 100; i++) deep = zoom(deep, 10, 500, 1000, bounds);
  assert.ok(deep.end - deep.start >= MIN_SPAN - 1e-12);
  assert.deepEqual(zoom(view, Number.NaN, 0, 1000, bounds), view);
});

test("a drag pans the other way and stops at the trace's edges", () => {
  const view = { start: 400, end: 500 };
  const right = pan(view, 100, 1000, bounds);  // drag 100 px right: 10 µs earlier
  assert.ok(Math.abs(right.start - 390) < 1e-9 && Math.abs(right.end - 490) < 1e-9);
  assert.deepEqual(pan(view, 1e6, 1000, bounds), { start: 0, end: 100 });
  assert.deepEqual(pan(view, -1e6, 1000, bounds), { start: 900, end: 1000 });
});

test("hit testing finds the box under the pointer, tiny boxes included", () => {
  const events = [box("A", 0, 100), box("B", 100, 50), box("tiny", 500, 0.001), box("C", 800, 100)];
  const view = { start: 0, end: 1000 };
  assert.equal(hitTest(events, 50, view, 1000)?.name, "A");
  assert.equal(hitTest(events, 120, view, 1000)?.name, "B");
  assert.equal(hitTest(events, 300, view, 1000), undefined, "a gap");
  assert.equal(hitTest(events, 501, view, 1000)?.name, "tiny", "drawn minBox px wide, hit as wide");
  assert.equal(hitTest(events, 500 + LAYOUT.minBox + 2, view, 1000), undefined);
  assert.equal(hitTest(events, 850, { start: 800, end: 900 }, 1000)?.name, "C", "zoomed in");
});

test("tracks and rows", () => {
  const tracks = [{ tid: 0, name: "pynative" }, { tid: 1, name: "graph" }];
  const split = byTrack([box("a", 0, 1, 0), box("b", 1, 1, 1), box("c", 2, 1, 0), box("x", 3, 1, 7)], tracks);
  assert.deepEqual(split.map((l) => l.map((e) => e.name)), [["a", "c"], ["b"]]);
  assert.equal(rowAt(LAYOUT.axis - 1, 2), -1);
  assert.equal(rowAt(LAYOUT.axis + 1, 2), 0);
  assert.equal(rowAt(LAYOUT.axis + LAYOUT.row + 1, 2), 1);
  assert.equal(rowAt(LAYOUT.axis + 2 * LAYOUT.row + 1, 2), -1);
});

test("fit and ticks", () => {
  const view = fit(100, 200);
  assert.ok(view.start < 100 && view.end > 200);
  assert.ok(fit(5, 5).end - fit(5, 5).start >= MIN_SPAN);
  const t = ticks({ start: 0, end: 1000 });
  assert.deepEqual(t.slice(0, 3), [0, 200, 400]);
  assert.ok(t.every((x) => x >= 0 && x <= 1000));
  assert.deepEqual(ticks({ start: 5, end: 5 }), []);
});
