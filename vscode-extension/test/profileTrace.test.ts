import { strict as assert } from "node:assert";
import { test } from "node:test";
import { contentSecurityPolicy, makeNonce, profileHtml } from "../src/profile/html";
import {
  MAX_TRACE_BYTES, TraceError, aggregateByLine, bestSuffixMatch, checkSize, eventsOfLine, formatDuration, formatPercent,
  lensTitle, parseTrace, pathKey, splitSource, statsForFile,
} from "../src/profile/trace";

function ev(name: string, ts: number, dur: number, source: string, tid = 0, cat = "pynative"): object {
  return { name, cat, ph: "X", ts, dur, pid: 1, tid, args: { scope: "Net", source, fused: [] } };
}

test("sources split at the last colon, Windows drives included", () => {
  assert.deepEqual(splitSource("/a/b.py:12"), { file: "/a/b.py", line: 12 });
  assert.deepEqual(splitSource("C:\\w\\net.py:3"), { file: "C:\\w\\net.py", line: 3 });
  assert.equal(splitSource(""), undefined);
  assert.equal(splitSource("/a/b.py"), undefined);
  assert.equal(splitSource("/a/b.py:0"), undefined);
  assert.equal(pathKey("C:\\w\\net.py"), "c:/w/net.py");
});

test("aggregation per file and line: total, share of the trace, calls, ops by time", () => {
  const trace = parseTrace(JSON.stringify({ traceEvents: [
    ev("MatMul", 0, 300, "/w/net.py:5"), ev("Add", 300, 100, "/w/net.py:5"), ev("ReLU", 400, 100, "/w/net.py:6"),
    ev("FusedDense", 600, 400, "/w/net.py:5", 1, "graph"), ev("python", 1000, 100, "", 1, "graph"),
    { name: "thread_name", ph: "M", tid: 1, args: { name: "graph (compiled)" } },
    { name: "marker", ph: "i", ts: 5 },
  ] }));
  assert.equal(trace.events.length, 5, "metadata and instant events are not timed");
  assert.deepEqual(trace.tracks, [{ tid: 0, name: "pynative" }, { tid: 1, name: "graph (compiled)" }]);
  assert.equal(trace.totalUs, 1000);
  assert.equal(trace.startUs, 0);
  assert.equal(trace.endUs, 1100);
  const stats = aggregateByLine(trace);
  const net = stats.get("/w/net.py")!;
  assert.deepEqual([...net.keys()].sort(), [5, 6]);
  const five = net.get(5)!;
  assert.equal(five.calls, 3);
  assert.equal(five.totalUs, 800);
  assert.equal(five.percent, 80);
  assert.deepEqual(five.ops, ["FusedDense", "MatMul", "Add"]);
  assert.equal(lensTitle(five), "$(watch) 800 µs · 80.0% · 3 calls");
  assert.equal(lensTitle(net.get(6)!), "$(watch) 100 µs · 10.0% · 1 call");
  assert.equal(eventsOfLine(trace, "/w/net.py", 5).length, 3);
  assert.equal(eventsOfLine(trace, "/w/other.py", 5).length, 0);
});

test("a bare event array (the other Chrome trace form) opens too", () => {
  const trace = parseTrace(JSON.stringify([ev("Add", 10, 5, "/a.py:1")]));
  assert.equal(trace.events.length, 1);
});

test("broken traces get an error that names the problem", () => {
  const cases: [string, RegExp][] = [
    ["{not json", /is not JSON/],
    ["42", /not a Chrome trace/],
    ['{"events": []}', /no "traceEvents" array/],
    ['{"traceEvents": []}', /no timed events/],
    ['{"traceEvents": [3]}', /traceEvents\[0\] is not an object/],
    ['{"traceEvents": [{"ph": "X", "name": "A", "ts": 0, "dur": 1}, {"ph": "X", "name": 7, "ts": 0, "dur": 1}]}', /traceEvents\[1\]\.name must be a string/],
    ['{"traceEvents": [{"ph": "X", "name": "A", "ts": "0", "dur": 1}]}', /traceEvents\[0\]\.ts must be a number/],
    ['{"traceEvents": [{"ph": "X", "name": "A", "ts": 0, "dur": -1}]}', /traceEvents\[0\]\.dur must be a non-negative/],
  ];
  for (const [text, message] of cases) {
    assert.throws(() => parseTrace(text, "t.json"), (err: unknown) => err instanceof TraceError && message.test(err.message)
      && err.message.startsWith("t.json"), text);
  }
  assert.throws(() => checkSize(MAX_TRACE_BYTES + 1, "big.json"), /big\.json is 64\.0 MiB; Spore opens traces up to 64 MiB/);
  checkSize(MAX_TRACE_BYTES, "ok.json");
});

test("durations and shares read well", () => {
  assert.equal(formatDuration(3210.4), "3.21 ms");
  assert.equal(formatDuration(850), "850 µs");
  assert.equal(formatDuration(12.34), "12.3 µs");
  assert.equal(formatDuration(0.25), "250 ns");
  assert.equal(formatDuration(1.5e6), "1.50 s");
  assert.equal(formatDuration(-1), "?");
  assert.equal(formatPercent(12.44), "12.4%");
  assert.equal(formatPercent(0.01), "<0.1%");
  assert.equal(formatPercent(0), "0.0%");
});

test("an open document finds its lines by exact path, else by a unique path tail", () => {
  const trace = parseTrace(JSON.stringify({ traceEvents: [ev("A", 0, 1, "/run/proj/net.py:2"), ev("B", 0, 1, "/run/proj/sub/net.py:3")] }));
  const stats = aggregateByLine(trace);
  assert.ok(statsForFile(stats, "/run/proj/net.py")?.has(2));
  assert.ok(statsForFile(stats, "/home/me/proj/sub/net.py", "sub/net.py")?.has(3));
  assert.equal(statsForFile(stats, "/home/me/x/net.py", "net.py"), undefined, "two traced files end with /net.py: no guess");
  assert.equal(bestSuffixMatch("/run/proj/sub/net.py", ["/ws/net.py", "/ws/sub/net.py", "/ws/other.py"]), "/ws/sub/net.py");
  assert.equal(bestSuffixMatch("/run/a.py", ["/ws/b.py"]), undefined);
});

test("the webview page has a strict CSP and no trace text", () => {
  const nonce = makeNonce();
  assert.match(nonce, /^[A-Za-z0-9+/]{22}==$/);
  assert.notEqual(makeNonce(), nonce);
  const csp = contentSecurityPolicy(nonce);
  assert.deepEqual(csp.split("; "), ["default-src 'none'", `style-src 'nonce-${nonce}'`, `script-src 'nonce-${nonce}'`]);
  const html = profileHtml("https://x.vscode-cdn.net/dist/webviews/profile.js", nonce);
  const meta = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(html);
  assert.equal(meta?.[1], csp);
  const scripts = [...html.matchAll(/<script\b([^>]*)>/g)].map((m) => m[1]);
  assert.equal(scripts.length, 1);
  assert.ok(scripts[0].includes(`nonce="${nonce}"`) && scripts[0].includes('src="https://x.vscode-cdn.net/dist/webviews/profile.js"'));
  assert.doesNotMatch(html, /\bon\w+=/, "no inline event handlers");
});
