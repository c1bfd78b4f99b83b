/**
 * The "Spore Graph: <name>" webview panel: one panel, reused, showing one viewer payload. Scripts
 * are enabled (the viewer is interactive) but only the extension's dist/ folder can be loaded, under
 * a nonce'd CSP (html.ts). It remembers where its graph came from, so node clicks reveal in the
 * right notebook and cursor moves in that file or notebook highlight their nodes.
 */
import * as vscode from "vscode";
import { parseFromWebview, type ToWebview } from "../graphViewer/protocol";
import { makeNonce, panelTitle, webviewHtml } from "./html";
import { reveal } from "./reveal";

/** Where the shown graph came from. */
export type GraphSource =
  | { kind: "file"; file: string }        // captured from a .py file (its realpath)
  | { kind: "notebook"; notebook: vscode.NotebookDocument }
  | { kind: "json"; file: string };

export class GraphPanel implements vscode.Disposable {
  private static current: GraphPanel | undefined;
  private ready = false;
  private pending: ToWebview[] = [];
  private readonly subs: vscode.Disposable[] = [];

  static get active(): GraphPanel | undefined {
    return GraphPanel.current;
  }

  /** Show `view` in the panel (created beside the editor on first use). */
  static show(context: vscode.ExtensionContext, name: string, view: Record<string, unknown>, source: GraphSource): GraphPanel {
    const fresh = !GraphPanel.current;
    if (!GraphPanel.current) GraphPanel.current = new GraphPanel(context);
    const p = GraphPanel.current;
    p.source = source;
    p.panel.title = panelTitle(name);
    if (!fresh) p.panel.reveal(p.panel.viewColumn, true);  // where it is: Beside again would split once more
    p.post({ type: "show", view });
    return p;
  }

  source: GraphSource | undefined;
  readonly panel: vscode.WebviewPanel;

  private constructor(context: vscode.ExtensionContext) {
    const dist = vscode.Uri.joinPath(context.extensionUri, "dist");
    this.panel = vscode.window.createWebviewPanel("spore.graph", panelTitle("graph"),
      { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true },
      { enableScripts: true, localResourceRoots: [dist], retainContextWhenHidden: true, enableFindWidget: true });
    const webview = this.panel.webview;
    try {
      webview.html = webviewHtml({
        cspSource: webview.cspSource,
        nonce: makeNonce(),
        scriptUri: webview.asWebviewUri(vscode.Uri.joinPath(dist, "webviews", "graph.js")).toString(),
        title: "Spore Graph",
      });
    } catch (err) {
      this.panel.dispose();  // no empty panel left behind
      throw err;
    }
    this.subs.push(
      webview.onDidReceiveMessage((raw) => this.receive(raw)),
      this.panel.onDidDispose(() => this.dispose()),
    );
  }

  post(msg: ToWebview): void {
    if (!this.ready) {
      // a new "show" replaces whatever was waiting: only the latest graph matters
      if (msg.type === "show") this.pending = [];
      this.pending.push(msg);
      return;
    }
    void this.panel.webview.postMessage(msg);
  }

  private receive(raw: unknown): void {
    const msg = parseFromWebview(raw);
    if (msg === undefined) return;
    if (msg.type === "ready") {
      this.ready = true;
      for (const m of this.pending.splice(0)) void this.panel.webview.postMessage(m);
    } else if (msg.type === "reveal") {
      void reveal(msg, this.source?.kind === "notebook" ? this.source.notebook : undefined).then(undefined, (err: unknown) =>
        void vscode.window.showWarningMessage(`Spore: could not reveal ${msg.file}:${msg.line}: ${String(err)}`));
    } else {
      void vscode.window.showErrorMessage(`Spore Graph: ${msg.text}`);
    }
  }

  dispose(): void {
    if (GraphPanel.current === this) GraphPanel.current = undefined;
    for (const s of this.subs.splice(0)) s.dispose();
    this.panel.dispose();
  }
}
