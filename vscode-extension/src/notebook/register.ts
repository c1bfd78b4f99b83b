/**
 * The "Spore" notebook controller for Jupyter notebooks: works without Microsoft's Jupyter
 * extension (code-server, VSCodium), one bridge + kernel per notebook, started on the first run or
 * when the controller is picked, stopped when the notebook closes. Also registers "Spore: Restart
 * Kernel" and "Spore: Interrupt Kernel".
 */
import * as vscode from "vscode";
import type { FeatureEnv } from "../features";
import { pythonFor } from "../python";
import { NotebookSession } from "./session";

export const CONTROLLER_ID = "spore-kernel";
const NOTEBOOK_TYPE = "jupyter-notebook";

/** The kernelspec name a notebook asks for in its metadata (VS Code's ipynb serializer nests it). */
function kernelspecName(notebook: vscode.NotebookDocument): string | undefined {
  const md = notebook.metadata as { metadata?: { kernelspec?: { name?: unknown } }; kernelspec?: { name?: unknown } };
  const name = md?.metadata?.kernelspec?.name ?? md?.kernelspec?.name;
  return typeof name === "string" ? name : undefined;
}

class SporeController implements vscode.Disposable {
  readonly controller: vscode.NotebookController;
  private readonly sessions = new Map<string, NotebookSession>();
  private readonly selected = new Set<string>();
  private readonly disposables: vscode.Disposable[] = [];

  constructor(private readonly log: vscode.LogOutputChannel) {
    const c = vscode.notebooks.createNotebookController(CONTROLLER_ID, NOTEBOOK_TYPE, "Spore");
    this.controller = c;
    c.supportedLanguages = ["python"];
    c.supportsExecutionOrder = true;
    c.description = "Spore kernel";
    c.detail = "Runs the Spore Jupyter kernel with the interpreter from spore.pythonPath";
    c.executeHandler = (cells, notebook) => this.session(notebook).executeCells(cells);
    c.interruptHandler = (notebook) => this.sessions.get(notebook.uri.toString())?.interrupt();
    this.disposables.push(
      c,
      c.onDidChangeSelectedNotebooks(({ notebook, selected }) => {
        const key = notebook.uri.toString();
        if (selected) {
          this.selected.add(key);
          // start now, so the mode status bar and Inspect Tensor can ask the kernel before a cell ran
          this.session(notebook).ensureStarted().catch((err: Error) => this.log.warn(`[spore] kernel not started: ${err.message}`));
        } else {
          this.selected.delete(key);
          void this.stop(notebook);
        }
      }),
      vscode.workspace.onDidCloseNotebookDocument((notebook) => { this.selected.delete(notebook.uri.toString()); void this.stop(notebook); }),
      vscode.workspace.onDidOpenNotebookDocument((notebook) => this.setAffinity(notebook)),
    );
    for (const notebook of vscode.workspace.notebookDocuments) this.setAffinity(notebook);
    void this.describeInterpreter();
  }

  /** Name the interpreter in the kernel picker (resolved asynchronously: the Python extension may answer late). */
  private async describeInterpreter(): Promise<void> {
    try {
      const python = await pythonFor(vscode.workspace.workspaceFolders?.[0]?.uri);
      this.controller.description = python.command;
      this.controller.detail = `Spore kernel on ${python.command} (${python.detail})`;
    } catch (err) {
      this.log.warn(`[spore] no interpreter for the kernel picker: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  /** Notebooks written for the `spore` kernelspec list Spore first in the kernel picker. */
  private setAffinity(notebook: vscode.NotebookDocument): void {
    if (notebook.notebookType === NOTEBOOK_TYPE && kernelspecName(notebook) === "spore") {
      this.controller.updateNotebookAffinity(notebook, vscode.NotebookControllerAffinity.Preferred);
    }
  }

  session(notebook: vscode.NotebookDocument): NotebookSession {
    const key = notebook.uri.toString();
    let s = this.sessions.get(key);
    if (s === undefined) {
      s = new NotebookSession(notebook, this.controller, this.log);
      this.sessions.set(key, s);
    }
    return s;
  }

  has(notebook: vscode.NotebookDocument): boolean {
    return this.sessions.has(notebook.uri.toString()) || this.selected.has(notebook.uri.toString());
  }

  private async stop(notebook: vscode.NotebookDocument): Promise<void> {
    const key = notebook.uri.toString();
    const s = this.sessions.get(key);
    if (s === undefined) return;
    this.sessions.delete(key);
    await s.shutdown();
  }

  dispose(): void {
    for (const s of this.sessions.values()) s.dispose();
    this.sessions.clear();
    for (const d of this.disposables) d.dispose();
  }
}

/** The notebook a command means: the toolbar passes its editor (or a URI); the palette means the active one. */
function targetNotebook(arg: unknown): vscode.NotebookDocument | undefined {
  const a = arg as { notebookEditor?: { notebookUri?: vscode.Uri }; notebookUri?: vscode.Uri } | vscode.Uri | undefined;
  const uri = a instanceof vscode.Uri ? a : a?.notebookEditor?.notebookUri ?? a?.notebookUri;
  if (uri !== undefined) return vscode.workspace.notebookDocuments.find((n) => n.uri.toString() === uri.toString());
  return vscode.window.activeNotebookEditor?.notebook;
}

export function register(env: FeatureEnv): void {
  const log = vscode.window.createOutputChannel("Spore Kernel", { log: true });
  const spore = new SporeController(log);
  const withSession = (action: (s: NotebookSession) => Promise<void>) => async (arg?: unknown) => {
    const notebook = targetNotebook(arg);
    if (notebook === undefined) {
      void vscode.window.showInformationMessage("Spore: open a notebook first.");
      return;
    }
    if (!spore.has(notebook)) {
      void vscode.window.showInformationMessage("Spore: this notebook does not use the Spore kernel (pick \"Spore\" in its kernel picker).");
      return;
    }
    await action(spore.session(notebook));
  };
  env.context.subscriptions.push(
    log,
    spore,
    vscode.commands.registerCommand("spore.restartKernel", withSession((s) => s.restart())),
    vscode.commands.registerCommand("spore.interruptKernel", withSession((s) => s.interrupt())),
  );
}
