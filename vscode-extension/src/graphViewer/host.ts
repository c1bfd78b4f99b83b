/**
 * The viewer mounted in a VS Code host (notebook renderer or Show Graph webview): the one viewer of
 * spore_viz (its assets are bundled from ../visualizer by esbuild, so the page and the editor never
 * drift apart) with the theme's colours. DOM only, no `vscode` import.
 */
import graphCss from "../../../visualizer/spore_viz/assets/graph.css";
import viewerCss from "../../../visualizer/spore_viz/assets/viewer.css";
import { mount, type Viewer, type ViewerHooks } from "../../../visualizer/spore_viz/assets/viewer.js";
import themeCss from "./theme.css";

const STYLE_ID = "spore-graph-view-styles";

/** Adds the viewer's styles to the document once (several outputs share one webview document). */
export function ensureStyles(doc: Document, nonce?: string): void {
  if (doc.getElementById(STYLE_ID)) return;
  const style = doc.createElement("style");
  style.id = STYLE_ID;
  if (nonce) style.nonce = nonce;
  style.textContent = `${graphCss}\n${viewerCss}\n${themeCss}`;
  doc.head.appendChild(style);
}

/** Mounts the viewer on `root` (class `spore-graph-view`, the e2e suite's anchor) in `variant` layout. */
export function mountGraph(root: HTMLElement, view: unknown, variant: "output" | "panel", hooks: ViewerHooks,
                           nonce?: string): Viewer {
  ensureStyles(root.ownerDocument, nonce);
  root.classList.add("spore-graph-view", "sv-vscode", variant === "output" ? "sv-output" : "sv-panel");
  return mount(root, view, hooks);
}

/** A plain-text notice in place of a graph (no layout in the data, a malformed payload). */
export function showNotice(root: HTMLElement, text: string): void {
  ensureStyles(root.ownerDocument);
  root.classList.add("spore-graph-view", "sv-vscode");
  root.replaceChildren();
  const p = root.ownerDocument.createElement("div");
  p.className = "sv-error";
  p.textContent = text;
  root.appendChild(p);
}
