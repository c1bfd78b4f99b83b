// The mode status bar item (id `spore.mode`): it shows the file's mode and a click switches it,
// editing the file's set_context line.
import fs from "node:fs";
import path from "node:path";
import { editorText, expect, gotoLine, openFile, runCommand, statusItem } from "../lib/ui.mjs";
import { UI_TIMEOUT, until } from "../lib/wait.mjs";
import { MODE_PY, lineOf } from "../lib/workspace.mjs";

/** Step: GRAPH_MODE shown; click -> PYNATIVE_MODE shown and the set_context line says PYNATIVE_MODE. */
export async function modeStatusBar({ page, h, log }) {
  await openFile(page, "mode_switch.py");
  await gotoLine(page, lineOf(MODE_PY, "# BODY"));
  const item = statusItem(page, "spore.mode");
  await item.filter({ hasText: "GRAPH_MODE" }).waitFor({ timeout: 120_000 }).catch(async (err) => {
    const texts = await page.locator(".statusbar-item").allInnerTexts();
    throw new Error(`no status bar item spore.mode showing GRAPH_MODE (status bar: ${texts.filter(Boolean).join(" | ")}): ${err.message.split("\n")[0]}`);
  });
  log(`status bar before: "${(await item.innerText()).trim()}" (tooltip: ${await item.locator("a").first().getAttribute("aria-label")})`);
  await item.locator(".statusbar-item-label").first().click();
  // A confirmation quick pick is allowed: pick the PYNATIVE entry if one appears.
  const pick = page.locator(".quick-input-widget .quick-input-list .monaco-list-row").filter({ hasText: "PYNATIVE" }).first();
  await until("the status bar item to show PYNATIVE_MODE", async () => {
    if (await pick.isVisible().catch(() => false)) await pick.click();
    return /PYNATIVE_MODE/.test(await item.innerText());
  }, UI_TIMEOUT);
  log(`status bar after: "${(await item.innerText()).trim()}"`);
  const modeLine = lineOf(MODE_PY, "# MODE");
  await until("the editor's set_context line to say PYNATIVE_MODE", async () => /set_context\(mode=ms\.PYNATIVE_MODE\)/.test(await editorText(page)), UI_TIMEOUT);
  await runCommand(page, "File: Save");
  const file = path.join(h.ws, "mode_switch.py");
  await until("mode_switch.py on disk to hold the switched set_context", () => !fs.readFileSync(file, "utf8").includes("GRAPH_MODE"), UI_TIMEOUT);
  const saved = fs.readFileSync(file, "utf8").split("\n");
  expect(saved.some((l) => /^ms\.set_context\(mode=ms\.PYNATIVE_MODE\)/.test(l)),
    `the saved file has no 'ms.set_context(mode=ms.PYNATIVE_MODE)' line (line ${modeLine} is ${JSON.stringify(saved[modeLine - 1])})`);
  log(`file on disk, line ${modeLine}: ${saved[modeLine - 1]}`);
}
