/**
 * "Reveal source" for a clicked graph node, from the notebook renderer or the Show Graph panel: a
 * notebook cell (the kernel tags its locs with the cell's In[n] execution count) is shown and its
 * line selected; an ordinary file opens in an editor with the line selected.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import * as vscode from "vscode";
import type { RevealMessage } from "../graphViewer/protocol";

function lineRange(doc: vscode.TextDocument, line: number): vscode.Range {
  const at = Math.min(Math.max(line - 1, 0), Math.max(doc.lineCount - 1, 0));
  return doc.lineAt(at).range;
}

/** The code cell that ran as In[cellId], in `preferred` first, else in any open notebook. */
function findCell(cellId: number, preferred?: vscode.NotebookDocument): vscode.NotebookCell | undefined {
  const notebooks = [...(preferred ? [preferred] : []), ...vscode.workspace.notebookDocuments.filter((n) => n !== preferred)];
  for (const nb of notebooks) {
    const cell = nb.getCells().find((c) => c.kind === vscode.NotebookCellKind.Code && c.executionSummary?.executionOrder === cellId);
    if (cell) return cell;
  }
  return undefined;
}

async function revealCell(cell: vscode.NotebookCell, line: number): Promise<void> {
  const range = new vscode.NotebookRange(cell.index, cell.index + 1);
  const nbEditor = await vscode.window.showNotebookDocument(cell.notebook, { selections: [range], preserveFocus: false });
  nbEditor.revealRange(range, vscode.NotebookEditorRevealType.InCenterIfOutsideViewport);
  // the click came from an output webview, which keeps the keyboard focus: put it in the cell's editor
  await vscode.commands.executeCommand("notebook.cell.edit");
  const selection = lineRange(cell.document, line);
  const editor = vscode.window.visibleTextEditors.find((e) => e.document === cell.document)
    ?? await vscode.window.showTextDocument(cell.document, { viewColumn: nbEditor.viewColumn, selection });
  editor.selection = new vscode.Selection(selection.start, selection.end);
  editor.revealRange(selection, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
}

async function revealFile(file: string, line: number): Promise<void> {
  const uri = vscode.Uri.file(file);
  const doc = await vscode.workspace.openTextDocument(uri);
  const visible = vscode.window.visibleTextEditors.find((e) => e.document.uri.toString() === uri.toString());
  const selection = lineRange(doc, line);
  const editor = await vscode.window.showTextDocument(doc, { viewColumn: visible?.viewColumn ?? vscode.ViewColumn.One, selection });
  editor.revealRange(selection, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
}

function isRegularFile(file: string): boolean {
  try {
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

export async function reveal(msg: RevealMessage, notebook?: vscode.NotebookDocument, log?: (line: string) => void): Promise<void> {
  if (msg.cellId !== undefined) {
    const cell = findCell(msg.cellId, notebook);
    const orders = (notebook?.getCells() ?? []).map((c) => c.executionSummary?.executionOrder ?? "-").join(",");
    log?.(`[spore] reveal In[${msg.cellId}] line ${msg.line}: ${cell ? `cell #${cell.index}` : `no cell with that execution order (${orders})`}`);
    if (cell) return revealCell(cell, msg.line);
    if (!isRegularFile(msg.file)) {
      void vscode.window.showWarningMessage(`Spore: cell In[${msg.cellId}] of this graph is no longer in the notebook (run it again).`);
      return;
    }
  }
  if (!path.isAbsolute(msg.file) || !isRegularFile(msg.file)) {
    void vscode.window.showWarningMessage(`Spore: the graph's source file is not on this machine: ${msg.file.slice(0, 300)}`);
    return;
  }
  return revealFile(msg.file, msg.line);
}
