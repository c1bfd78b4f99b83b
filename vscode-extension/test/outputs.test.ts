import { strict as assert } from "node:assert";
import { test } from "node:test";
import {
  applyCarriageReturns, bundleItems, CellOutputs, DisplayRegistry, ERROR_MIME, orderMimes, OutputOp, STDERR_MIME, STDOUT_MIME,
} from "../src/notebook/outputs";

const decode = (b: Uint8Array) => new TextDecoder().decode(b);

function model(displays = new DisplayRegistry()): { cell: CellOutputs; displays: DisplayRegistry } {
  let n = 0;
  return { cell: new CellOutputs(() => `k${++n}`, displays), displays };
}

/** Ops as short readable strings: "append k1 stdout:'a'", "appendItems k1 'b'", "replace k2 ...", "clear". */
function show(ops: OutputOp[]): string[] {
  return ops.map((op) => {
    if (op.op === "clear") return "clear";
    const items = op.op === "append" ? op.output.items : op.items;
    const key = op.op === "append" ? op.output.key : op.key;
    return `${op.op} ${key} ${items.map((i) => `${i.mime}=${JSON.stringify(decode(i.data))}`).join(" ")}`;
  });
}

test("consecutive stream chunks of one name grow one output; another name or output starts a new one", () => {
  const { cell } = model();
  const ops = [
    ...cell.apply("stream", { name: "stdout", text: "a\n" }),
    ...cell.apply("stream", { name: "stdout", text: "b\n" }),
    ...cell.apply("stream", { name: "stderr", text: "warn\n" }),
    ...cell.apply("stream", { name: "stdout", text: "c\n" }),
    ...cell.apply("execute_result", { data: { "text/plain": "1" }, metadata: {}, execution_count: 3 }),
    ...cell.apply("stream", { name: "stdout", text: "d\n" }),
  ];
  assert.deepEqual(show(ops), [
    `append k1 ${STDOUT_MIME}="a\\n"`,
    `appendItems k1 ${STDOUT_MIME}="b\\n"`,
    `append k2 ${STDERR_MIME}="warn\\n"`,
    `append k3 ${STDOUT_MIME}="c\\n"`,
    `append k4 text/plain="1"`,
    `append k5 ${STDOUT_MIME}="d\\n"`,
  ]);
  const result = ops[4];
  assert.ok(result.op === "append");
  assert.deepEqual(result.output.metadata, { outputType: "execute_result", metadata: {}, executionCount: 3 });
});

test("a stream that carries a carriage return is rewritten as a whole (progress bars)", () => {
  const { cell } = model();
  cell.apply("stream", { name: "stdout", text: "start\n" });
  const ops = [
    ...cell.apply("stream", { name: "stdout", text: "10%" }),
    ...cell.apply("stream", { name: "stdout", text: "\r50%" }),
    ...cell.apply("stream", { name: "stdout", text: "\r100%\n" }),
  ];
  assert.deepEqual(show(ops), [
    `appendItems k1 ${STDOUT_MIME}="10%"`,
    `replaceItems k1 ${STDOUT_MIME}="start\\n50%"`,
    `replaceItems k1 ${STDOUT_MIME}="start\\n100%\\n"`,
  ]);
  assert.equal(applyCarriageReturns("abcdef\rXY\rZ"), "ZYcdef");
});

test("a bundle gives one item per mime type, richest first, PNG decoded from base64, JSON mimes as JSON", () => {
  const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);
  const items = bundleItems({
    "text/plain": ["Tensor[2] ", "float32"],
    "image/png": png.toString("base64") + "\n",
    "text/html": "<b>t</b>",
    "application/vnd.spore.tensor+json": { schema: "spore.tensor/1", shape: [2] },
    "image/svg+xml": "<svg/>",
    "text/markdown": "**t**",
    "application/json": { a: 1 },
  });
  assert.deepEqual(items.map((i) => i.mime), ["application/vnd.spore.tensor+json", "text/html", "image/svg+xml",
    "image/png", "text/markdown", "application/json", "text/plain"]);
  const byMime = Object.fromEntries(items.map((i) => [i.mime, i.data]));
  assert.deepEqual(Buffer.from(byMime["image/png"]), png);
  assert.deepEqual(JSON.parse(decode(byMime["application/vnd.spore.tensor+json"])), { schema: "spore.tensor/1", shape: [2] });
  assert.deepEqual(JSON.parse(decode(byMime["application/json"])), { a: 1 });
  assert.equal(decode(byMime["text/plain"]), "Tensor[2] float32");
  assert.equal(decode(byMime["image/svg+xml"]), "<svg/>");
  assert.deepEqual(orderMimes(["text/plain", "application/x-unknown", "image/png"]), ["image/png", "application/x-unknown", "text/plain"]);
});

test("an error becomes VS Code's error item with the traceback (ANSI kept) as the stack", () => {
  const { cell } = model();
  cell.apply("stream", { name: "stdout", text: "before\n" });
  const ops = cell.apply("error", { ename: "ZeroDivisionError", evalue: "division by zero",
    traceback: ["\u001b[31mTraceback\u001b[0m", "----> 1 1/0", "ZeroDivisionError: division by zero"] });
  assert.equal(ops.length, 1);
  const op = ops[0];
  assert.ok(op.op === "append");
  assert.equal(op.output.items[0].mime, ERROR_MIME);
  assert.deepEqual(JSON.parse(decode(op.output.items[0].data)), {
    name: "ZeroDivisionError", message: "division by zero",
    stack: "\u001b[31mTraceback\u001b[0m\n----> 1 1/0\nZeroDivisionError: division by zero",
  });
  assert.deepEqual(op.output.metadata, { outputType: "error" });
  // output after the error is a new stream output, not appended to the one before it
  assert.equal(show(cell.apply("stream", { name: "stdout", text: "after\n" }))[0].split(" ")[0], "append");
});

test("update_display_data replaces every output that showed the display id, in any cell", () => {
  const displays = new DisplayRegistry();
  const first = model(displays).cell;
  let n = 100;
  const second = new CellOutputs(() => `m${++n}`, displays);
  first.apply("display_data", { data: { "text/plain": "0%" }, metadata: {}, transient: { display_id: "bar" } });
  first.apply("display_data", { data: { "text/plain": "other" }, metadata: {}, transient: { display_id: "x" } });
  second.apply("display_data", { data: { "text/plain": "0% again" }, metadata: {}, transient: { display_id: "bar" } });
  const ops = second.apply("update_display_data", { data: { "text/plain": "100%" }, metadata: {}, transient: { display_id: "bar" } });
  assert.deepEqual(show(ops), ['replaceItems k1 text/plain="100%"', 'replaceItems m101 text/plain="100%"']);
  assert.deepEqual(second.apply("update_display_data", { data: { "text/plain": "?" }, transient: { display_id: "nope" } }), []);
  const shown = first.apply("display_data", { data: { "text/plain": "y" }, metadata: { isolated: true }, transient: { display_id: "y" } });
  assert.ok(shown[0].op === "append");
  assert.deepEqual(shown[0].output.metadata, { outputType: "display_data", metadata: { isolated: true }, transient: { display_id: "y" } });
});

test("clear_output clears now; with wait it clears just before the next output; cleared displays get no updates", () => {
  const { cell } = model();
  cell.apply("display_data", { data: { "text/plain": "p" }, transient: { display_id: "d" } });
  assert.deepEqual(show(cell.apply("clear_output", { wait: false })), ["clear"]);
  assert.deepEqual(cell.apply("update_display_data", { data: { "text/plain": "q" }, transient: { display_id: "d" } }), []);
  cell.apply("stream", { name: "stdout", text: "step 1\n" });
  assert.deepEqual(cell.apply("clear_output", { wait: true }), []);
  assert.deepEqual(show(cell.apply("stream", { name: "stdout", text: "step 2\n" })), ["clear", `append k3 ${STDOUT_MIME}="step 2\\n"`]);
  assert.deepEqual(show(cell.apply("stream", { name: "stdout", text: "more\n" })), [`appendItems k3 ${STDOUT_MIME}="more\\n"`]);
  assert.deepEqual(cell.apply("status", { execution_state: "idle" }), []);
});
