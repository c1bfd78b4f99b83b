/** SCAFFOLD: replaced by the notebook feature (issue 13). */
import * as vscode from "vscode";
import type { FeatureEnv } from "../features";

export function register(env: FeatureEnv): void {
  env.context.subscriptions.push(
    vscode.commands.registerCommand("spore.restartKernel", () => vscode.window.showInformationMessage("SCAFFOLD spore.restartKernel")),
    vscode.commands.registerCommand("spore.interruptKernel", () => vscode.window.showInformationMessage("SCAFFOLD spore.interruptKernel")),
  );
}
