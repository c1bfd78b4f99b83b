// A notebook on the Spore controller: pick "Spore" in the kernel picker, run all cells, see the
// tensor renderer and the graph renderer, and a clicked graph node reveals its line in the cell.
import { clickInNotebookOutput, dismiss, expect, frameWith, notebookCellCursor, openFile, runCommand } from "../lib/ui.mjs";
import { UI_TIMEOUT, until } from "../lib/wait.mjs";
import { NOTEBOOK_CELLS, NOTEBOOK_NET_CELL } from "../lib/workspace.mjs";
import { graphNodes } from "./graph.mjs";

const ROWS = ".quick-input-widget .quick-input-list .monaco-list-row";

/**
 * Pick the "Spore" controller in the kernel picker (directly, or behind "Select Another Kernel...").
 * The picker is driven by keyboard: filter by typing, Enter on the focused row (a row's hover can
 * cover the row itself, so a click is not reliable there).
 */
async function pickSporeKernel(page) {
  // the kernel picker replaces the palette (which therefore never closes): wait for the picker's own rows
  await runCommand(page, "Notebook: Select Notebook Kernel", { opensPicker: true });
  const focusedSpore = page.locator(`${ROWS}.focused`).filter({ has: page.locator(".label-name", { hasText: /^Spore$/ }) }).first();
  const another = page.locator(ROWS).filter({ hasText: "Select Another Kernel" }).first();
  const spore = page.locator(ROWS).filter({ has: page.locator(".label-name", { hasText: /^Spore$/ }) }).first();
  // type only once the picker is up: in a notebook's command mode, letters are cell commands
  await until("the kernel picker's rows (Spore, or Select Another Kernel...)", async () =>
    (await spore.isVisible().catch(() => false)) || (await another.isVisible().catch(() => false)), UI_TIMEOUT);
  await page.keyboard.type("Spore");
  await until("the kernel picker to offer Spore", async () => {
    if (await focusedSpore.isVisible().catch(() => false)) return true;
    if (await another.isVisible().catch(() => false)) {
      await page.keyboard.press("Enter");
      await page.locator(ROWS).filter({ hasText: "Select Another Kernel" }).first().waitFor({ state: "detached", timeout: UI_TIMEOUT });
      await page.keyboard.type("Spore");
    }
    return false;
  }, UI_TIMEOUT).catch(async (err) => {
    const rows = await page.locator(ROWS).allInnerTexts();
    throw new Error(`${err.message} (picker rows: ${rows.map((r) => r.replace(/\n/g, " ")).join(" | ") || "none"})`);
  });
  await page.keyboard.press("Enter");
  await page.locator(".kernel-label", { hasText: "Spore" }).first().waitFor({ timeout: UI_TIMEOUT });
}

/** The text of every output frame, for a failure message that says what the cells printed. */
async function outputsText(page) {
  const texts = [];
  for (const frame of page.frames()) {
    const t = await frame.locator(".output, .output_container, #container").allInnerTexts().catch(() => []);
    texts.push(...t.map((s) => s.trim()).filter(Boolean));
  }
  const errors = await page.locator(".notebook-editor .output-plaintext, .notebook-editor .cell-output-toolbar").allInnerTexts().catch(() => []);
  return [...texts, ...errors].join(" || ").slice(0, 1500);
}

/**
 * Scroll the notebook so the tensor summary and the graph view's first 150 px are both inside the cell list, for the
 * README screenshot (after Run All the list follows the running cell, and the graph output can sit
 * below the fold). Waits on the two elements' on-screen boxes, not on time.
 */
async function showBothOutputs(page, tensor, graph) {
  const view = await page.locator(".notebook-editor .cell-list-container").first().boundingBox();
  expect(view, "no notebook cell list on screen");
  await until("the tensor summary and the graph view's top both in the notebook's view", async () => {
    const [t, box] = [await tensor.boundingBox(), await graph.boundingBox()];
    if (!t || !box) return false;
    const g = { y: box.y, height: Math.min(box.height, 150) };
    const top = view.y + 10;
    const bottom = view.y + view.height - 10;
    if (t.y >= top && g.y + g.height <= bottom) return true;
    await page.mouse.move(view.x + view.width / 2, view.y + view.height / 2);
    // down while the graph is below the fold and the summary has room above; up if the summary is off
    const dy = t.y < top ? t.y - top - 20 : Math.min(g.y + g.height - bottom + 20, t.y - top);
    if (dy === 0) throw new Error(`the two outputs are ${Math.round(g.y + g.height - t.y)} px apart, more than the view`);
    await page.mouse.wheel(0, Math.max(-400, Math.min(400, dy)));
    return false;
  }, UI_TIMEOUT, 200);
}

/** Step: the notebook runs on Spore; tensor and graph renderers; node click reveals the cell line. */
export async function notebook({ page, log, shot }) {
  await openFile(page, "tensors.ipynb");
  await page.locator(".notebook-editor .cell-list-container .view-lines", { hasText: "import numpy" }).first().waitFor({ timeout: UI_TIMEOUT });
  const tPick = Date.now();
  await pickSporeKernel(page);
  log(`kernel picked in ${((Date.now() - tPick) / 1000).toFixed(1)} s`);
  log(`kernel: ${(await page.locator(".kernel-label").first().innerText()).trim()}`);
  const t0 = Date.now();
  await runCommand(page, "Notebook: Run All");
  const wait = async (selector, what) => frameWith(page, selector, what, 180_000).catch(async (err) => {
    throw new Error(`${err.message}; outputs so far: ${await outputsText(page) || "none"}`);
  });
  const tensorFrame = await wait(".spore-tensor-view .spore-tensor-summary", "the tensor renderer (.spore-tensor-view .spore-tensor-summary)");
  const summary = await tensorFrame.locator(".spore-tensor-view .spore-tensor-summary").first().innerText();
  log(`tensor renderer ${((Date.now() - t0) / 1000).toFixed(1)} s after Run All: ${summary.replace(/\n/g, " ").slice(0, 160)}`);
  expect(/3\s*[x×,]\s*4/.test(summary) || summary.includes("(3, 4)"), `the tensor summary does not show the shape 3x4: ${JSON.stringify(summary)}`);
  const graphFrame = await wait(".spore-graph-view [data-node-id]", "the graph renderer (.spore-graph-view [data-node-id])");
  const nodes = await graphNodes(graphFrame, ".spore-graph-view");
  const cellLines = NOTEBOOK_CELLS[NOTEBOOK_NET_CELL].split("\n");
  const opLines = cellLines.map((l, i) => (/ops\.relu|y \* 2\.0/.test(l) ? i + 1 : 0)).filter(Boolean);
  log(`graph renderer nodes: ${nodes.length}, with data-line: ${nodes.filter((n) => n.line !== undefined).map((n) => `${n.id}@${n.line}`).join(" ")}`);
  const node = nodes.find((n) => n.line !== undefined && opLines.includes(n.line));
  expect(node, `no graph node has data-line on the construct's lines ${opLines} of cell ${NOTEBOOK_NET_CELL + 1} (nodes: ${JSON.stringify(nodes.slice(0, 20))})`);
  await showBothOutputs(page, tensorFrame.locator(".spore-tensor-view .spore-tensor-summary").first(),
    graphFrame.locator(".spore-graph-view").first());
  await shot("outputs");
  await dismiss(page);
  await clickInNotebookOutput(page, graphFrame.locator(`.spore-graph-view [data-node-id="${node.id}"]`).first());
  let where;
  await until(`cell ${NOTEBOOK_NET_CELL + 1} focused with its cursor on line ${node.line} after clicking node ${node.id}`, async () => {
    where = await notebookCellCursor(page, "class Small");
    return where?.rowFocused && where.line === node.line;
  }, 30_000).catch((err) => {
    throw new Error(`${err.message} (cell ${NOTEBOOK_NET_CELL + 1}: ${JSON.stringify(where)})`);
  });
  log(`clicked node ${node.id}: cell ${NOTEBOOK_NET_CELL + 1} focused (editor focused: ${where.editorFocused}), cursor on line ${where.line}`);
}
