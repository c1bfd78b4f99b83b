/**
 * What every feature module gets at activation: the extension context, the shared output channel
 * and the language server (for features that ask it, like the mode status bar).
 */
import * as vscode from "vscode";
import type { SporeLanguageServer } from "./languageClient";

export interface FeatureEnv {
  context: vscode.ExtensionContext;
  output: vscode.LogOutputChannel;
  server: SporeLanguageServer;
}
