/**
 * Show Graph in a notebook: the graph comes from the running Spore kernel, not from re-running code.
 *
 * Design: the cursor's cell names a class when it sits in a Cell's `construct`; the kernel lists the
 * notebook's variables holding a Cell (of that class, if one is named) and the user picks one (no
 * pick when there is one); then the user gives the inputs as a Python expression evaluated in the
 * kernel (`x`, or `x, y` for several; the last one given for that variable is offered again). The
 * kernel compiles the graph with `%spore_graph`'s code (never running the step) and returns the same
 * mime data the renderer shows. Both requests go through `KernelSession.evaluate` (user_expressions):
 * no execution count, no output in the notebook.
 */
import * as vscode from "vscode";
import { kernelSessionFor } from "../kernelApi";
import { GRAPH_MIME, viewOf } from "../graphViewer/protocol";
import { constructAt } from "./construct";
import { graphExpression, listExpression, parseVariables } from "./kernelExpr";
import { GraphPanel } from "./panel";

export async function showNotebookGraph(context: vscode.ExtensionContext, notebook: vscode.NotebookDocument,
                                        editor: vscode.TextEditor | undefined): Promise<void> {
  const session = kernelSessionFor(notebook);
  if (!session) {
    void vscode.window.showErrorMessage("Spore: Show Graph in a notebook needs the Spore kernel running: select the Spore kernel and run the cell that creates your network.");
    return;
  }
  const here = editor ? constructAt(editor.document.getText(), editor.selection.active.line) : undefined;
  const className = here?.kind === "cell" ? here.name : undefined;
  const listed = await session.evaluate(listExpression(className));
  if (!listed.ok) {
    void vscode.window.showErrorMessage(`Spore: could not list the kernel's Cells: ${listed.error ?? "unknown error"}`);
    return;
  }
  const vars = parseVariables(listed.data);
  if (vars.length === 0) {
    const what = className ? `a ${className} instance` : "a Spore Cell";
    void vscode.window.showWarningMessage(`Spore: no notebook variable holds ${what} yet; run the cell that creates it (e.g. net = ${className ?? "Net"}()).`);
    return;
  }
  const chosen = vars.length === 1 ? vars[0] : (await vscode.window.showQuickPick(
    vars.map((v) => ({ label: v.name, description: v.class, v })), { title: "Spore: Show Graph of", placeHolder: "a Cell in the kernel" }))?.v;
  if (!chosen) return;
  const key = `spore.graph.args:${notebook.uri.toString()}:${chosen.name}`;
  const args = await vscode.window.showInputBox({
    title: `Spore: inputs for ${chosen.name}(…)`,
    prompt: "A Python expression evaluated in the kernel; `x, y` passes two arguments. The graph is compiled, never run.",
    placeHolder: "x   or   ms.ops.ones((2, 4), ms.float32)",
    value: context.workspaceState.get<string>(key) ?? "",
    validateInput: (v) => (v.trim() === "" ? "give the inputs, e.g. x" : v.includes("\n") ? "one line" : undefined),
  });
  if (args === undefined) return;
  await context.workspaceState.update(key, args);
  const res = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification,
    title: `Spore: compiling the graph of ${chosen.name}…` }, () => session.evaluate(graphExpression(chosen.name, args.trim())));
  if (!res.ok) {
    void vscode.window.showErrorMessage(`Spore: the graph of ${chosen.name}(${args}) did not compile: ${res.error ?? "unknown error"}`);
    return;
  }
  const found = viewOf(res.data?.[GRAPH_MIME]);
  if ("error" in found) {
    void vscode.window.showErrorMessage(`Spore: ${found.error}`);
    return;
  }
  GraphPanel.show(context, String(found.view.name ?? chosen.name), found.view, { kind: "notebook", notebook });
}
