/**
 * The mode status bar item (`spore.mode`) and "Spore: Switch Mode" (`spore.switchMode`, the item's click).
 *
 * A Python file (or a notebook without a Spore kernel) asks the language server (`spore/mode` at the
 * cursor), so the item says what the diagnostics assume; a notebook with a running Spore kernel asks the
 * kernel (`get_context('mode')`), since that is where its cells really run, and re-asks after each
 * execution. The switch edits the file through the server's own "Switch this file to ..." code action; in
 * a notebook with a kernel the user picks between switching the kernel now and editing the notebook.
 */
import * as vscode from "vscode";
import { CodeActionRequest, type CodeAction, type Command, type LanguageClient } from "vscode-languageclient/node";
import type { FeatureEnv } from "../features";
import { kernelSessionFor, onDidChangeKernelSession, type KernelSession } from "../kernelApi";
import {
  KERNEL_MODE_EXPRESSION, kernelModeInfo, kernelSwitchExpression, modeFromKernel, parseModeReply, pickSwitchAction,
  statusText, statusTooltip, type ModeInfo, type SwitchTarget,
} from "./modeInfo";

/** What the item describes: a text document at a position, possibly a cell of a notebook. */
interface Target {
  document: vscode.TextDocument;
  position: vscode.Position;
  notebook?: vscode.NotebookDocument;
}

/** The editor the item describes, or undefined (hidden) when the focus is not on Python code. */
function currentTarget(): Target | { notebook: vscode.NotebookDocument; document?: undefined } | undefined {
  const editor = vscode.window.activeTextEditor;
  if (editor && editor.document.uri.scheme === "vscode-notebook-cell") {
    const notebook = vscode.workspace.notebookDocuments.find((nb) => nb.getCells().some((c) => c.document === editor.document));
    if (editor.document.languageId !== "python") return undefined;
    return { document: editor.document, position: editor.selection.active, notebook };
  }
  if (editor) return editor.document.languageId === "python" ? { document: editor.document, position: editor.selection.active } : undefined;
  const nbEditor = vscode.window.activeNotebookEditor;
  if (!nbEditor) return undefined;
  const cells = nbEditor.notebook.getCells().filter((c) => c.kind === vscode.NotebookCellKind.Code && c.document.languageId === "python");
  const selected = nbEditor.selections[0];
  const cell = cells.filter((c) => selected === undefined || c.index < selected.end).pop() ?? cells[0];
  if (!cell) return { notebook: nbEditor.notebook };
  return { document: cell.document, position: new vscode.Position(0, 0), notebook: nbEditor.notebook };
}

class ModeStatus implements vscode.Disposable {
  readonly item = vscode.window.createStatusBarItem("spore.mode", vscode.StatusBarAlignment.Left, 50);
  private seq = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly executeHooks = new Map<string, vscode.Disposable>();

  constructor(private readonly env: FeatureEnv) {
    this.item.name = "Spore Mode";
    this.item.command = "spore.switchMode";
  }

  /** Refresh soon; bursts (typing, cursor moves) collapse into one request. */
  schedule(delayMs = 120): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => { this.timer = undefined; void this.refresh(); }, delayMs);
  }

  /** Ask again now and show the answer, unless a later refresh started meanwhile. */
  async refresh(): Promise<void> {
    const mine = ++this.seq;
    const target = currentTarget();
    if (target === undefined) {
      this.item.hide();
      return;
    }
    const shown = await this.describe(target);
    if (mine !== this.seq) return;
    if (typeof shown === "string") {
      this.item.text = "$(symbol-event) mode ?";
      this.item.tooltip = `Spore mode: ${shown}`;
    } else {
      this.item.text = statusText(shown);
      this.item.tooltip = statusTooltip(shown);
    }
    this.item.show();
  }

  /** The mode for a target, or a sentence saying why it is not known. */
  async describe(target: NonNullable<ReturnType<typeof currentTarget>>): Promise<ModeInfo | string> {
    const session = target.notebook ? kernelSessionFor(target.notebook) : undefined;
    if (session) {
      this.hookExecutions(session);
      const fromKernel = await this.askKernel(session);
      if (typeof fromKernel !== "string" || target.document === undefined) return fromKernel;
      this.env.output.appendLine(`[spore] mode status: ${fromKernel}; using the language server's answer`);
    }
    if (target.document === undefined) return "the notebook has no Python code cell";
    const info = await this.askServer(target.document, target.position);
    if (typeof info !== "string" && target.notebook) info.notebook = true;
    return info;
  }

  private async askKernel(session: KernelSession): Promise<ModeInfo | string> {
    try {
      const mode = modeFromKernel(await session.evaluate(KERNEL_MODE_EXPRESSION));
      return mode === "GRAPH_MODE" || mode === "PYNATIVE_MODE" ? kernelModeInfo(mode) : mode;
    } catch (err) {
      return `the kernel did not answer: ${err instanceof Error ? err.message : String(err)}`;
    }
  }

  async askServer(document: vscode.TextDocument, position: vscode.Position): Promise<ModeInfo | string> {
    const client = this.env.server.runningClient;
    if (!client) return "the Spore language server is not running (see the 'Spore Language Server' output)";
    try {
      const reply = await client.sendRequest("spore/mode", {
        textDocument: { uri: client.code2ProtocolConverter.asUri(document.uri) },
        position: { line: position.line, character: position.character },
      });
      return parseModeReply(reply);
    } catch (err) {
      return `the language server could not answer: ${err instanceof Error ? err.message : String(err)}`;
    }
  }

  /** Re-read a kernel's mode after each of its executions (a cell may have called set_context). */
  private hookExecutions(session: KernelSession): void {
    const key = session.notebook.uri.toString();
    if (this.executeHooks.has(key)) return;
    this.executeHooks.set(key, session.onDidExecute(() => this.schedule(0)));
  }

  forgetKernel(notebook: vscode.NotebookDocument): void {
    const key = notebook.uri.toString();
    this.executeHooks.get(key)?.dispose();
    this.executeHooks.delete(key);
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    for (const hook of this.executeHooks.values()) hook.dispose();
    this.item.dispose();
  }
}

/** Apply the server's "Switch this file/notebook to <target>" action at a position; a sentence when it cannot. */
async function applyServerSwitch(client: LanguageClient | undefined, document: vscode.TextDocument,
                                 position: vscode.Position, target: SwitchTarget): Promise<string | undefined> {
  if (!client) return "the Spore language server is not running";
  const at = { line: position.line, character: position.character };
  const result = await client.sendRequest(CodeActionRequest.type, {
    textDocument: { uri: client.code2ProtocolConverter.asUri(document.uri) },
    range: { start: at, end: at },
    context: { diagnostics: [], only: ["refactor.rewrite"] },
  });
  const actions = (result ?? []).filter((a: Command | CodeAction): a is CodeAction => "title" in a && !("command" in a && typeof a.command === "string"));
  const action = pickSwitchAction(actions, target);
  if (!action?.edit) return `the language server offers no "Switch ... to ${target}" action here`;
  const edit = await client.protocol2CodeConverter.asWorkspaceEdit(action.edit);
  return (await vscode.workspace.applyEdit(edit)) ? undefined : "VS Code refused the edit";
}

export function register(env: FeatureEnv): void {
  const status = new ModeStatus(env);
  const later = (): void => status.schedule();
  env.context.subscriptions.push(
    status,
    vscode.window.onDidChangeActiveTextEditor(() => status.schedule(0)),
    vscode.window.onDidChangeActiveNotebookEditor(() => status.schedule(0)),
    vscode.window.onDidChangeNotebookEditorSelection(later),
    vscode.window.onDidChangeTextEditorSelection((e) => { if (e.textEditor === vscode.window.activeTextEditor) later(); }),
    vscode.workspace.onDidChangeTextDocument((e) => {
      if (e.document === vscode.window.activeTextEditor?.document && e.contentChanges.length) later();
    }),
    env.server.onDidStart(() => status.schedule(0)),
    // after a (re)start the first answer can be "not open": ask again once the server has the document
    env.server.onDidOpenInServer((uri) => { if (currentTarget()?.document?.uri.toString() === uri.toString()) status.schedule(0); }),
    env.server.onDidStop(() => status.schedule(0)),
    onDidChangeKernelSession((nb) => { status.forgetKernel(nb); status.schedule(0); }),
    vscode.commands.registerCommand("spore.switchMode", () => switchMode(env, status)),
  );
  status.schedule(0);
}

/** "Spore: Switch Mode": flip the mode of what the status bar describes. */
async function switchMode(env: FeatureEnv, status: ModeStatus): Promise<void> {
  const target = currentTarget();
  if (target === undefined) {
    void vscode.window.showInformationMessage("Spore: Switch Mode works in a Python file or a notebook.");
    return;
  }
  const info = await status.describe(target);
  if (typeof info === "string") {
    void vscode.window.showErrorMessage(`Spore: cannot switch the mode: ${info}.`);
    return;
  }
  let problem: string | undefined;
  const session = target.notebook ? kernelSessionFor(target.notebook) : undefined;
  if (session && info.origin === "kernel") {
    const kernelChoice = `Switch the kernel to ${info.switchTo} now`;
    const items: vscode.QuickPickItem[] = [{ label: kernelChoice,
      detail: `Runs spore.set_context(mode=${info.switchTo}) in the running kernel; the notebook's cells are not changed.` }];
    if (target.document) {
      items.push({ label: `Edit the notebook's set_context to ${info.switchTo}`,
        detail: "The language server's code action; the kernel follows when that cell runs again." });
    }
    const pick = await vscode.window.showQuickPick(items, { title: `Spore mode: the kernel runs ${info.mode}` });
    if (!pick) return;
    if (pick.label === kernelChoice) {
      const reply = await session.evaluate(kernelSwitchExpression(info.switchTo));
      problem = reply.ok ? undefined : `the kernel refused: ${reply.error ?? "no reason given"}`;
    } else if (target.document) {
      const server = await status.askServer(target.document, target.position);
      problem = typeof server === "string" ? server
        : await applyServerSwitch(env.server.runningClient, target.document, target.position, server.switchTo);
    }
  } else if (target.document) {
    if (!info.spore) {
      void vscode.window.showInformationMessage(`Spore: this ${info.notebook ? "notebook" : "file"} does not import spore, so it has no mode to switch.`);
      return;
    }
    problem = await applyServerSwitch(env.server.runningClient, target.document, target.position, info.switchTo);
  }
  if (problem) void vscode.window.showErrorMessage(`Spore: cannot switch the mode: ${problem}.`);
  await status.refresh();
}
