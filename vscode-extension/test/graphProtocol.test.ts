import { strict as assert } from "node:assert";
import { test } from "node:test";
import { filesForCell, parseFromWebview, parseReveal, parseToWebview, viewOf } from "../src/graphViewer/protocol";

const view = { kind: "spore.view/1", name: "Net.construct", items: [["graph", "g", -1, "", 1, 1, 0, "", "", 0]],
               details: { "3": { id: "n0", loc: { file: "/tmp/ipykernel_1/a.py", line: 4, col: 2, cell: 7 } },
                          "4": { id: "n1", loc: { file: "/tmp/ipykernel_1/b.py", line: 1, col: 0, cell: 8 } },
                          "5": { id: "n2", loc: null } } };

test("viewOf takes a payload itself or the kernel's graph mime data with the payload under view", () => {
  assert.deepEqual(viewOf(view), { view });
  assert.deepEqual(viewOf({ schema: "spore.graph/1", nodes: [], view }), { view });
});

test("viewOf names what is missing instead of mounting garbage", () => {
  assert.match((viewOf({ schema: "spore.graph/1", nodes: [] }) as { error: string }).error, /lacks spore_viz/);
  assert.match((viewOf([1, 2]) as { error: string }).error, /not a JSON object/);
  assert.match((viewOf({ hello: 1 }) as { error: string }).error, /expected a spore.graph\/1 graph/);
  assert.match((viewOf({ view: { ...view, kind: "<b>x</b>" } }) as { error: string }).error, /unknown viewer payload kind/);
  assert.match((viewOf({ view: { ...view, items: "x" } }) as { error: string }).error, /no items/);
});

test("parseReveal keeps a well-formed reveal and drops anything else", () => {
  assert.deepEqual(parseReveal({ type: "reveal", file: "/a/b.py", line: 3, col: 4 }), { type: "reveal", file: "/a/b.py", line: 3, col: 4 });
  assert.deepEqual(parseReveal({ type: "reveal", file: "/a/b.py", line: 3, col: "x", cellId: 2 }),
                   { type: "reveal", file: "/a/b.py", line: 3, col: 0, cellId: 2 });
  for (const bad of [
    null, "reveal", { type: "open", file: "/a", line: 1 }, { type: "reveal", file: "", line: 1 },
    { type: "reveal", file: "/a", line: 0 }, { type: "reveal", file: "/a", line: 1.5 }, { type: "reveal", file: "/a", line: "3" },
    { type: "reveal", file: "/a\0b", line: 1 }, { type: "reveal", file: 5, line: 1 }, { type: "reveal", file: "/a", line: 1, cellId: -1 },
    { type: "reveal", file: "x".repeat(5000), line: 1 },
  ]) {
    assert.equal(parseReveal(bad), undefined, JSON.stringify(bad)?.slice(0, 80));
  }
});

test("messages between the panel and the extension are validated both ways", () => {
  assert.deepEqual(parseFromWebview({ type: "ready" }), { type: "ready" });
  assert.deepEqual(parseFromWebview({ type: "error", text: "bad" }), { type: "error", text: "bad" });
  assert.equal(parseFromWebview({ type: "run", code: "rm -rf /" }), undefined);
  assert.deepEqual(parseToWebview({ type: "highlight", file: "/a.py", lines: [3, "4", -1, 5] }),
                   { type: "highlight", file: "/a.py", cellId: undefined, lines: [3, 5] });
  assert.deepEqual(parseToWebview({ type: "show", view }), { type: "show", view, hash: undefined });
  assert.equal(parseToWebview({ type: "show", view: "x" }), undefined);
});

test("filesForCell finds IPython's file of a cell from the locs tagged with it", () => {
  assert.deepEqual(filesForCell(view, 7), ["/tmp/ipykernel_1/a.py"]);
  assert.deepEqual(filesForCell(view, 9), []);
});
