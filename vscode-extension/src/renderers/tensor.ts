/**
 * Notebook renderer for application/vnd.spore.tensor+json (package.json: spore-tensor-renderer).
 * The kernel sends that bundle next to its text/plain summary and HTML card, so front ends without
 * this renderer still show the tensor; here it becomes the interactive view of src/tensorView/draw.
 */
import type { ActivationFunction } from "vscode-notebook-renderer";
import { renderMessage, renderTensorView } from "../tensorView/draw";
import { parseBundle } from "../tensorView/model";

export const activate: ActivationFunction = () => ({
  renderOutputItem(item, element) {
    let raw: unknown;
    try {
      raw = item.json();
    } catch (err) {
      renderMessage(element, `Spore tensor: the output is not JSON (${err instanceof Error ? err.message : String(err)})`);
      return;
    }
    const parsed = parseBundle(raw);
    if (parsed.ok) renderTensorView(element, parsed.value);
    else renderMessage(element, `Spore tensor: ${parsed.error}`);
  },
});
