// The language client: spore-lsp's diagnostic on a `try` in a GRAPH_MODE construct (squiggle on that
// line, hover text), the Spore commands in the palette, restart on request and after a crash.
import { decoratedLines, dismiss, expect, openFile, paletteRows, runCommand, statusItem } from "../lib/ui.mjs";
import { UI_TIMEOUT, until } from "../lib/wait.mjs";
import { LSP_PY, lineOf } from "../lib/workspace.mjs";

const SQUIGGLE = '[class*="squiggly-"]';

/** Step: squiggle on the `try` line and its hover. */
export async function lspSquiggleHover({ page, log }) {
  const t0 = Date.now();
  await openFile(page, "model.py");
  const squiggle = page.locator(`.editor-group-container.active .monaco-editor ${SQUIGGLE}`).first();
  await squiggle.waitFor({ timeout: 120_000 });
  log(`squiggle (${await squiggle.getAttribute("class")}) ${((Date.now() - t0) / 1000).toFixed(1)} s after opening the file`);
  const tryLine = lineOf(LSP_PY, "# TRY");
  const lines = await decoratedLines(page, SQUIGGLE);
  expect(lines.includes(tryLine), `squiggle expected on line ${tryLine} (the try), found on lines [${lines}]`);
  const box = await squiggle.boundingBox();
  await page.mouse.move(box.x + Math.min(box.width / 2, 20), box.y + box.height / 2);
  const hover = page.locator(".monaco-hover-content").filter({ hasText: "try/except" }).first();
  await hover.waitFor({ timeout: UI_TIMEOUT });
  log(`hover: ${(await hover.innerText()).split("\n")[0].slice(0, 160)}`);
}

/** Step: the palette lists the Spore commands; Restart starts a new server; a killed one restarts with a message. */
export async function lspRestartAndCrash({ page, h, log }) {
  await openFile(page, "model.py"); // "Debug Current File" is in the palette for a Python editor only
  // the palette's list is virtual (only visible rows exist), so ask for two commands that sort first
  const rows = await paletteRows(page, "Spore: ", ["Restart Language Server", "Debug Current File"]);
  log(`palette: ${rows.join(" | ")}`);
  await runCommand(page, "Spore: Restart Language Server");
  const channel = () => h.channelLog("Spore Language Server");
  await until("'restart requested: starting' in the Spore Language Server channel", () => /restart requested: starting /.test(channel()), 60_000);
  log("restart: the output channel shows a new server start");
  // Kill it only once it has answered initialize: a server that dies during initialize is a failed
  // start (no restart, by design), and killing it then was this step's race (the toast never came).
  await until("'restart requested: the language server is ready' in the Spore Language Server channel",
    () => /restart requested: the language server is ready/.test(channel()), 60_000);

  // Crash: kill this run's spore_lsp (its argv names this run's temp folder) and expect the visible
  // warning and a new server process.
  const servers = () => h.runPids(" -m spore_lsp");
  await until("exactly one spore_lsp process after the restart", () => servers().length === 1, 60_000);
  const [pid] = servers();
  process.kill(pid, "SIGKILL");
  const toast = page.locator(".notifications-toasts").filter({ hasText: "stopped unexpectedly" }).first();
  await toast.waitFor({ timeout: UI_TIMEOUT });
  log(`crash: toast says: ${await toast.locator(".notification-list-item-message").first().innerText()}`);
  await until("a new spore_lsp process after the crash", () => servers().length === 1 && servers()[0] !== pid, 60_000);
  // The client restarts the crashed server itself; the extension says when it answered initialize
  // (and tells its features, which re-ask it: the mode item of the next step).
  await until("'after the crash: the language server is ready' in the Spore Language Server channel",
    () => /after the crash: the language server is ready/.test(channel()), 60_000);
  log("crash: the output channel shows the restarted server ready");
  // With no cursor move, the mode item must come back by itself: its first question to the new server
  // can come before the client re-sent model.py's didOpen ("not open"), so it asks again after it.
  const item = statusItem(page, "spore.mode");
  await item.filter({ hasText: "GRAPH_MODE" }).waitFor({ timeout: UI_TIMEOUT }).catch(async (err) => {
    const tip = await item.locator("a").first().getAttribute("aria-label").catch(() => null);
    throw new Error(`after the crash the mode item shows "${(await item.innerText().catch(() => "")).trim()}" (${tip}), not GRAPH_MODE: ${err.message.split("\n")[0]}`);
  });
  log(`crash: the mode item is back: "${(await item.innerText()).trim()}"`);
  await dismiss(page);
}
