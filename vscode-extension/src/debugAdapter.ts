/**
 * The `spore` debug type: a factory that starts `<python> -m spore_debug` (DAP over stdio) with the
 * interpreter resolved for the session's folder, a configuration provider that makes F5 without a
 * launch.json debug the current file, and "Spore: Debug Current File".
 */
import * as vscode from "vscode";
import { debugAdapterCommand } from "./commands";
import { currentFileConfiguration, resolveLaunch } from "./debugConfig";
import { probeModule } from "./probe";
import { pythonFor } from "./python";

export class SporeDebugAdapterFactory implements vscode.DebugAdapterDescriptorFactory {
  constructor(private readonly output: vscode.LogOutputChannel) {}

  async createDebugAdapterDescriptor(session: vscode.DebugSession): Promise<vscode.DebugAdapterDescriptor> {
    const python = await pythonFor(session.workspaceFolder?.uri);
    const probe = await probeModule(python.command, "spore_debug");
    if (!probe.ok) {
      // VS Code shows a factory's error as the launch failure: make it say what to fix.
      throw new Error(`Spore debugger: ${probe.reason} (chosen from ${python.detail}). Set spore.pythonPath to an interpreter that has Spore (spore-ide) installed.`);
    }
    const cmd = debugAdapterCommand(python.command);
    this.output.appendLine(`[spore] debug session "${session.name}": ${[cmd.command, ...cmd.args].join(" ")} (python: ${python.detail})`);
    return new vscode.DebugAdapterExecutable(cmd.command, cmd.args);
  }
}

function activePythonFile(): string | undefined {
  const doc = vscode.window.activeTextEditor?.document;
  return doc && doc.languageId === "python" && doc.uri.scheme === "file" ? doc.uri.fsPath : undefined;
}

export class SporeDebugConfigurationProvider implements vscode.DebugConfigurationProvider {
  resolveDebugConfiguration(_folder: vscode.WorkspaceFolder | undefined, config: vscode.DebugConfiguration):
      vscode.ProviderResult<vscode.DebugConfiguration> {
    const resolved = resolveLaunch(config, activePythonFile());
    if (resolved === undefined) {
      void vscode.window.showInformationMessage("Spore: open a Python file to debug, or add a \"spore\" configuration to launch.json.");
      return undefined;
    }
    return resolved as vscode.DebugConfiguration;
  }
}

/** Offers "Spore: current file" in the Run and Debug view's list even without a launch.json. */
export class SporeDynamicConfigurationProvider implements vscode.DebugConfigurationProvider {
  provideDebugConfigurations(): vscode.ProviderResult<vscode.DebugConfiguration[]> {
    const file = activePythonFile();
    return file === undefined ? [] : [currentFileConfiguration(file) as vscode.DebugConfiguration];
  }
}

export async function debugCurrentFile(): Promise<boolean> {
  const editor = vscode.window.activeTextEditor;
  const doc = editor?.document;
  if (doc === undefined || doc.languageId !== "python") {
    void vscode.window.showInformationMessage("Spore: Debug Current File needs a Python file in the editor.");
    return false;
  }
  if (doc.uri.scheme !== "file") {
    void vscode.window.showInformationMessage("Spore: save the file first; the debugger runs files from disk.");
    return false;
  }
  if (doc.isDirty && !(await doc.save())) return false;
  const folder = vscode.workspace.getWorkspaceFolder(doc.uri);
  return vscode.debug.startDebugging(folder, currentFileConfiguration(doc.uri.fsPath) as vscode.DebugConfiguration);
}
