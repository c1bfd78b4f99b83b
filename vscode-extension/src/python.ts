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
