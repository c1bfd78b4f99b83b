/**
 * "Spore: Inspect Tensor": evaluate a tensor expression where the user is — in a notebook's Spore
 * kernel (through the KernelSession seam) or in the paused frame of a `spore`/`debugpy` debug
 * session (DAP `evaluate` of `spore_kernel.tensor_view.json_text(expr)`) — and show it in a webview
 * panel drawn by the notebook renderer's code. The expression is the command's argument (the
 * Variables view's context menu passes the variable), else the selection, else the name chain
 * under the cursor, else what the user types.
 */
import * as vscode from "vscode";
import type { FeatureEnv } from "../features";
import { kernelSessionFor } from "../kernelApi";
import {
  bundleFromDapResult, bundleFromEvaluate, debuggeeExpression, explainDapError, expressionFromArgument, expressionProblem,
  isTensorDebugType, pickExpression,
} from "./expression";
import { makeNonce, tensorPanelHtml } from "./html";
import type { Parsed, TensorBundle } from "./model";

interface Shown { type: "show"; expression: string; source: string; bundle: TensorBundle }

export function register(env: FeatureEnv): void {
  const panel = new TensorPanel(env.context.extensionUri);
  env.context.subscriptions.push(
    panel,
    vscode.commands.registerCommand("spore.inspectTensor", async (arg?: unknown) => {
      try {
        await inspect(panel, arg);
      } catch (err) {
        env.output.error(`Inspect Tensor failed: ${err instanceof Error ? err.stack ?? err.message : String(err)}`);
        void vscode.window.showErrorMessage(`Spore: Inspect Tensor failed: ${err instanceof Error ? err.message : String(err)}`);
      }
    }),
  );
}

async function inspect(panel: TensorPanel, arg: unknown): Promise<void> {
  const session = vscode.debug.activeDebugSession;
  const debugging = session !== undefined && isTensorDebugType(session.type);
  const notebook = activeNotebook();
  if (!debugging && !notebook) {
    void vscode.window.showWarningMessage("Spore: Inspect Tensor works in a notebook running the Spore kernel, or while a Spore or Python debug session is paused.");
    return;
  }
  const expression = expressionFromArgument(arg) ?? fromEditor() ?? (await vscode.window.showInputBox({
    title: "Spore: Inspect Tensor", prompt: "A Python expression that gives a Spore Tensor or Parameter", placeHolder: "net.fc1.weight",
    validateInput: (v) => expressionProblem(v) ?? null,
  }));
  if (expression === undefined) return;
  const problem = expressionProblem(expression);
  if (problem) {
    void vscode.window.showWarningMessage(`Spore: Inspect Tensor: ${problem}.`);
    return;
  }
  let result: Parsed<TensorBundle>;
  let source: string;
  if (debugging && session) {
    [result, source] = [await evaluateInDebuggee(session, expression), `debug session “${session.name}”`];
  } else if (notebook) {
    const kernel = kernelSessionFor(notebook);
    if (!kernel) {
      void vscode.window.showWarningMessage("Spore: Inspect Tensor: this notebook has no running Spore kernel (select the Spore kernel and run a cell).");
      return;
    }
    [result, source] = [bundleFromEvaluate(expression, await kernel.evaluate(expression)), `kernel of ${notebookName(notebook)}`];
  } else return;
  if (!result.ok) {
    void vscode.window.showWarningMessage(`Spore: Inspect Tensor: ${result.error}`);
    return;
  }
  panel.show({ type: "show", expression, source, bundle: result.value });
}

async function evaluateInDebuggee(session: vscode.DebugSession, expression: string): Promise<Parsed<TensorBundle>> {
  const item = vscode.debug.activeStackItem;
  const frameId = item instanceof vscode.DebugStackFrame && item.session.id === session.id ? item.frameId : undefined;
  if (frameId === undefined) {
    return { ok: false, error: "pause the program (a breakpoint, or select a stack frame) first: a tensor is evaluated in the selected frame" };
  }
  try {
    // "clipboard": debugpy returns the whole string (repl/hover contexts cut long values)
    const reply = await session.customRequest("evaluate", { expression: debuggeeExpression(expression), frameId, context: "clipboard" });
    return bundleFromDapResult(expression, String(reply?.result ?? ""), typeof reply?.type === "string" ? reply.type : undefined);
  } catch (err) {
    return { ok: false, error: explainDapError(expression, err instanceof Error ? err.message : String(err)) };
  }
}

function fromEditor(): string | undefined {
  const editor = vscode.window.activeTextEditor;
  if (!editor) return undefined;
  const pos = editor.selection.active;
  return pickExpression(editor.document.getText(editor.selection), editor.document.lineAt(pos.line).text, pos.character);
}

/** The notebook of the focused notebook editor, or of the cell the text editor shows. */
function activeNotebook(): vscode.NotebookDocument | undefined {
  const nb = vscode.window.activeNotebookEditor?.notebook;
  if (nb) return nb;
  const doc = vscode.window.activeTextEditor?.document;
  if (!doc || doc.uri.scheme !== "vscode-notebook-cell") return undefined;
  return vscode.workspace.notebookDocuments.find((n) => n.getCells().some((c) => c.document === doc));
}

function notebookName(nb: vscode.NotebookDocument): string {
  return nb.uri.path.split("/").pop() || nb.uri.toString();
}

/** One reusable panel; it redraws the last tensor whenever its page (re)loads and says "ready". */
class TensorPanel implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;
  private last: Shown | undefined;

  constructor(private readonly extensionUri: vscode.Uri) {}

  show(msg: Shown): void {
    this.last = msg;
    const title = `Tensor: ${msg.expression}`;
    if (!this.panel) {
      const dist = vscode.Uri.joinPath(this.extensionUri, "dist");
      const panel = vscode.window.createWebviewPanel("spore.tensor", title, { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true },
        { enableScripts: true, enableCommandUris: false, enableForms: false, localResourceRoots: [dist] });
      const script = panel.webview.asWebviewUri(vscode.Uri.joinPath(dist, "webviews", "tensor.js"));
      panel.webview.html = tensorPanelHtml({ cspSource: panel.webview.cspSource, nonce: makeNonce(), scriptUri: script.toString(), title });
      panel.webview.onDidReceiveMessage((m: unknown) => {
        if ((m as { type?: unknown } | null)?.type === "ready" && this.last) void panel.webview.postMessage(this.last);
      });
      panel.onDidDispose(() => { this.panel = undefined; });
      this.panel = panel;
      return; // the page posts "ready" once its script runs, and gets `last` then
    }
    this.panel.title = title;
    this.panel.reveal(undefined, true);
    void this.panel.webview.postMessage(msg);
  }

  dispose(): void {
    this.panel?.dispose();
  }
}
