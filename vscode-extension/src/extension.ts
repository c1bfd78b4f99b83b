/**
 * Entry point: wires the language server, the debugger and the commands. Each piece lives in its
 * own module; the pure rules (interpreter choice, debugger contribution, crash budget) have no
 * `vscode` import and are unit-tested under node.
 */
import * as vscode from "vscode";
import {
  SporeDebugAdapterFactory, SporeDebugConfigurationProvider, SporeDynamicConfigurationProvider, debugCurrentFile,
} from "./debugAdapter";
import { SporeLanguageServer } from "./languageClient";
import { onPythonExtensionChange } from "./python";

let server: SporeLanguageServer | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const output = vscode.window.createOutputChannel("Spore Language Server", { log: true });
  context.subscriptions.push(output);
  server = new SporeLanguageServer(output);
  context.subscriptions.push(server);
  context.subscriptions.push(
    vscode.commands.registerCommand("spore.restartLanguageServer", () => server?.restart("restart requested")),
    vscode.commands.registerCommand("spore.debugCurrentFile", debugCurrentFile),
    vscode.debug.registerDebugAdapterDescriptorFactory("spore", new SporeDebugAdapterFactory(output)),
    vscode.debug.registerDebugConfigurationProvider("spore", new SporeDebugConfigurationProvider()),
    vscode.debug.registerDebugConfigurationProvider("spore", new SporeDynamicConfigurationProvider(),
                                                    vscode.DebugConfigurationProviderTriggerKind.Dynamic),
    vscode.workspace.onDidChangeConfiguration((e) => {
      const relevant = ["spore.pythonPath", "spore.lsp.enabled", "spore.lsp.args"].some((key) => e.affectsConfiguration(key));
      if (relevant) void server?.restart("settings changed");
    }),
    onPythonExtensionChange(() => void server?.restartIfPythonChanged("the Python extension's interpreter changed")),
  );
  output.appendLine(`[spore] extension ${context.extension.packageJSON.version} activated`);
  await server.restart("activation");
}

export async function deactivate(): Promise<void> {
  await server?.stop();
  server = undefined;
}
