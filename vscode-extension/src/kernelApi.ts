/**
 * The seam between the notebook controller (src/notebook) and the features that ask a running
 * Spore kernel something (mode status bar, Inspect Tensor, Show Graph in a notebook). They see only
 * this interface, so each can be built and tested without the controller's internals.
 */
import * as vscode from "vscode";

/** The reply to `evaluate`: the expression's mime bundle as IPython formats it (user_expressions). */
export interface EvaluateResult {
  ok: boolean;
  /** mime type -> data, e.g. {"text/plain": "'GRAPH_MODE'", "application/vnd.spore.tensor+json": {...}} */
  data?: Record<string, unknown>;
  /** "NameError: name 'x' is not defined" when ok is false */
  error?: string;
}

export interface KernelSession {
  readonly notebook: vscode.NotebookDocument;
  /** Evaluate a Python expression in the kernel without touching the execution count or outputs. */
  evaluate(expression: string): Promise<EvaluateResult>;
  /** Fires after each cell execution the controller ran (so views that show kernel state refresh). */
  readonly onDidExecute: vscode.Event<void>;
}

const sessions = new Map<string, KernelSession>();
const changed = new vscode.EventEmitter<vscode.NotebookDocument>();

/** Fires when a notebook gets or loses its Spore kernel session. */
export const onDidChangeKernelSession: vscode.Event<vscode.NotebookDocument> = changed.event;

/** The Spore kernel session of `notebook`, if the Spore controller runs one for it. */
export function kernelSessionFor(notebook: vscode.NotebookDocument): KernelSession | undefined {
  return sessions.get(notebook.uri.toString());
}

/** Called by the notebook controller only. */
export function setKernelSession(notebook: vscode.NotebookDocument, session: KernelSession | undefined): void {
  if (session === undefined) sessions.delete(notebook.uri.toString());
  else sessions.set(notebook.uri.toString(), session);
  changed.fire(notebook);
}
