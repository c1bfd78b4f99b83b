/** SCAFFOLD: replaced by the mode feature (issue 13). */
import * as vscode from "vscode";
import type { FeatureEnv } from "../features";

export function register(env: FeatureEnv): void {
  env.context.subscriptions.push(
    vscode.commands.registerCommand("spore.switchMode", () => vscode.window.showInformationMessage("SCAFFOLD spore.switchMode")),
  );
}
