/** SCAFFOLD: replaced by the graph renderer (issue 13). */
import type { ActivationFunction } from "vscode-notebook-renderer";

export const activate: ActivationFunction = () => ({
  renderOutputItem(item, element) {
    element.textContent = JSON.stringify(item.json()).slice(0, 2000);
  },
});
