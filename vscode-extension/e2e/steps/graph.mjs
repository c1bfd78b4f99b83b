// "Spore: Show Graph" on a .py file with the cursor in a construct: a webview "Spore Graph: ..." whose
// nodes carry data-node-id, and a click on a node with data-line moves the editor to that line.
import { cursorPosition, expect, frameWith, gotoLine, openFile, runCommand } from "../lib/ui.mjs";
import { until } from "../lib/wait.mjs";
import { GRAPH_PY, lineOf } from "../lib/workspace.mjs";

/** The nodes of a graph view in `frame`: [{id, line}] (line is undefined without data-line). */
export async function graphNodes(frame, rootSelector = "body") {
  return frame.evaluate((root) => [...document.querySelectorAll(`${root} [data-node-id]`)].map((el) => ({
    id: el.getAttribute("data-node-id"),
    line: el.hasAttribute("data-line") ? Number(el.getAttribute("data-line")) : undefined,
  })), rootSelector);
}

/** A node with a line in `lines` but not on `avoid` (the cursor's line, so the move is visible). */
export function pickNode(nodes, lines, avoid) {
  return nodes.find((n) => n.line !== undefined && n.line !== avoid && lines.includes(n.line));
}

/** Step: Show Graph opens the panel; clicking a node reveals its line. */
export async function showGraph({ page, log }) {
  await openFile(page, "graph_net.py");
  const cursorLine = lineOf(GRAPH_PY, "# CURSOR");
  await gotoLine(page, cursorLine);
  await runCommand(page, "Spore: Show Graph");
  const tab = page.locator('.tabs-container .tab[aria-label^="Spore Graph: "]').first();
  await tab.waitFor({ timeout: 120_000 }).catch(async (err) => {
    const toasts = await page.locator(".notifications-toasts .notification-list-item-message").allInnerTexts();
    throw new Error(`no "Spore Graph: ..." tab opened (notifications: ${toasts.join(" | ") || "none"}): ${err.message.split("\n")[0]}`);
  });
  log(`panel: ${await tab.getAttribute("aria-label")}`);
  const frame = await frameWith(page, "[data-node-id]", "a webview frame with [data-node-id] elements", 120_000);
  const nodes = await graphNodes(frame);
  const constructLines = [cursorLine, lineOf(GRAPH_PY, "# SECOND")];
  log(`graph nodes: ${nodes.length}, with data-line: ${nodes.filter((n) => n.line !== undefined).map((n) => `${n.id}@${n.line}`).join(" ")}`);
  const node = pickNode(nodes, constructLines.slice(1), cursorLine);
  expect(node, `no graph node has data-line on construct line ${constructLines[1]} (nodes: ${JSON.stringify(nodes.slice(0, 20))})`);
  await frame.locator(`[data-node-id="${node.id}"]`).first().click();
  await until(`the editor cursor on line ${node.line} after clicking node ${node.id}`,
    async () => (await cursorPosition(page))?.line === node.line, 30_000);
  log(`clicked node ${node.id}: the editor is at ${(await cursorPosition(page)).text}`);
}
