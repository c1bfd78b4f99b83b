/**
 * Notebook renderer for `application/vnd.spore.graph+json` (the kernel's `%spore_graph` output):
 * the interactive viewer, themed, in the output. A click on a node with a source location posts
 * `{type: "reveal", file, line, col, cellId?}` to the extension (src/graphView/reveal.ts), which
 * opens that line in its cell or file; moving the cursor in a cell marks the nodes of that line in
 * the graphs made from the cell (`{type: "highlight", cellId, lines}` from the extension). DOM contract for the e2e suite: the root element has class
 * `spore-graph-view`; op nodes carry `data-node-id` and, when located, `data-line`.
 */
import type { ActivationFunction } from "vscode-notebook-renderer";
import type { Viewer } from "../../../visualizer/spore_viz/assets/viewer.js";
import { mountGraph, showNotice } from "../graphViewer/host";
import { filesForCell, parseToWebview, viewOf } from "../graphViewer/protocol";

export const activate: ActivationFunction = (context) => {
  const viewers = new Map<string, { viewer: Viewer; view: Record<string, unknown> }>();
  // the extension posts the cursor's cell and line: the graphs made from that cell mark its nodes
  context.onDidReceiveMessage?.((raw) => {
    const msg = parseToWebview(raw);
    if (msg?.type !== "highlight" || msg.cellId === undefined) return;
    for (const { viewer, view } of viewers.values()) {
      viewer.highlightLines(filesForCell(view, msg.cellId)[0] ?? "\0no such cell", msg.lines);
    }
  });
  const drop = (id: string) => {
    viewers.get(id)?.viewer.destroy();
    viewers.delete(id);
  };
  return {
    renderOutputItem(item, element) {
      drop(item.id);
      const root = document.createElement("div");
      element.replaceChildren(root);
      let data: unknown;
      try {
        data = item.json();
      } catch {
        showNotice(root, "Spore graph: the output is not valid JSON.");
        return;
      }
      const found = viewOf(data);
      if ("error" in found) {
        showNotice(root, `Spore graph: ${found.error}.`);
        return;
      }
      try {
        const viewer = mountGraph(root, found.view, "output", {
          wheelZoom: "modifier",  // the wheel keeps scrolling the notebook
          onReveal(loc) {
            // requiresMessaging is "optional": postMessage is absent where the host offers no messaging
            context.postMessage?.({ type: "reveal", ...loc });
          },
        });
        viewers.set(item.id, { viewer, view: found.view });
      } catch (err) {
        showNotice(root, `Spore graph: ${err instanceof Error ? err.message : String(err)}`);
      }
    },
    disposeOutputItem(id) {
      if (id === undefined) {
        for (const key of [...viewers.keys()]) drop(key);
      } else {
        drop(id);
      }
    },
  };
};
