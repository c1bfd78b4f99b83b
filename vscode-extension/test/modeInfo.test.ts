import { strict as assert } from "node:assert";
import { test } from "node:test";
import {
  KERNEL_MODE_EXPRESSION, kernelModeInfo, kernelSwitchExpression, modeFromKernel, parseModeReply, pickSwitchAction,
  statusText, statusTooltip, type ModeInfo,
} from "../src/mode/modeInfo";

function parsed(reply: unknown): ModeInfo {
  const info = parseModeReply(reply);
  assert.ok(typeof info !== "string", String(info));
  return info;
}

test("a spore/mode answer becomes the status text, with · jit in compiled code", () => {
  const graph = parsed({ mode: "GRAPH_MODE", source: "set_context at line 4", compiled: true, compiledScope: "Net.construct",
                         switchTo: "PYNATIVE_MODE", sourceLocation: { uri: "file:///a.py", line: 3 }, spore: true });
  assert.equal(statusText(graph), "$(symbol-event) GRAPH_MODE · jit");
  assert.deepEqual(graph.sourceLocation, { uri: "file:///a.py", line: 3 });
  const tip = statusTooltip(graph);
  assert.match(tip, /GRAPH_MODE, from set_context at line 4/);
  assert.match(tip, /compiled code \(Net\.construct\)/);
  assert.match(tip, /switch this file to PYNATIVE_MODE/);
  const native = parsed({ mode: "PYNATIVE_MODE", source: "default (PYNATIVE_MODE)", compiled: false, switchTo: "GRAPH_MODE",
                          sourceLocation: null, spore: true });
  assert.equal(statusText(native), "$(symbol-event) PYNATIVE_MODE");
  assert.equal(native.sourceLocation, undefined);
});

test("a mode set from a variable shows as unknown and says why", () => {
  const info = parsed({ mode: "UNKNOWN", source: "set_context at line 4 (mode from a variable)", compiled: false, switchTo: "GRAPH_MODE" });
  assert.equal(statusText(info), "$(symbol-event) mode ?");
  assert.match(statusTooltip(info), /set from a variable/);
});

test("a file without spore says so in the tooltip", () => {
  const info = parsed({ mode: "PYNATIVE_MODE", source: "default (PYNATIVE_MODE)", compiled: false, switchTo: "GRAPH_MODE", spore: false });
  assert.equal(info.spore, false);
  assert.match(statusTooltip(info), /This file does not import spore/);
  assert.match(statusTooltip({ ...info, notebook: true }), /This notebook does not import spore/);
  assert.match(statusTooltip({ ...info, spore: true, notebook: true }), /switch this notebook to GRAPH_MODE/);
});

test("malformed answers are named, not shown", () => {
  assert.match(String(parseModeReply(null)), /not an object/);
  assert.match(String(parseModeReply({ mode: "FAST_MODE" })), /unknown mode "FAST_MODE"/);
  // a missing switchTo is derived from the mode
  assert.equal(parsed({ mode: "GRAPH_MODE" }).switchTo, "PYNATIVE_MODE");
});

test("the kernel's get_context('mode') int maps to the mode names", () => {
  assert.equal(KERNEL_MODE_EXPRESSION, "__import__('spore').get_context('mode')");
  assert.equal(modeFromKernel({ ok: true, data: { "text/plain": "0" } }), "GRAPH_MODE");
  assert.equal(modeFromKernel({ ok: true, data: { "text/plain": "1" } }), "PYNATIVE_MODE");
  assert.equal(modeFromKernel({ ok: true, data: { "text/plain": "'GRAPH_MODE'" } }), "GRAPH_MODE");
  assert.match(String(modeFromKernel({ ok: true, data: { "text/plain": "7" } })), /unknown mode/);
  assert.match(String(modeFromKernel({ ok: false, error: "ModuleNotFoundError: No module named 'spore'" })), /No module named/);
  assert.match(String(modeFromKernel({ ok: true, data: {} })), /no text\/plain/);
  const info = kernelModeInfo("GRAPH_MODE");
  assert.equal(info.origin, "kernel");
  assert.equal(info.switchTo, "PYNATIVE_MODE");
  assert.match(statusTooltip(info), /the Spore kernel/);
});

test("the kernel switch is one expression (evaluate takes no statements)", () => {
  assert.equal(kernelSwitchExpression("GRAPH_MODE"), "__import__('spore').set_context(mode=__import__('spore').GRAPH_MODE)");
  assert.doesNotMatch(kernelSwitchExpression("PYNATIVE_MODE"), /\bimport\s|;|\n/);
});

test("the switch action is picked by the server's title, for files and notebooks", () => {
  const actions = [{ title: "Compile Net.construct with @ms.jit" }, { title: "Switch this file to GRAPH_MODE" }];
  assert.equal(pickSwitchAction(actions, "GRAPH_MODE"), actions[1]);
  assert.equal(pickSwitchAction(actions, "PYNATIVE_MODE"), undefined);
  assert.equal(pickSwitchAction([{ title: "Switch this notebook to PYNATIVE_MODE" }], "PYNATIVE_MODE")?.title,
               "Switch this notebook to PYNATIVE_MODE");
});
