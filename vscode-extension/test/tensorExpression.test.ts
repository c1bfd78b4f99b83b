import { strict as assert } from "node:assert";
import { execFileSync } from "node:child_process";
import { test } from "node:test";
import {
  bundleFromDapResult, bundleFromEvaluate, debuggeeExpression, explainDapError, expressionAt, expressionFromArgument, expressionProblem,
  isTensorDebugType, pickExpression, unquotePython,
} from "../src/tensorView/expression";
import { TENSOR_MIME } from "../src/tensorView/model";
import { kernelBundles, repo, venvPython } from "./tensorKernelBundles";

/** `expressionAt` with the cursor at the "|" in `marked`. */
const at = (marked: string): string | undefined => expressionAt(marked.replace("|", ""), marked.indexOf("|"));

test("the name chain up to the identifier under the cursor", () => {
  assert.equal(at("y = net.fc1.wei|ght + b"), "net.fc1.weight");
  assert.equal(at("y = net.f|c1.weight + b"), "net.fc1");
  assert.equal(at("y = |net.fc1.weight"), "net");
  assert.equal(at("y = net.fc1.weight| + b"), "net.fc1.weight"); // just after the name
  assert.equal(at("print(xs[0].gr|ad)"), "xs[0].grad");
  assert.equal(at("print(grads[1][0].sh|ape)"), "grads[1][0].shape");
  assert.equal(at("x = tensör|"), "tensör");
});

test("no expression on keywords, numbers, operators or blank space", () => {
  for (const m of ["|def f(x):", "y = 12|3", "y = a |+ b", "|", "x = (1).re|al"]) {
    assert.equal(at(m), m === "x = (1).re|al" ? "real" : undefined, m);
  }
});

test("the selection wins over the cursor, and bad expressions are named", () => {
  assert.equal(pickExpression("  w[0]  ", "w[0] + v", 6), "w[0]");
  assert.equal(pickExpression("", "w + v", 4), "v");
  assert.equal(expressionProblem(""), "the expression is empty");
  assert.match(expressionProblem("a +\nb") ?? "", /single-line/);
  assert.match(expressionProblem("x".repeat(501)) ?? "", /longer than 500/);
  assert.equal(expressionProblem("net.fc1.weight"), undefined);
});

test("the debuggee expression goes through spore_kernel.tensor_view.json_text only", () => {
  assert.equal(debuggeeExpression(" w + 1 "), "__import__('spore_kernel.tensor_view').tensor_view.json_text((w + 1))");
});

test("Python string reprs decode exactly as Python wrote them", () => {
  const samples = ["plain", "it's", 'say "hi"', "both ' and \"", "back\\slash", "tab\tnew\nline", "ü∈ nonascii", "\u0001ctl", "🙂"];
  const out = execFileSync(venvPython(), ["-c", "import json,sys\nfor s in json.load(sys.stdin): print(repr(s))"],
    { input: JSON.stringify(samples), encoding: "utf8" });
  const reprs = out.split("\n").slice(0, samples.length);
  assert.deepEqual(reprs.map(unquotePython), samples);
  assert.equal(unquotePython('{"a": 1}'), '{"a": 1}'); // not a literal: unchanged
});

test("a DAP result of json_text becomes the bundle; a broken one is named", () => {
  const code = [
    "import numpy as np, spore as ms",
    "from spore_kernel.tensor_view import json_text",
    "print(repr(json_text(ms.Parameter(ms.Tensor(np.ones((2, 3), np.float32)), name=\"it's <w>\"))))",
  ].join("\n");
  const result = execFileSync(venvPython(), ["-c", code], {
    encoding: "utf8", env: { ...process.env, PYTHONPATH: `${repo}/kernel:${repo}/engine`, OMP_NUM_THREADS: "1" },
  }).trim();
  const parsed = bundleFromDapResult("w", result);
  assert.ok(parsed.ok, parsed.ok ? "" : parsed.error);
  assert.equal(parsed.value.name, "it's <w>");
  assert.deepEqual(parsed.value.stats.shape, [2, 3]);
  // what debugpy really answers (tests/kernel/test_tensor_dap.py) when the expression raised
  const raised = bundleFromDapResult("n", "TypeError('json_text: expected a Spore Tensor or Parameter, got builtins.int')", "TypeError");
  assert.deepEqual(raised, { ok: false, error: "n is a builtins.int, not a Spore Tensor or Parameter" });
  assert.ok(bundleFromDapResult("w", result, "str").ok);
  const broken = bundleFromDapResult("w", "'{\"schema\": '");
  assert.equal(broken.ok, false);
  assert.match(broken.ok ? "" : broken.error, /^w: the debuggee did not return tensor JSON/);
});

test("DAP errors are said plainly", () => {
  assert.equal(explainDapError("x", "TypeError: json_text: expected a Spore Tensor or Parameter, got builtins.int"),
    "x is a builtins.int, not a Spore Tensor or Parameter");
  assert.match(explainDapError("x", "ModuleNotFoundError: No module named 'spore_kernel'"), /cannot import spore_kernel/);
  assert.equal(explainDapError("x", "NameError: name 'x' is not defined"), "x: NameError: name 'x' is not defined");
});

test("a kernel reply gives the bundle, or says why there is none", () => {
  const ok = bundleFromEvaluate("t", { ok: true, data: { "text/plain": "Tensor[2, 3]", [TENSOR_MIME]: kernelBundles().matrix_nan } });
  assert.ok(ok.ok);
  const notTensor = bundleFromEvaluate("n", { ok: true, data: { "text/plain": "3" } });
  assert.deepEqual(notTensor, { ok: false, error: "n is not a Spore Tensor or Parameter (its value: 3)" });
  const failed = bundleFromEvaluate("q", { ok: false, error: "NameError: name 'q' is not defined" });
  assert.deepEqual(failed, { ok: false, error: "q: NameError: name 'q' is not defined" });
});

test("command arguments: a string, or the Variables view's variable", () => {
  assert.equal(expressionFromArgument(" w "), "w");
  assert.equal(expressionFromArgument({ variable: { name: "weight", evaluateName: "net.fc1.weight" } }), "net.fc1.weight");
  assert.equal(expressionFromArgument({ variable: { name: "w" } }), "w");
  assert.equal(expressionFromArgument({ variable: { name: "[0:100]" } }), undefined);
  assert.equal(expressionFromArgument(undefined), undefined);
  assert.deepEqual(["spore", "debugpy", "python", "node", undefined].map(isTensorDebugType), [true, true, true, false, false]);
});
