/** SCAFFOLD: replaced by the tensorView feature (issue 13). */
import * as vscode from "vscode";
import type { FeatureEnv } from "../features";

export function register(env: FeatureEnv): void {
  env.context.subscriptions.push(
    vscode.commands.registerCommand("spore.inspectTensor", () => vscode.window.showInformationMessage("SCAFFOLD spore.inspectTensor")),
  );
}
