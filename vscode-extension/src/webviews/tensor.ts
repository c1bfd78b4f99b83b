/**
 * The script of the "Spore: Inspect Tensor" panel (dist/webviews/tensor.js, loaded under the
 * panel's nonce'd CSP). The extension posts {type: "show", expression, source, bundle}; the script
 * draws it with the notebook renderer's code and keeps it as the webview state, so a panel that was
 * hidden and shown again redraws without asking the kernel or debuggee again.
 */
import { renderMessage, renderTensorView } from "../tensorView/draw";
import { parseBundle } from "../tensorView/model";

interface WebviewApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}
declare function acquireVsCodeApi(): WebviewApi;

interface ShowMessage { type: "show"; expression: string; source: string; bundle: unknown }

const api = acquireVsCodeApi();
const header = document.getElementById("spore-tensor-source");
const root = document.getElementById("spore-tensor-root");

function show(msg: ShowMessage): void {
  if (!root) return;
  if (header) header.textContent = `${msg.expression} — ${msg.source}`;
  const parsed = parseBundle(msg.bundle);
  if (parsed.ok) renderTensorView(root, parsed.value);
  else renderMessage(root, parsed.error);
}

function isShow(x: unknown): x is ShowMessage {
  return typeof x === "object" && x !== null && (x as { type?: unknown }).type === "show"
    && typeof (x as ShowMessage).expression === "string" && typeof (x as ShowMessage).source === "string";
}

window.addEventListener("message", (ev: MessageEvent) => {
  if (!isShow(ev.data)) return;
  api.setState(ev.data);
  show(ev.data);
});

const saved = api.getState();
if (isShow(saved)) show(saved);
api.postMessage({ type: "ready" });
