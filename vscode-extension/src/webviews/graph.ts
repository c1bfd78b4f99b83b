/**
 * The "Spore: Show Graph" panel's script (classic script under the panel's nonce CSP). The payload
 * arrives by postMessage (never inlined into the HTML), the viewer mounts with the theme's colours,
 * clicks on located nodes go back as reveal messages, and the editor's cursor arrives as highlights.
 */
import type { Viewer } from "../../../visualizer/spore_viz/assets/viewer.js";
import { mountGraph, showNotice } from "../graphViewer/host";
import { filesForCell, parseToWebview } from "../graphViewer/protocol";

interface VsCodeApi {
  postMessage(message: unknown): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

const api = acquireVsCodeApi();
const nonce = (document.currentScript as HTMLScriptElement | null)?.nonce || undefined;
const root = document.getElementById("spore-graph-root") as HTMLElement;
let viewer: Viewer | undefined;
let view: Record<string, unknown> | undefined;

window.addEventListener("message", (event: MessageEvent) => {
  const msg = parseToWebview(event.data);
  if (msg === undefined) return;
  if (msg.type === "show") {
    viewer?.destroy();
    viewer = undefined;
    view = msg.view;
    try {
      viewer = mountGraph(root, msg.view, "panel", {
        keys: true,
        hash: msg.hash,
        onReveal: (loc) => api.postMessage({ type: "reveal", ...loc }),
      }, nonce);
    } catch (err) {
      const text = err instanceof Error ? err.message : String(err);
      showNotice(root, text);
      api.postMessage({ type: "error", text });
    }
  } else if (msg.type === "highlight") {
    if (!viewer || !view) return;
    if (msg.cellId !== undefined) {
      // IPython compiles each cell to one file: the cell's lines are that file's lines
      viewer.highlightLines(filesForCell(view, msg.cellId)[0] ?? "\0no such cell", msg.lines);
    } else {
      viewer.highlightLines(msg.file, msg.lines);
    }
  } else {
    viewer?.destroy();
    viewer = undefined;
    showNotice(root, msg.text);
  }
});
api.postMessage({ type: "ready" });
