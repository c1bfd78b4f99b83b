import { strict as assert } from "node:assert";
import { test } from "node:test";
import { graphExpression, listExpression, parseVariables } from "../src/graphView/kernelExpr";

// tests/kernel/test_magics.py evaluates these very expressions in a real kernel
const HELPERS = '__import__("spore_kernel.graphview", fromlist=["graphview"])';

test("the kernel expressions Show Graph sends in a notebook", () => {
  assert.equal(listExpression("Net"), `${HELPERS}.cell_variables("Net")`);
  assert.equal(listExpression(undefined), `${HELPERS}.cell_variables(None)`);
  assert.equal(graphExpression("net", "x, y"), `${HELPERS}.graph_display(net, (x, y))`);
});

test("names that are not identifiers never reach the kernel", () => {
  assert.throws(() => listExpression('Net"); import os; ("'), /not a class name/);
  assert.throws(() => graphExpression("net; import os", "x"), /not a variable name/);
  assert.throws(() => graphExpression("net", "x\nimport os"), /one line/);
});

test("the kernel's listing is parsed defensively", () => {
  assert.deepEqual(parseVariables({ "application/json": [{ name: "net", class: "Net" }, { name: "a b", class: "X" }, 3, null] }),
                   [{ name: "net", class: "Net" }]);
  assert.deepEqual(parseVariables({ "text/plain": "[]" }), []);
  assert.deepEqual(parseVariables(undefined), []);
});
