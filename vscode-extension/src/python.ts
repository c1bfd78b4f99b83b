/**
 * The VS Code side of interpreter resolution: reads the setting and the workspace folders, asks
 * Microsoft's Python extension (if installed) for its selected interpreter, and hands them to the
 * pure rules in interpreter.ts.
 */
import * as os from "node:os";
import * as vscode from "vscode";
import { isFile, resolvePython, ResolvedPython } from "./interpreter";

const PYTHON_EXTENSION_ID = "ms-python.python";

/** Its selected interpreter for `resource`, through the extension's public API (new, then legacy). */
async function pythonExtensionInterpreter(resource: vscode.Uri | undefined): Promise<string | undefined> {
  const ext = vscode.extensions.getExtension(PYTHON_EXTENSION_ID);
  if (ext === undefined) return undefined;
  // The API is untyped here on purpose: the extension is optional and its types are not a dependency.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const api: any = ext.isActive ? ext.exports : await ext.activate();
  const envs = api?.environments;
  if (envs?.getActiveEnvironmentPath) {
    const active = envs.getActiveEnvironmentPath(resource);
    const resolved = envs.resolveEnvironment ? await envs.resolveEnvironment(active) : undefined;
    const exe: string | undefined = resolved?.executable?.uri?.fsPath ?? active?.path;
    if (exe) return exe;
  }
  if (api?.ready) await api.ready;
  const exec: string[] | undefined = api?.settings?.getExecutionDetails?.(resource)?.execCommand;
  return exec?.[0];
}

/** The interpreter for `resource` (a file or folder; undefined: the first workspace folder). */
export async function pythonFor(resource?: vscode.Uri): Promise<ResolvedPython> {
  const folder = resource ? vscode.workspace.getWorkspaceFolder(resource) : undefined;
  const folders = (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === "file").map((f) => f.uri.fsPath);
  if (folder && folder.uri.scheme === "file") {
    const at = folders.indexOf(folder.uri.fsPath);
    if (at > 0) folders.unshift(...folders.splice(at, 1));
  }
  const setting = vscode.workspace.getConfiguration("spore", resource ?? folder?.uri).get<string>("pythonPath");
  const installed = vscode.extensions.getExtension(PYTHON_EXTENSION_ID) !== undefined;
  return resolvePython({
    setting,
    workspaceFolders: folders,
    platform: process.platform,
    home: os.homedir(),
    isFile,
    pythonExtension: installed ? () => pythonExtensionInterpreter(resource ?? folder?.uri) : undefined,
  });
}

/**
 * Call `listener` when the Python extension's selected interpreter changes (so the language server
 * follows it); nothing when that extension is not installed. Activating it is left to VS Code: its
 * own activation events fire for the same Python files that activate Spore.
 */
export function onPythonExtensionChange(listener: () => void): vscode.Disposable {
  const ext = vscode.extensions.getExtension(PYTHON_EXTENSION_ID);
  if (ext === undefined) return new vscode.Disposable(() => undefined);
  let sub: vscode.Disposable | undefined;
  let disposed = false;
  void (async () => {
    try {
      // eslint-disable-next-line @typescript-eslint/no-explicit-any
      const api: any = ext.isActive ? ext.exports : await ext.activate();
      const event = api?.environments?.onDidChangeActiveEnvironmentPath ?? api?.settings?.onDidChangeExecutionDetails;
      if (typeof event === "function" && !disposed) sub = event(listener);
    } catch {
      // no events from a broken Python extension: the setting and .venv rules still work
    }
  })();
  return new vscode.Disposable(() => { disposed = true; sub?.dispose(); });
}
