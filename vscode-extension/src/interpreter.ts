/**
 * Which Python runs Spore's language server and debug adapter.
 *
 * Pure (no `vscode` import) so that the order of the rules is unit-tested: the user's
 * `spore.pythonPath`, else the workspace's `.venv` (what `make` bootstraps in a Spore checkout and
 * what most projects use), else the interpreter Microsoft's Python extension has selected (only when
 * that extension is installed: code-server and VSCodium usually lack it), else `python3` on PATH.
 */
import * as fs from "node:fs";
import * as path from "node:path";

export type PythonSource = "setting" | "workspace-venv" | "python-extension" | "default";

export interface ResolvedPython {
  /** The interpreter to spawn: an absolute path, or a bare command looked up on PATH. */
  command: string;
  source: PythonSource;
  /** One line for the output channel: where the choice came from. */
  detail: string;
}

export interface ResolveInputs {
  /** The raw `spore.pythonPath` setting (empty or undefined: not set). */
  setting: string | undefined;
  /** File-system paths of the workspace folders, the folder of the current resource first. */
  workspaceFolders: readonly string[];
  platform: NodeJS.Platform;
  home: string | undefined;
  isFile(p: string): boolean;
  /** The Python extension's selected interpreter; absent when the extension is not installed. */
  pythonExtension?: () => Promise<string | undefined>;
}

/** Where a venv keeps its interpreter on this platform. */
export function venvPython(folder: string, platform: NodeJS.Platform): string {
  return platform === "win32"
    ? path.win32.join(folder, ".venv", "Scripts", "python.exe")
    : path.posix.join(folder, ".venv", "bin", "python");
}

/**
 * Expand `${workspaceFolder}`, `${userHome}` and a leading `~`, and anchor a relative path
 * (`.venv/bin/python`) at the first workspace folder, the way VS Code's own settings read paths.
 * A bare command name (`python3.11`) is left for PATH lookup.
 */
export function expandSetting(value: string, workspaceFolder: string | undefined, home: string | undefined,
                              platform: NodeJS.Platform): string {
  const p = platform === "win32" ? path.win32 : path.posix;
  let out = value.trim();
  if (workspaceFolder !== undefined) out = out.split("${workspaceFolder}").join(workspaceFolder);
  if (home !== undefined) {
    out = out.split("${userHome}").join(home);
    if (out === "~") out = home;
    else if (out.startsWith("~/") || (platform === "win32" && out.startsWith("~\\"))) out = p.join(home, out.slice(2));
  }
  const isPath = out.includes("/") || (platform === "win32" && out.includes("\\"));
  if (isPath && !p.isAbsolute(out) && workspaceFolder !== undefined) out = p.join(workspaceFolder, out);
  return out;
}

/** Apply the rules in order; the first that yields an interpreter wins. */
export async function resolvePython(inputs: ResolveInputs): Promise<ResolvedPython> {
  const first = inputs.workspaceFolders[0];
  if (inputs.setting !== undefined && inputs.setting.trim() !== "") {
    const command = expandSetting(inputs.setting, first, inputs.home, inputs.platform);
    return { command, source: "setting", detail: `spore.pythonPath = ${JSON.stringify(inputs.setting)}` };
  }
  for (const folder of inputs.workspaceFolders) {
    const candidate = venvPython(folder, inputs.platform);
    if (inputs.isFile(candidate)) return { command: candidate, source: "workspace-venv", detail: `the workspace's .venv (${folder})` };
  }
  if (inputs.pythonExtension !== undefined) {
    let selected: string | undefined;
    try {
      selected = await inputs.pythonExtension();
    } catch {
      selected = undefined; // an extension that fails to answer must not stop Spore from starting
    }
    if (selected !== undefined && selected.trim() !== "") {
      return { command: selected, source: "python-extension", detail: "the interpreter selected in the Python extension" };
    }
  }
  const command = inputs.platform === "win32" ? "python" : "python3";
  return { command, source: "default", detail: `${command} on PATH (no spore.pythonPath, no .venv, no Python extension interpreter)` };
}

/** The real file-system probe: a regular file or a symlink to one (venv interpreters are symlinks). */
export function isFile(p: string): boolean {
  try {
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}
