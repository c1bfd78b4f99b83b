import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import { test } from "node:test";
import { debugAdapterCommand, languageServerCommand } from "../src/commands";
import { currentFileConfiguration, debuggerContribution, parseDebuggerSpec, resolveLaunch } from "../src/debugConfig";
import { expectedDebuggers, packagePath, specPath } from "../scripts/syncDebuggers";

const spec = () => JSON.parse(fs.readFileSync(specPath, "utf8"));
const pkg = () => JSON.parse(fs.readFileSync(packagePath, "utf8"));

test("package.json's debuggers agree with debugger/spore_debug/configurations.json", () => {
  assert.deepEqual(pkg().contributes.debuggers, expectedDebuggers());
});

test("the contribution carries the JSON's attributes, configurations and snippets, not its adapter or examples", () => {
  const s = spec();
  const c = debuggerContribution(parseDebuggerSpec(s));
  assert.equal(c.type, "spore");
  assert.deepEqual(c.languages, ["python"]);
  assert.deepEqual(Object.keys(c.configurationAttributes).sort(), ["attach", "launch"]);
  assert.deepEqual(c.configurationAttributes, s.configurationAttributes);
  assert.deepEqual(c.initialConfigurations, s.initialConfigurations);
  assert.deepEqual(c.configurationSnippets.map((x) => x.label), s.configurationSnippets.map((x: { label: string }) => x.label));
  assert.ok(!("adapter" in c) && !("examples" in c));
});

test("a changed configurations.json changes the contribution (the agreement test can fail)", () => {
  const s = spec();
  s.configurationAttributes.launch.properties.newOption = { type: "boolean" };
  assert.notDeepEqual([debuggerContribution(parseDebuggerSpec(s))], pkg().contributes.debuggers);
});

test("a broken configurations.json is refused with the field's name", () => {
  assert.throws(() => parseDebuggerSpec({ type: "spore", label: "Spore", configurationAttributes: {} }), /initialConfigurations/);
  assert.throws(() => parseDebuggerSpec({ type: "spore", label: "Spore" }), /configurationAttributes/);
  assert.throws(() => parseDebuggerSpec([]), /not an object/);
  assert.throws(() => parseDebuggerSpec({ type: 1, label: "Spore" }), /"type"/);
  assert.throws(() => parseDebuggerSpec(null), /not an object/);
});

test("Debug Current File launches the JSON's initial configuration with the file as program", () => {
  const initial = spec().initialConfigurations[0];
  assert.deepEqual(currentFileConfiguration("/ws/train.py"), { ...initial, program: "/ws/train.py" });
});

test("F5 without launch.json debugs the active Python file, or asks for one", () => {
  assert.deepEqual(resolveLaunch({}, "/ws/a.py"), currentFileConfiguration("/ws/a.py"));
  assert.equal(resolveLaunch({}, undefined), undefined);
  assert.deepEqual(resolveLaunch({ type: "spore", request: "launch", name: "x" }, "/ws/a.py"),
                   { type: "spore", request: "launch", name: "x", program: "/ws/a.py" });
  const module = { type: "spore", request: "launch", name: "m", module: "pkg.train" };
  assert.deepEqual(resolveLaunch(module, "/ws/a.py"), module);
  const attach = { type: "spore", request: "attach", name: "a", connect: { port: 5678 } };
  assert.deepEqual(resolveLaunch(attach, undefined), attach);
});

test("the server and adapter run as modules of the chosen interpreter", () => {
  assert.deepEqual(languageServerCommand("/ws/.venv/bin/python", ["--log-file", "/tmp/l"]),
                   { command: "/ws/.venv/bin/python", args: ["-m", "spore_lsp", "--log-file", "/tmp/l"] });
  assert.deepEqual(debugAdapterCommand("python3"), { command: "python3", args: ["-m", "spore_debug"] });
});
