import { strict as assert } from "node:assert";
import { test } from "node:test";
import { probeModule } from "../src/probe";

// Real interpreter processes: python3 is on PATH wherever the Spore repository builds.
test("a module the interpreter has is found", async () => {
  assert.deepEqual(await probeModule("python3", "json"), { ok: true });
});

test("a missing module is named in the reason", async () => {
  const r = await probeModule("python3", "spore_no_such_module");
  assert.equal(r.ok, false);
  assert.match(!r.ok ? r.reason : "", /has no module spore_no_such_module/);
});

test("a missing interpreter is reported as not found", async () => {
  const r = await probeModule("/nonexistent/python", "json");
  assert.deepEqual(r, { ok: false, reason: "/nonexistent/python was not found" });
});

test("an interpreter that fails otherwise gives its last stderr line", async () => {
  const r = await probeModule("false", "json"); // /usr/bin/false: exits 1 with no output
  assert.equal(r.ok, false);
  assert.match(!r.ok ? r.reason : "", /^false failed: /);
});
