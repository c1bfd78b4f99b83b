import { strict as assert } from "node:assert";
import { test } from "node:test";
import { CrashBudget, onServerClosed } from "../src/crashBudget";

test("restarts up to the budget, then gives up", () => {
  const b = new CrashBudget(2, 1000);
  assert.deepEqual(b.record(0), { action: "restart", attempt: 1, max: 2 });
  assert.deepEqual(b.record(10), { action: "restart", attempt: 2, max: 2 });
  assert.deepEqual(b.record(20), { action: "give-up", crashes: 3 });
});

test("crashes older than the window are forgotten", () => {
  const b = new CrashBudget(1, 1000);
  assert.equal(b.record(0).action, "restart");
  assert.equal(b.record(999).action, "give-up");
  assert.deepEqual(b.record(2500), { action: "restart", attempt: 1, max: 1 });
});

test("reset gives a full budget again", () => {
  const b = new CrashBudget(1, 1000);
  b.record(0);
  assert.equal(b.record(1).action, "give-up");
  b.reset();
  assert.equal(b.record(2).action, "restart");
});

test("a server that never started is not restarted and spends no budget", () => {
  const b = new CrashBudget(1, 1000);
  assert.deepEqual(onServerClosed(false, b, 0), { action: "start-failed" });
  assert.deepEqual(onServerClosed(true, b, 1), { action: "restart", attempt: 1, max: 1 });
  assert.equal(onServerClosed(true, b, 2).action, "give-up");
});
