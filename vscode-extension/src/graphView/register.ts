/** SCAFFOLD: replaced by the graphView feature (issue 13). */
import * as vscode from "vscode";
import type { FeatureEnv } from "../features";

export function register(env: FeatureEnv): void {
  env.context.subscriptions.push(
    vscode.commands.registerCommand("spore.showGraph", () => vscode.window.showInformationMessage("SCAFFOLD spore.showGraph")),
  );
}
