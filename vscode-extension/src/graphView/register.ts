/**
 * The graph view in VS Code: "Spore: Show Graph" (a saved graph JSON, the construct under the
 * cursor in a .py file, or a Cell in the notebook's kernel), the notebook renderer's reveal
 * messages, and the cursor -> node highlighting of the open panel.
 *
 * Running a .py file is explicit here (the user asked for its graph): `python -m spore_viz capture`
 * runs it in a child process until the construct is first called, prints the payload and exits
 * before the step; a timeout (`spore.graph.captureTimeout`) and the progress notification's Cancel
 * end it.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import * as vscode from "vscode";
import type { FeatureEnv } from "../features";
import { parseReveal, viewOf, GRAPH_SCHEMA } from "../graphViewer/protocol";
import { pythonFor } from "../python";
import { captureArgs, outcome, payloadArgs, run, type RunResult } from "./capture";
import { constructAt } from "./construct";
import { showNotebookGraph } from "./notebookGraph";
import { GraphPanel } from "./panel";
import { reveal } from "./reveal";

function realpath(file: string): string {
  try {
    return fs.realpathSync(file);
  } catch {
    return file;
  }
}

function isGraphJson(doc: vscode.TextDocument): boolean {
  if (!doc.fileName.toLowerCase().endsWith(".json")) return false;
  try {
    return (JSON.parse(doc.getText()) as { schema?: unknown })?.schema === GRAPH_SCHEMA;
  } catch {
    return false;
  }
}

async function runWithProgress(title: string, python: string, args: string[], cwd: string, timeoutS: number): Promise<RunResult> {
  return vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title, cancellable: true }, (_p, token) => {
    const abort = new AbortController();
    token.onCancellationRequested(() => abort.abort());
    // the Python side gives up at timeoutS with its own message; ours is the backstop
    return run(python, args, { cwd, timeoutMs: (timeoutS + 10) * 1000, signal: abort.signal });
  });
}

function timeoutFor(resource: vscode.Uri): number {
  const v = vscode.workspace.getConfiguration("spore", resource).get<number>("graph.captureTimeout", 60);
  return Number.isFinite(v) && v > 0 ? v : 60;
}

async function showJson(env: FeatureEnv, uri: vscode.Uri): Promise<void> {
  const file = uri.fsPath;
  const python = await pythonFor(uri);
  const timeoutS = timeoutFor(uri);
  // source lines only from files in the JSON's own workspace folder (spore_viz resolves symlinks);
  // the panel cannot send anything anywhere (its CSP allows no connection)
  const folder = vscode.workspace.getWorkspaceFolder(uri);
  const sources = folder?.uri.scheme === "file" ? folder.uri.fsPath : undefined;
  const res = await runWithProgress(`Spore: laying out ${path.basename(file)}…`, python.command, payloadArgs(file, sources),
                                    path.dirname(file), timeoutS);
  const out = outcome(res, `reading ${path.basename(file)}`, timeoutS);
  if (!out.ok) {
    env.output.appendLine(`[spore] show graph ${file}: ${res.stderr.trim()}`);
    void vscode.window.showErrorMessage(out.message);
    return;
  }
  const found = viewOf(out.payload);
  if ("error" in found) {
    void vscode.window.showErrorMessage(`Spore: ${found.error}`);
    return;
  }
  GraphPanel.show(env.context, String(found.view.name ?? path.basename(file)), found.view, { kind: "json", file });
}

async function showPython(env: FeatureEnv, editor: vscode.TextEditor): Promise<void> {
  const doc = editor.document;
  const line = editor.selection.active.line;
  const target = constructAt(doc.getText(), line);
  if (!target) {
    void vscode.window.showWarningMessage("Spore: put the cursor inside a Cell's construct or a @jit function, then run Show Graph again.");
    return;
  }
  if (doc.isDirty && !(await doc.save())) return;
  const file = doc.uri.fsPath;
  const python = await pythonFor(doc.uri);
  const timeoutS = timeoutFor(doc.uri);
  const what = target.kind === "cell" ? `${target.name}.construct` : `${target.name}()`;
  const res = await runWithProgress(`Spore: running ${path.basename(file)} until ${what} is called…`, python.command,
                                    captureArgs(file, line + 1, timeoutS), path.dirname(file), timeoutS);
  const out = outcome(res, `running ${path.basename(file)}`, timeoutS);
  if (!out.ok) {
    env.output.appendLine(`[spore] show graph ${file}:${line + 1}: ${res.stderr.trim().slice(-4000)}`);
    void vscode.window.showErrorMessage(out.message);
    return;
  }
  const found = viewOf(out.payload);
  if ("error" in found) {
    void vscode.window.showErrorMessage(`Spore: ${found.error}`);
    return;
  }
  const panel = GraphPanel.show(env.context, String(found.view.name ?? what), found.view, { kind: "file", file: realpath(file) });
  panel.post({ type: "highlight", file: realpath(file), lines: [line + 1] });
}

async function pickJson(): Promise<vscode.Uri | undefined> {
  const picked = await vscode.window.showOpenDialog({ canSelectMany: false, openLabel: "Show Graph",
                                                      filters: { "Spore graph JSON": ["json"] } });
  return picked?.[0];
}

async function showGraph(env: FeatureEnv, uri?: vscode.Uri): Promise<void> {
  if (uri instanceof vscode.Uri && uri.scheme === "file" && uri.fsPath.toLowerCase().endsWith(".json")) return showJson(env, uri);
  const editor = vscode.window.activeTextEditor;
  const nb = vscode.window.activeNotebookEditor;
  if (editor?.document.uri.scheme === "vscode-notebook-cell" && nb) return showNotebookGraph(env.context, nb.notebook, editor);
  if (!editor && nb) return showNotebookGraph(env.context, nb.notebook, undefined);
  if (editor && editor.document.uri.scheme === "file") {
    if (isGraphJson(editor.document)) {
      if (editor.document.isDirty && !(await editor.document.save())) return;
      return showJson(env, editor.document.uri);
    }
    if (editor.document.languageId === "python") return showPython(env, editor);
  }
  const picked = await pickJson();
  if (picked) return showJson(env, picked);
}

/** Graph outputs in a notebook follow the cursor in its cells (the renderer marks that line's nodes). */
function followCursorInOutputs(messaging: vscode.NotebookRendererMessaging, e: vscode.TextEditorSelectionChangeEvent): void {
  const doc = e.textEditor.document;
  if (doc.uri.scheme !== "vscode-notebook-cell") return;
  for (const nb of vscode.window.visibleNotebookEditors) {
    const cell = nb.notebook.getCells().find((c) => c.document === doc);
    const order = cell?.executionSummary?.executionOrder;
    if (order !== undefined) {
      void messaging.postMessage({ type: "highlight", cellId: order, lines: [(e.selections[0]?.active.line ?? 0) + 1] }, nb);
    }
  }
}

/** The open panel follows the cursor: a line of its graph's file or notebook highlights its nodes. */
function followCursor(e: vscode.TextEditorSelectionChangeEvent): void {
  const panel = GraphPanel.active;
  const source = panel?.source;
  if (!panel || !source) return;
  const doc = e.textEditor.document;
  const line = e.selections[0]?.active.line ?? 0;
  if (source.kind === "file" && doc.uri.scheme === "file" && realpath(doc.uri.fsPath) === source.file) {
    const inside = constructAt(doc.getText(), line);
    panel.post({ type: "highlight", file: source.file, lines: inside ? [line + 1] : [] });
  } else if (source.kind === "notebook" && doc.uri.scheme === "vscode-notebook-cell") {
    const cell = source.notebook.getCells().find((c) => c.document === doc);
    const order = cell?.executionSummary?.executionOrder;
    if (order !== undefined) panel.post({ type: "highlight", cellId: order, lines: [line + 1] });
  }
}

export function register(env: FeatureEnv): void {
  const messaging = vscode.notebooks.createRendererMessaging("spore-graph-renderer");
  env.context.subscriptions.push(
    vscode.commands.registerCommand("spore.showGraph", (uri?: vscode.Uri) =>
      showGraph(env, uri).catch((err: unknown) => {
        env.output.appendLine(`[spore] show graph failed: ${err instanceof Error ? err.stack ?? err.message : String(err)}`);
        void vscode.window.showErrorMessage(`Spore: Show Graph failed: ${err instanceof Error ? err.message : String(err)}`);
      })),
    messaging.onDidReceiveMessage(({ editor, message }) => {
      const msg = parseReveal(message);
      if (!msg) env.output.appendLine(`[spore] graph renderer sent an unknown message: ${JSON.stringify(message).slice(0, 300)}`);
      if (msg) void reveal(msg, editor.notebook, (line) => env.output.appendLine(line)).then(undefined, (err: unknown) => env.output.appendLine(`[spore] reveal failed: ${String(err)}`));
    }),
    vscode.window.onDidChangeTextEditorSelection(followCursor),
    vscode.window.onDidChangeTextEditorSelection((e) => followCursorInOutputs(messaging, e)),
    { dispose: () => GraphPanel.active?.dispose() },
  );
}
