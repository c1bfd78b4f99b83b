import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { test } from "node:test";
import { captureArgs, outcome, payloadArgs, run } from "../src/graphView/capture";
import { extensionRoot } from "../scripts/syncDebuggers";

const node = process.execPath;
// The repository's interpreter: what `make` bootstraps and what the extension finds as the workspace's .venv.
const python = path.join(extensionRoot, "..", ".venv", "bin", "python");

test("a child's stdout is the result; its exit code and stderr come back", async () => {
  const res = await run(node, ["-e", "process.stdout.write(JSON.stringify({a: 1})); process.stderr.write('log\\n')"], { timeoutMs: 20000 });
  assert.deepEqual({ ...res, stdout: JSON.parse(res.stdout) }, { code: 0, stdout: { a: 1 }, stderr: "log\n", timedOut: false, cancelled: false });
  assert.deepEqual(outcome(res, "running x.py", 60), { ok: true, payload: { a: 1 } });
});

test("a child that runs too long is killed at the timeout and the message names the setting", async () => {
  const t0 = Date.now();
  const res = await run(node, ["-e", "setInterval(() => {}, 1000)"], { timeoutMs: 300 });
  assert.ok(res.timedOut && Date.now() - t0 < 10000);
  assert.match((outcome(res, "running train.py", 60) as { message: string }).message,
               /running train.py did not reach the graph within 60 s \(setting spore.graph.captureTimeout\)/);
});

test("Cancel kills the child", async () => {
  const abort = new AbortController();
  const pending = run(node, ["-e", "setInterval(() => {}, 1000)"], { timeoutMs: 60000, signal: abort.signal });
  abort.abort();
  const res = await pending;
  assert.ok(res.cancelled && !res.timedOut);
  assert.match((outcome(res, "running a.py", 60) as { message: string }).message, /cancelled/);
});

test("a missing interpreter and a failing one give one sentence each", async () => {
  const missing = await run("/nonexistent/python3", ["-V"], { timeoutMs: 5000 });
  assert.equal(missing.code, null);
  assert.match((outcome(missing, "reading g.json", 60) as { message: string }).message, /could not start Python for reading g.json/);
  const failing = await run(node, ["-e", "console.error('Traceback...'); console.error('spore-viz capture: a.py ended without calling Net.construct'); process.exit(3)"],
                            { timeoutMs: 20000 });
  assert.deepEqual(outcome(failing, "running a.py", 60), { ok: false, message: "Spore: a.py ended without calling Net.construct" });
  const noViz = await run(node, ["-e", "console.error('/usr/bin/python3: No module named spore_viz'); process.exit(1)"], { timeoutMs: 20000 });
  assert.match((outcome(noViz, "reading g.json", 60) as { message: string }).message, /has no spore_viz/);
});

test("the real capture: the construct's graph for the program's input, the step never runs", async () => {
  assert.ok(fs.existsSync(python), `${python} is missing: run make (it bootstraps .venv)`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "spore-capture-"));
  const prog = path.join(dir, "train.py");
  fs.writeFileSync(prog, [
    "import numpy as np", "import spore as ms", "from spore import nn", "", "",
    "class Net(nn.Cell):", "    def __init__(self):", "        super().__init__()", "        self.fc = nn.Dense(4, 2)", "",
    "    def construct(self, x):", "        return ms.ops.relu(self.fc(x))", "", "",
    "net = Net()", "net(ms.Tensor(np.ones((6, 4), np.float32)))", "open('ran.txt', 'w').write('ran')", "",
  ].join("\n"));
  const res = await run(python, captureArgs(prog, 12, 60), { cwd: dir, timeoutMs: 120000 });
  const out = outcome(res, "running train.py", 60);
  assert.ok(out.ok, res.stderr);
  const payload = (out as { payload: { kind: string; name: string; items: unknown[][] } }).payload;
  assert.equal(payload.kind, "spore.view/1");
  assert.equal(payload.name, "Net.construct");
  assert.deepEqual(payload.items.filter((it) => it[0] === "input").map((it) => it[3]), ["6×4 f32"]);
  assert.ok(!fs.existsSync(path.join(dir, "ran.txt")));
  assert.deepEqual(payloadArgs("/w/g.json", "/w"), ["-m", "spore_viz", "payload", "/w/g.json", "--sources", "/w"]);
  assert.deepEqual(payloadArgs("/w/g.json"), ["-m", "spore_viz", "payload", "/w/g.json"]);
  const json = path.join(dir, "bad.json");
  fs.writeFileSync(json, '{"schema": "other/1"}');
  const bad = outcome(await run(python, payloadArgs(json), { cwd: dir, timeoutMs: 60000 }), "reading bad.json", 60);
  assert.match((bad as { message: string }).message, /expected a 'spore.graph\/1' graph/);
});
