// The debugger through "Spore: Debug Current File": a STRICT compile error stops with the exception
// widget and hint on the user's line; a breakpoint in a GRAPH_MODE construct stops on that line with
// the construct's `x` in the Variables view.
import { cursorPosition, decoratedLines, expect, focusedElement, gotoLine, openFile, runCommand } from "../lib/ui.mjs";
import { UI_TIMEOUT, until } from "../lib/wait.mjs";
import { BREAK_PY, STRICT_PY, lineOf } from "../lib/workspace.mjs";

const TOP_FRAME = ".debug-top-stack-frame-line";

/** Wait for the debugger to stop: the top-stack-frame decoration in the active editor. */
async function waitStopped(page, h, what) {
  await page.locator(`.editor-group-container.active .monaco-editor ${TOP_FRAME}`).first().waitFor({ timeout: 120_000 })
    .catch(async (err) => {
      const toasts = await page.locator(".notifications-toasts .notification-list-item-message").allInnerTexts();
      const channel = h.channelLog("Spore Language Server").trim().split("\n").slice(-5).join(" / ");
      throw new Error(`the debugger did not stop (${what}); notifications: ${toasts.join(" | ") || "none"}; `
        + `channel: ${channel}: ${err.message.split("\n")[0]}`);
    });
}

/** End the session and wait until the debug toolbar is gone. */
async function stopDebugging(page) {
  await runCommand(page, "Debug: Stop");
  await page.locator(".debug-toolbar").first().waitFor({ state: "hidden", timeout: UI_TIMEOUT });
}

/** Step: a STRICT `try` in construct stops with the exception widget and its hint on that line. */
export async function debugCompileError({ page, h, log, shot }) {
  await openFile(page, "strict.py");
  await runCommand(page, "Spore: Debug Current File");
  const widget = page.locator(".exception-widget").first();
  await widget.waitFor({ timeout: 120_000 }).catch(async (err) => {
    await waitStopped(page, h, "compile error");
    throw err;
  });
  const text = (await widget.innerText()).replace(/\n/g, " | ");
  log(`exception widget: ${text.slice(0, 300)}`);
  expect(/hint:/i.test(text), `the exception widget has no hint: ${text}`);
  const tryLine = lineOf(STRICT_PY, "# TRY");
  await waitStopped(page, h, "compile error");
  const stopped = await decoratedLines(page, TOP_FRAME);
  expect(stopped.includes(tryLine), `stopped on lines [${stopped}], expected the try's line ${tryLine}`);
  const widgetBox = await widget.boundingBox();
  const lineBox = await page.locator(`.editor-group-container.active .monaco-editor ${TOP_FRAME}`).first().boundingBox();
  expect(widgetBox.y >= lineBox.y, "the exception widget is not below the stopped line");
  log(`stopped on line ${tryLine} (the try)`);
  await shot();
  await stopDebugging(page);
}

/** Step: F9 on a construct line in GRAPH_MODE; Debug Current File stops there; Variables shows x. */
export async function debugBreakpoint({ page, h, log, shot }) {
  await openFile(page, "breakpoint_net.py");
  const line = lineOf(BREAK_PY, "# BREAK");
  await gotoLine(page, line);
  await page.keyboard.press("F9");
  await until(`a breakpoint glyph on line ${line}`, async () => (await decoratedLines(page, '[class*="codicon-debug-breakpoint"]')).includes(line), UI_TIMEOUT)
    .catch(async (err) => {
      const glyphs = await decoratedLines(page, '[class*="codicon-debug-breakpoint"]');
      throw new Error(`${err.message}; glyphs on lines [${glyphs}], cursor ${(await cursorPosition(page))?.text ?? "unknown"}, `
        + `focus on ${await focusedElement(page)}`);
    });
  await runCommand(page, "Spore: Debug Current File");
  await waitStopped(page, h, `breakpoint on line ${line}`);
  const stopped = await decoratedLines(page, TOP_FRAME);
  expect(stopped.length === 1 && stopped[0] === line, `stopped on lines [${stopped}], expected the breakpoint's line ${line}`);
  const variables = page.locator(".pane", { has: page.locator(".pane-header", { hasText: "Variables" }) });
  const x = variables.locator(".monaco-list-row", { hasText: /^\s*x\s*[=:]/ }).first();
  // expand Locals if VS Code left it collapsed, as a user would
  const locals = variables.locator('.monaco-list-row[aria-expanded="false"]', { hasText: /^\s*Locals\s*$/ }).first();
  await variables.locator(".monaco-list-row", { hasText: "Locals" }).first().waitFor({ timeout: UI_TIMEOUT });
  if (await locals.count()) await locals.click();
  await x.waitFor({ timeout: UI_TIMEOUT }).catch(async (err) => {
    const rows = await variables.locator(".monaco-list-row").allInnerTexts().catch(() => []);
    throw new Error(`the Variables view shows no x (rows: ${rows.map((r) => r.replace(/\n/g, " ")).join(" | ") || "none"}): ${err.message.split("\n")[0]}`);
  });
  log(`stopped on line ${line}; Variables: ${(await x.innerText()).replace(/\n/g, " ").slice(0, 160)}`);
  await shot();
  await stopDebugging(page);
}
