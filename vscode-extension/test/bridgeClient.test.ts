import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, before, test } from "node:test";
import { BridgeClient } from "../src/notebook/bridgeClient";
import type { BridgeEvent, ExecuteReply, StartReply } from "../src/notebook/protocol";

// The real Python bridge and a real Spore kernel, with the repository's interpreter (out/test -> repo root).
const REPO = path.resolve(__dirname, "..", "..", "..");
const PYTHON = path.join(REPO, ".venv", process.platform === "win32" ? "Scripts/python.exe" : "bin/python");
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "spore-bridge-test-"));
const env = { ...process.env, IPYTHONDIR: path.join(scratch, "ipython"), OMP_NUM_THREADS: "1", OPENBLAS_NUM_THREADS: "1" };

function needPython(): void {
  assert.ok(fs.existsSync(PYTHON), `${PYTHON} is missing: run \`make\` in ${REPO} to bootstrap the .venv the bridge tests use`);
}

let client: BridgeClient;
const events: BridgeEvent[] = [];
const logs: string[] = [];

/** Resolve when `predicate` holds for an event that arrives (or already arrived). */
function eventWhere(predicate: (e: BridgeEvent) => boolean): Promise<BridgeEvent> {
  const seen = events.find(predicate);
  if (seen) return Promise.resolve(seen);
  return new Promise((resolve) => client.onEvent((e) => { if (predicate(e)) resolve(e); }));
}

before(async () => {
  needPython();
  client = new BridgeClient({ python: PYTHON, cwd: scratch, env });
  client.onEvent((e) => events.push(e));
  client.onLog((line) => logs.push(line));
  const reply = await client.request<StartReply>("start", { cwd: scratch });
  assert.ok(reply.ok, `start failed: ${reply.error}\n${logs.join("\n")}`);
  assert.equal(reply.connection.transport, process.platform === "win32" ? "tcp" : "ipc");
  assert.equal(reply.kernel.cwd, scratch);
});

after(async () => {
  if (client) await client.shutdown();
  fs.rmSync(scratch, { recursive: true, force: true });
});

test("an execute's outputs arrive as events before its reply, which carries the execution count", async () => {
  const sent = client.send<ExecuteReply>("execute", { code: "print('hello')\n40 + 2", cell: "cell-a", metadata: { cellId: "cell-a" } });
  const reply = await sent.reply;
  assert.equal(reply.ok, true);
  assert.equal(reply.status, "ok");
  const mine = events.filter((e) => e.event === "output" && e.id === sent.id);
  assert.deepEqual(mine.map((e) => e.event === "output" && e.msg_type), ["stream", "execute_result"]);
  const result = mine[1];
  assert.ok(result.event === "output");
  assert.deepEqual((result.content.data as Record<string, string>)["text/plain"], "42");
  assert.equal(result.content.execution_count, reply.execution_count);
  assert.ok(mine.every((e) => e.event === "output" && e.cell === "cell-a"));
});

test("concurrent requests get their own replies, matched by id", async () => {
  const slow = client.send<ExecuteReply>("execute", { code: "import time\ntime.sleep(0.3)\nz = 7" });
  const value = client.send("evaluate", { expression: "z * 6" }); // queued in the kernel behind the cell
  const missing = client.send("evaluate", { expression: "no_such_name" });
  const [a, b, c] = await Promise.all([slow.reply, value.reply, missing.reply]);
  assert.equal(a.reply, slow.id);
  assert.equal(a.status, "ok");
  assert.deepEqual(b, { reply: value.id, ok: true, data: { "text/plain": "42" }, metadata: {} });
  assert.equal(c.ok, false);
  assert.match(c.error ?? "", /^NameError/);
});

test("a malformed line gives an error event and the bridge keeps answering", async () => {
  client.writeRaw("{not json\n");
  const err = await eventWhere((e) => e.event === "error");
  assert.ok(err.event === "error");
  assert.match(err.message, /not JSON/);
  const reply = await client.request("evaluate", { expression: "1 + 1" });
  assert.deepEqual(reply.data, { "text/plain": "2" });
});

test("the kernel's stderr reaches the log listener, not the protocol", async () => {
  await client.request("execute", { code: "import os\nos.write(2, b'kernel-side stderr line\\n')\nos.write(1, b'kernel-side fd1 line\\n')" });
  await client.request("evaluate", { expression: "0" }); // a round trip after the writes
  assert.ok(logs.some((l) => l.includes("kernel-side stderr line")), logs.join("\n"));
  assert.ok(logs.some((l) => l.includes("kernel-side fd1 line")), logs.join("\n"));
  assert.ok(!logs.some((l) => l.includes("not a protocol line")), logs.join("\n"));
});

test("an interpreter that does not exist is reported, and requests to it fail with that reason", async () => {
  const bad = new BridgeClient({ python: path.join(scratch, "no-such-python"), env });
  const exit = await bad.exited;
  assert.match(exit.error ?? "", /no-such-python was not found/);
  await assert.rejects(bad.request("start"), /not running \(.*no-such-python was not found\)/);
});

test("a bridge that is killed rejects the requests it had not answered", async () => {
  needPython();
  const doomed = new BridgeClient({ python: PYTHON, cwd: scratch, env });
  const started = await doomed.request("start", { cwd: scratch });
  assert.ok(started.ok);
  const waiting = doomed.request("execute", { code: "import time\ntime.sleep(30)" });
  await new Promise<void>((resolve) => doomed.onEvent((e) => { if (e.event === "status" && e.state === "busy") resolve(); }));
  doomed.kill();
  await assert.rejects(waiting, /the Spore kernel bridge exited \(signal SIGKILL\)/);
  assert.equal(doomed.running, false);
});

test("shutdown ends the bridge cleanly and later requests are refused", async () => {
  needPython();
  const short = new BridgeClient({ python: PYTHON, cwd: scratch, env });
  assert.ok((await short.request("start", { cwd: scratch })).ok);
  const exit = await short.shutdown();
  assert.deepEqual(exit, { code: 0, signal: null, error: undefined });
  await assert.rejects(short.request("evaluate", { expression: "1" }), /not running \(exit code 0\)/);
});
