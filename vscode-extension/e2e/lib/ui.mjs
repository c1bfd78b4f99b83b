// Driving VS Code's workbench the way a user does: the command palette, Quick Open, the status bar,
// editor line decorations and webview frames. Each helper waits on a DOM condition, never on time.
import { UI_TIMEOUT, expect, until } from "./wait.mjs";

const QUICK_INPUT = ".quick-input-widget";
const QUICK_ROWS = `${QUICK_INPUT} .quick-input-list .monaco-list-row`;

/** Escape a string for use inside a RegExp. */
export function reEscape(text) {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** Close whatever quick input, hover or menu is open. */
export async function dismiss(page) {
  for (let i = 0; i < 3; i++) {
    if (!(await page.locator(`${QUICK_INPUT}:visible`).count())) break;
    await page.keyboard.press("Escape");
  }
  await page.keyboard.press("Escape");
}

/** Open the quick input with `key` and wait until its box has focus. */
async function openQuickInput(page, key) {
  await page.keyboard.press(key);
  await page.locator(`${QUICK_INPUT} input`).first().waitFor({ state: "visible", timeout: UI_TIMEOUT });
}

/**
 * Accept a quick input row (`accept`: a click on `row`, or Enter) and wait until the box has closed.
 * A click or key that lands while the list is still re-filtering what was typed hits a row being
 * re-drawn and does nothing (CI: the restart command never ran; a go-to-line box stayed open). An
 * accepted row closes the box at once, so a box still open with `row` in it 5 s later lost the
 * accept: accept again (it cannot act twice), up to 3 times, then wait up to `timeout`.
 */
async function acceptUntilClosed(page, row, accept, what, timeout = UI_TIMEOUT) {
  await accept();
  const open = page.locator(`${QUICK_INPUT}:visible`);
  for (let attempt = 0; attempt < 3; attempt++) {
    if (await open.waitFor({ state: "hidden", timeout: 5_000 }).then(() => true, () => false)) return;
    if (!(await row.isVisible().catch(() => false))) break;
    if (process.env.SPORE_E2E_DEBUG) console.log(`    (quick input: ${what} was lost; again)`);
    await accept();
  }
  await open.waitFor({ state: "hidden", timeout });
}

/**
 * Run a command by its palette title ("Spore: Show Graph"): F1, type the title, click the row whose
 * label is exactly it (not merely the first row: fuzzy matching may rank another command first).
 * The palette lists what applies when it opens (a command whose `when` context turns true later is
 * not added), so it is reopened every 10 s until the overall time-out.
 * A command that opens a quick pick of its own (`opensPicker`: the kernel picker) returns right after
 * the click; the caller waits for that picker's rows. Otherwise the palette must close first.
 */
export async function runCommand(page, title, { timeout = UI_TIMEOUT, opensPicker = false } = {}) {
  const row = page.locator(QUICK_ROWS).filter({ has: page.locator(".label-name", { hasText: new RegExp(`^${reEscape(title)}$`) }) }).first();
  const end = Date.now() + timeout;
  for (;;) {
    await dismiss(page);
    await openQuickInput(page, "F1");
    await page.keyboard.type(`>${title}`);
    try {
      await row.waitFor({ state: "visible", timeout: Math.max(1000, Math.min(10_000, end - Date.now())) });
      break;
    } catch {
      if (Date.now() < end) {
        if (process.env.SPORE_E2E_DEBUG) console.log(`    (palette: no "${title}" yet; reopening)`);
        continue;
      }
      const rows = await page.locator(QUICK_ROWS).allInnerTexts();
      await dismiss(page);
      throw new Error(`the command palette has no "${title}" (rows: ${rows.map((r) => r.replace(/\n/g, " ")).join(" | ") || "none"})`);
    }
  }
  if (opensPicker) {
    await row.click();
    return;
  }
  await acceptUntilClosed(page, row, () => row.click(), `the click on "${title}"`, timeout).catch(() => undefined);
}

/** The palette rows shown for `query` (the palette is left open; call dismiss()). */
export async function paletteRows(page, query, mustContain) {
  await dismiss(page);
  await openQuickInput(page, "F1");
  await page.keyboard.type(`>${query}`);
  for (const text of mustContain) await page.locator(QUICK_ROWS).filter({ hasText: text }).first().waitFor({ timeout: UI_TIMEOUT });
  return (await page.locator(QUICK_ROWS).allInnerTexts()).map((r) => r.replace(/\n/g, " "));
}

/** Open a workspace file through Quick Open (Ctrl+P) and wait for its tab to be the active one. */
export async function openFile(page, name) {
  await dismiss(page);
  await openQuickInput(page, "Control+P");
  await page.keyboard.type(name);
  const row = page.locator(QUICK_ROWS).filter({ hasText: name }).first();
  await row.waitFor({ timeout: UI_TIMEOUT });
  await acceptUntilClosed(page, row, () => row.click(), `the click on ${name}`);
  await activeTab(page, name);
}

/** Wait until the active editor tab shows the file `name` (tabs carry data-resource-name). */
export async function activeTab(page, name, timeout = UI_TIMEOUT) {
  await page.locator(`.tabs-container .tab.active[data-resource-name="${name}"]`).first().waitFor({ timeout });
}

/** Move the active text editor's cursor to `line` (1-based) with Quick Open's ":line". */
export async function gotoLine(page, line) {
  await dismiss(page);
  await openQuickInput(page, "Control+P");
  await page.keyboard.type(`:${line}`);
  // Enter only once the box has switched from file search to "go to line N": an earlier Enter (a
  // stale file row still shown) was lost, and the box stayed open (CI: mode-status-bar)
  const row = page.locator(QUICK_ROWS).filter({ hasText: `go to line ${line}` }).first();
  await row.waitFor({ timeout: UI_TIMEOUT }).catch(() => undefined);
  // Quick Open must be gone and the editor focused before the caller types a key (F9, a letter): a
  // key pressed while the box is still closing goes to it, not to the editor (the CI failure of
  // debug-breakpoint on a slow machine: no breakpoint glyph after F9)
  await acceptUntilClosed(page, row, () => page.keyboard.press("Enter"), `the Enter for line ${line}`);
  await page.locator(".editor-group-container.active .monaco-editor.focused").first().waitFor({ timeout: UI_TIMEOUT });
  await until(`the cursor on line ${line}`, async () => (await cursorPosition(page))?.line === line, UI_TIMEOUT);
}

/** What has the keyboard focus (for failure messages): the focused element's tag and classes. */
export async function focusedElement(page) {
  return page.evaluate(() => {
    const el = document.activeElement;
    return el ? `${el.tagName.toLowerCase()}.${[...el.classList].join(".")}` : "nothing";
  });
}

/** The status bar's "Ln X, Col Y" of the focused editor (text editor or notebook cell), or undefined. */
export async function cursorPosition(page) {
  const item = page.locator('.statusbar-item[id="status.editor.selection"]');
  if (!(await item.count())) return undefined;
  const text = await item.first().innerText();
  const m = /Ln (\d+), Col (\d+)/.exec(text);
  return m ? { line: Number(m[1]), col: Number(m[2]), text } : undefined;
}

/** A status bar item by the id its extension gave it (`spore.mode` -> the DOM id ends with it). */
export function statusItem(page, id) {
  return page.locator(`.statusbar-item[id$="${id}"]`).first();
}

/**
 * The line numbers (1-based) of the visible editor lines that carry a decoration matching CSS
 * `selector` (e.g. ".debug-top-stack-frame-line" or '[class*="squiggly-"]'), matched to the gutter's line numbers by their
 * vertical position, in the editor that contains `scope` (default: the active editor group's).
 */
export async function decoratedLines(page, selector, scope = ".editor-group-container.active .monaco-editor") {
  return page.evaluate(({ selector, scope }) => {
    const editor = document.querySelector(scope);
    if (!editor) return [];
    const numbers = [...editor.querySelectorAll(".margin-view-overlays .line-numbers")]
      .map((el) => ({ top: el.getBoundingClientRect().top, line: Number(el.textContent.trim()) }));
    const lines = new Set();
    for (const el of editor.querySelectorAll(selector)) {
      const r = el.getBoundingClientRect();
      const mid = r.top + r.height / 2;
      // the gutter line whose top is the closest one above the decoration's middle
      const best = numbers.reduce((a, n) => (n.top <= mid && (!a || n.top > a.top) ? n : a), undefined);
      if (best) lines.add(best.line);
    }
    return [...lines].sort((a, b) => a - b);
  }, { selector, scope });
}

/** The text of the visible lines of the active editor group's text editor. */
export async function editorText(page, scope = ".editor-group-container.active .monaco-editor") {
  return (await page.locator(`${scope} .view-lines`).first().innerText()).replace(/\u00a0/g, " ");
}

/**
 * The first frame (webview iframes included, nested ones too) in which `selector` matches, waiting
 * for it; webviews and notebook outputs are separate documents the page's own locators do not see.
 */
export async function frameWith(page, selector, what, timeout = UI_TIMEOUT) {
  return until(what ?? `a frame with ${selector}`, async () => {
    for (const frame of page.frames()) {
      if (frame.isDetached()) continue;
      const n = await frame.locator(selector).count().catch(() => 0);
      if (n > 0) return frame;
    }
    return undefined;
  }, timeout, 250);
}

/**
 * Where the cursor is in the notebook cell whose text contains `textInCell`: {line (1-based), rowFocused,
 * editorFocused}. Cells have no line numbers and the status bar shows "Cell i of n" rather than
 * "Ln, Col" in a notebook, so the line is the index of the rendered line (a small cell is rendered
 * whole) that holds the cursor's middle.
 */
export async function notebookCellCursor(page, textInCell) {
  return page.evaluate((text) => {
    for (const row of document.querySelectorAll(".notebook-editor .cell-list-container .monaco-list-row")) {
      const editor = row.querySelector(".monaco-editor");
      if (!editor) continue;
      const lines = [...editor.querySelectorAll(".view-lines .view-line")]
        .map((el) => ({ top: el.getBoundingClientRect().top, bottom: el.getBoundingClientRect().bottom, text: el.textContent }))
        .sort((a, b) => a.top - b.top);
      if (!lines.map((l) => l.text).join("\n").replace(/\u00a0/g, " ").includes(text)) continue;
      const cursor = editor.querySelector(".cursors-layer .cursor");
      if (!cursor) return { line: undefined, rowFocused: row.classList.contains("focused"), editorFocused: editor.classList.contains("focused") };
      const r = cursor.getBoundingClientRect();
      const mid = r.top + r.height / 2;
      const index = lines.findIndex((l) => mid >= l.top && mid < l.bottom);
      return { line: index >= 0 ? index + 1 : undefined, rowFocused: row.classList.contains("focused"), editorFocused: editor.classList.contains("focused") };
    }
    return undefined;
  }, textInCell);
}

/**
 * Click an element of a notebook output. Outputs live in one webview laid under the cell list, so
 * playwright's own scrolling would scroll the webview's document, not the notebook, and the click
 * would land on whatever notebook UI lies on top (e.g. the "+ Markdown" bar). Instead the notebook is
 * scrolled with the mouse wheel until the element is inside the list's visible area, then clicked
 * where it is drawn.
 */
export async function clickInNotebookOutput(page, locator, timeout = UI_TIMEOUT) {
  const list = page.locator(".notebook-editor .cell-list-container").first();
  const view = await list.boundingBox();
  expect(view, "no notebook cell list on screen");
  const box = await until("the output element to be scrolled into the notebook's view", async () => {
    const b = await locator.boundingBox();
    if (!b) return undefined;
    const cy = b.y + b.height / 2;
    const margin = 40;
    if (cy >= view.y + margin && cy <= view.y + view.height - margin) return b;
    await page.mouse.move(view.x + view.width / 2, view.y + view.height / 2);
    await page.mouse.wheel(0, Math.max(-400, Math.min(400, cy - (view.y + view.height / 2))));
    return undefined;
  }, timeout, 200);
  await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
}

/**
 * A clean slate between steps: end a debug session, save dirty editors, close all editors and clear
 * notifications, each only when there is something to do (a command that does not apply is not in
 * the palette, and waiting for it would only cost time).
 */
export async function cleanSlate(page) {
  const quick = { timeout: 15_000 };
  await dismiss(page);
  if (await page.locator(".debug-toolbar:visible").count()) {
    await runCommand(page, "Debug: Stop", quick);
    await page.locator(".debug-toolbar").first().waitFor({ state: "hidden", timeout: 30_000 });
  }
  if (await page.locator(".tabs-container .tab.dirty").count()) await runCommand(page, "File: Save All", quick);
  if (await page.locator(".tabs-container .tab").count()) {
    await runCommand(page, "View: Close All Editors", quick);
    await page.locator(".tabs-container .tab").first().waitFor({ state: "detached", timeout: 30_000 });
  }
  if (await page.locator(".notifications-toasts .notification-toast").count()) await runCommand(page, "Notifications: Clear All Notifications", quick);
  await page.mouse.move(2, 2);
}

export { expect };
