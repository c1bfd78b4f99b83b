/**
 * The mode status bar's rules, without `vscode`: what the language server's `spore/mode` answer and the
 * kernel's `get_context('mode')` mean, the item's text and tooltip, which of the server's code actions is
 * the mode switch, and the expression that switches a kernel. Unit-tested under node (test/mode*.test.ts).
 */

export type Mode = "GRAPH_MODE" | "PYNATIVE_MODE" | "UNKNOWN";
export type SwitchTarget = "GRAPH_MODE" | "PYNATIVE_MODE";

/** What the status bar shows: the mode, where it comes from, and whether the cursor is in compiled code. */
export interface ModeInfo {
  mode: Mode;
  /** "set_context at line 4", "default (PYNATIVE_MODE)", "the Spore kernel (get_context('mode'))" */
  source: string;
  /** the cursor is in code that runs compiled (a construct under GRAPH_MODE or a @jit function) */
  compiled: boolean;
  compiledScope?: string;
  switchTo: SwitchTarget;
  /** where the deciding set_context is (document URI, 0-based line), when the server knows */
  sourceLocation?: { uri: string; line: number };
  /** "file": from the language server's analysis; "kernel": from a running Spore kernel */
  origin: "file" | "kernel";
  /** the program uses Spore (the server offers its mode switch only then); kernels always do */
  spore: boolean;
  /** the code is a notebook cell (the server's answer covers the notebook's cells up to this one) */
  notebook?: boolean;
}

const MODES: readonly string[] = ["GRAPH_MODE", "PYNATIVE_MODE", "UNKNOWN"];

function other(mode: Mode): SwitchTarget {
  return mode === "GRAPH_MODE" ? "PYNATIVE_MODE" : "GRAPH_MODE";
}

/** The `spore/mode` result as a ModeInfo, or a sentence saying what is wrong with it. */
export function parseModeReply(reply: unknown): ModeInfo | string {
  if (typeof reply !== "object" || reply === null) return `spore/mode answered ${JSON.stringify(reply)}, not an object`;
  const r = reply as Record<string, unknown>;
  if (typeof r.mode !== "string" || !MODES.includes(r.mode)) return `spore/mode answered an unknown mode ${JSON.stringify(r.mode)}`;
  const mode = r.mode as Mode;
  const switchTo = r.switchTo === "GRAPH_MODE" || r.switchTo === "PYNATIVE_MODE" ? r.switchTo : other(mode);
  const info: ModeInfo = {
    mode, switchTo, origin: "file",
    source: typeof r.source === "string" ? r.source : "the language server",
    compiled: r.compiled === true,
    spore: r.spore !== false,
  };
  if (typeof r.compiledScope === "string") info.compiledScope = r.compiledScope;
  const loc = r.sourceLocation as Record<string, unknown> | null | undefined;
  if (loc && typeof loc.uri === "string" && typeof loc.line === "number") info.sourceLocation = { uri: loc.uri, line: loc.line };
  return info;
}

/** The expression the status bar evaluates in a Spore kernel (no import statement: evaluate takes expressions). */
export const KERNEL_MODE_EXPRESSION = "__import__('spore').get_context('mode')";

/**
 * The kernel's `get_context('mode')` reply (its `text/plain` repr) as a mode. Spore stores the mode as
 * MindSpore does, an int (GRAPH_MODE = 0, PYNATIVE_MODE = 1); the names are accepted too.
 */
export function modeFromKernel(reply: { ok: boolean; data?: Record<string, unknown>; error?: string }): Mode | string {
  if (!reply.ok) return `the kernel could not read the mode: ${reply.error ?? "no reason given"}`;
  const text = reply.data?.["text/plain"];
  if (typeof text !== "string") return "the kernel's answer has no text/plain value";
  const value = text.trim().replace(/^['"]|['"]$/g, "");
  if (value === "0" || value === "GRAPH_MODE") return "GRAPH_MODE";
  if (value === "1" || value === "PYNATIVE_MODE") return "PYNATIVE_MODE";
  return `the kernel answered an unknown mode ${JSON.stringify(text)}`;
}

/** A ModeInfo for a mode read from a running kernel. */
export function kernelModeInfo(mode: Mode): ModeInfo {
  return { mode, switchTo: other(mode), compiled: false, origin: "kernel", spore: true, source: "the Spore kernel (get_context('mode'))" };
}

/**
 * The expression that switches a running kernel (evaluated like the read: it returns None, changes the
 * kernel's context and leaves the notebook's cells, outputs and execution count alone).
 */
export function kernelSwitchExpression(target: SwitchTarget): string {
  return `__import__('spore').set_context(mode=__import__('spore').${target})`;
}

/** The status bar text: `$(symbol-event) GRAPH_MODE`, plus ` · jit` in compiled code. */
export function statusText(info: ModeInfo): string {
  const mode = info.mode === "UNKNOWN" ? "mode ?" : info.mode;
  return `$(symbol-event) ${mode}${info.compiled ? " · jit" : ""}`;
}

/** The tooltip: where the mode comes from, what the cursor is in, and what a click does. */
export function statusTooltip(info: ModeInfo): string {
  const lines = [
    info.mode === "UNKNOWN"
      ? `Spore mode: set from a variable (${info.source}); the server cannot know its value without running the code`
      : `Spore mode: ${info.mode}, from ${info.source}`,
  ];
  if (!info.spore) lines.push(`This ${info.notebook ? "notebook" : "file"} does not import spore: nothing here runs in a Spore mode yet.`);
  if (info.compiled) lines.push(`The cursor is in compiled code${info.compiledScope ? ` (${info.compiledScope})` : ""}.`);
  lines.push(info.origin === "kernel"
    ? `Click to switch the kernel (or the notebook's set_context) to ${info.switchTo}.`
    : `Click to switch this ${info.notebook ? "notebook" : "file"} to ${info.switchTo} (edits its set_context).`);
  return lines.join("\n");
}

/** The server's mode-switch action among its code actions: "Switch this file|notebook to <target>". */
export function pickSwitchAction<T extends { title: string }>(actions: readonly T[], target: SwitchTarget): T | undefined {
  return actions.find((a) => a.title === `Switch this file to ${target}` || a.title === `Switch this notebook to ${target}`);
}
