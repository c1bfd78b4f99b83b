/**
 * Entry point: wires the language server, the debugger, the notebook controller and the views.
 * Each feature lives in its own folder and exposes `register(env)`; the pure rules (interpreter
 * choice, debugger contribution, crash budget, output mapping, ...) have no `vscode` import and are
 * unit-tested under node.
 */
import * as vscode from "vscode";
import {
  SporeDebugAdapterFactory, SporeDebugConfigurationProvider, SporeDynamicConfigurationProvider, debugCurrentFile,
} from "./debugAdapter";
import type { FeatureEnv } from "./features";
import { register as registerGraphView } from "./graphView/register";
import { SporeLanguageServer } from "./languageClient";
import { register as registerMode } from "./mode/register";
import { register as registerNotebook } from "./notebook/register";
import { register as registerProfile } from "./profile/register";
import { onPythonExtensionChange } from "./python";
import { register as registerTensorView } from "./tensorView/register";

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
  const env: FeatureEnv = { context, output, server };
  for (const register of [registerNotebook, registerGraphView, registerTensorView, registerMode, registerProfile]) {
    try {
      register(env);
    } catch (err) {
      // one broken feature must not take the language server and the debugger down with it
      output.appendLine(`[spore] a feature failed to start: ${err instanceof Error ? err.stack ?? err.message : String(err)}`);
    }
  }
  output.appendLine(`[spore] extension ${context.extension.packageJSON.version} activated`);
  await server.restart("activation");
}

export async function deactivate(): Promise<void> {
  await server?.stop();
  server = undefined;
}
