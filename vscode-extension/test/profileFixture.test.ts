// A trace written by a real Spore run (test/fixtures/make_trace.py profiles fixtures/profiled.py in
// PYNATIVE_MODE and GRAPH_MODE): the TypeScript reading and per-line sums agree with the sums Python
// computed from the Profiler's own events (expected_lines.json), and the lines are where the ops are.
import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { extensionRoot } from "../scripts/syncDebuggers";
import { aggregateByLine, lensTitle, parseTrace, statsForFile } from "../src/profile/trace";

const fixtures = path.join(extensionRoot, "test", "fixtures");
const trace = parseTrace(fs.readFileSync(path.join(fixtures, "spore_trace.json"), "utf8"), "spore_trace.json");
const expected = JSON.parse(fs.readFileSync(path.join(fixtures, "expected_lines.json"), "utf8"));
const program = fs.readFileSync(path.join(fixtures, "profiled.py"), "utf8").split("\n");

test("the real trace has both tracks and every event", () => {
  assert.equal(trace.events.length, expected.events);
  assert.deepEqual(trace.tracks.map((t) => t.name), ["pynative", "graph"]);
  // the trace rounds each duration to 1 ns; Python summed the unrounded ones
  assert.ok(Math.abs(trace.totalUs - expected.total_us) < 1e-3 * trace.events.length);
});

test("per-line totals and counts match Python's sums over the Profiler's events", () => {
  const stats = aggregateByLine(trace);
  assert.equal(stats.size, 1, "one profiled source file");
  // the trace names the file where it was made; the workspace-relative path finds it anywhere
  const lines = statsForFile(stats, "/elsewhere/checkout/vscode-extension/test/fixtures/profiled.py", "test/fixtures/profiled.py");
  assert.ok(lines, "the fixture's profiled.py is matched by its path tail");
  const got = Object.fromEntries([...lines].map(([line, s]) => [`profiled.py:${line}`, s]));
  assert.deepEqual(Object.keys(got).sort(), Object.keys(expected.lines).sort());
  let percent = 0;
  for (const [key, want] of Object.entries(expected.lines) as [string, { calls: number; total_us: number }][]) {
    assert.equal(got[key].calls, want.calls, key);
    assert.ok(Math.abs(got[key].totalUs - want.total_us) < 1e-3 * want.calls, `${key}: ${got[key].totalUs} vs ${want.total_us}`);
    percent += got[key].percent;
    assert.match(lensTitle(got[key]), new RegExp(`^\\$\\(watch\\) [\\d.]+ (ns|µs|ms|s) · [\\d.]+% · ${want.calls} calls$`));
  }
  assert.ok(Math.abs(percent - 100) < 1e-6, "every event of this trace has a user line");
});

test("the lines with time are construct's op lines", () => {
  const stats = aggregateByLine(trace);
  const lines = [...stats.values()][0];
  for (const [line, stat] of lines) {
    const text = program[line - 1];
    assert.match(text, /self\.fc\d\(|ops\.\w+\(/, `line ${line} (${text.trim()}) runs ${stat.ops.join(", ")}`);
  }
  const relu = program.findIndex((l) => l.includes("ops.relu(self.fc1(x))")) + 1;
  assert.ok(lines.get(relu)?.ops.includes("ReLU"));
  assert.ok(lines.get(relu)?.ops.includes("FusedDense"), "graph mode's fused op carries its line too");
});
