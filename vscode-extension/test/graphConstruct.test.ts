import { strict as assert } from "node:assert";
import { test } from "node:test";
import { constructAt } from "../src/graphView/construct";

// the same program tests/visualizer/test_capture.py runs (1-based lines there, 0-based here)
const SRC = `import numpy as np
import spore as ms
from spore import nn


class Block(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(4, 4)

    def construct(self, x):
        return ms.ops.relu(self.fc(x))  # line 12


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.b = Block()
        self.out = nn.Dense(4, 2)

    def construct(self, x):
        h = self.b(x)  # line 22

        # a comment and a blank line inside the body
        return self.out(h)


@ms.jit
def step(a, b):
    def inner(c):
        return c * 2
    return inner(a) * b + a


x = 1
`;

test("a line in a Cell's construct names that class and the construct's span", () => {
  assert.deepEqual(constructAt(SRC, 11), { kind: "cell", name: "Block", start: 10, end: 11 });
  assert.deepEqual(constructAt(SRC, 21), { kind: "cell", name: "Net", start: 20, end: 24 });
  assert.deepEqual(constructAt(SRC, 23), { kind: "cell", name: "Net", start: 20, end: 24 }); // comment line inside
});

test("a jit function counts from its decorator; a nested def is the innermost function", () => {
  assert.deepEqual(constructAt(SRC, 27), { kind: "function", name: "step", start: 27, end: 31 });
  assert.deepEqual(constructAt(SRC, 31), { kind: "function", name: "step", start: 27, end: 31 });
  assert.deepEqual(constructAt(SRC, 30), { kind: "function", name: "inner", start: 29, end: 30 });
});

test("outside any construct or function (module code, __init__, blank lines between) there is none", () => {
  for (const line of [0, 4, 7, 12, 34]) assert.equal(constructAt(SRC, line), undefined, `line ${line}`);
});

test("tabs, async defs and a class header with no bases", () => {
  const src = "class A:\n\tdef construct(self, x):\n\t\treturn x\n\nasync def f():\n    pass\n";
  assert.deepEqual(constructAt(src, 2), { kind: "cell", name: "A", start: 1, end: 2 });
  assert.deepEqual(constructAt(src, 5), { kind: "function", name: "f", start: 4, end: 5 });
});
