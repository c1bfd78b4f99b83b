/**
 * The messages and data the graph view's three hosts exchange (notebook renderer, Show Graph
 * webview, extension host), and their validation. Pure: no `vscode`, no DOM, so it is unit-tested
 * under node. Everything arriving here came from a graph file or a webview, so it is checked field
 * by field before the extension acts on it (opens a file, reveals a cell).
 */

/** The viewer payload kind `spore_viz.view_payload` writes. */
export const VIEW_KIND = "spore.view/1";
export const GRAPH_SCHEMA = "spore.graph/1";
export const GRAPH_MIME = "application/vnd.spore.graph+json";

export interface RevealMessage {
  type: "reveal";
  /** The file the graph's SourceLoc names (for notebook code: IPython's temporary cell file). */
  file: string;
  /** 1-based line. */
  line: number;
  /** 0-based column. */
  col: number;
  /** The In[n] execution count of the notebook cell (kernel graphs). */
  cellId?: number;
}

export type ViewOrError = { view: Record<string, unknown> } | { error: string };

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function isCount(v: unknown, min: number): v is number {
  return typeof v === "number" && Number.isInteger(v) && v >= min && v < 2 ** 31;
}

/**
 * The viewer payload in a graph output or a capture result: a payload itself ("spore.view/1"), or
 * the kernel's graph mime data (a "spore.graph/1" document) with the payload under `view`.
 */
export function viewOf(data: unknown): ViewOrError {
  if (!isObject(data)) return { error: "the graph output is not a JSON object" };
  const candidate = data.kind === VIEW_KIND ? data : data.view;
  if (!isObject(candidate)) {
    if (data.schema === GRAPH_SCHEMA) {
      return { error: "this graph has no viewer layout: the kernel that made it lacks spore_viz (install spore-ide there)" };
    }
    return { error: `expected a ${GRAPH_SCHEMA} graph or a ${VIEW_KIND} payload` };
  }
  if (candidate.kind !== VIEW_KIND) return { error: `unknown viewer payload kind ${JSON.stringify(String(candidate.kind)).slice(0, 60)}` };
  if (!Array.isArray(candidate.items) || !isObject(candidate.details)) return { error: "the viewer payload has no items" };
  return { view: candidate };
}

/** A reveal request from a viewer, or undefined when any field is missing or of the wrong type. */
export function parseReveal(msg: unknown): RevealMessage | undefined {
  if (!isObject(msg) || msg.type !== "reveal") return undefined;
  const { file, line, col, cellId } = msg;
  if (typeof file !== "string" || file.length === 0 || file.length > 4096 || file.includes("\0")) return undefined;
  if (!isCount(line, 1)) return undefined;
  const out: RevealMessage = { type: "reveal", file, line, col: isCount(col, 0) ? col : 0 };
  if (cellId !== undefined) {
    if (!isCount(cellId, 1)) return undefined;
    out.cellId = cellId;
  }
  return out;
}

/** Extension -> webview. */
export type ToWebview =
  | { type: "show"; view: Record<string, unknown>; hash?: string }
  | { type: "highlight"; file?: string; cellId?: number; lines: number[] }
  | { type: "message"; text: string };

/** Webview -> extension: "ready" once its script runs, reveals on clicks, errors from mount(). */
export type FromWebview = { type: "ready" } | RevealMessage | { type: "error"; text: string };

export function parseFromWebview(msg: unknown): FromWebview | undefined {
  if (!isObject(msg)) return undefined;
  if (msg.type === "ready") return { type: "ready" };
  if (msg.type === "error" && typeof msg.text === "string") return { type: "error", text: msg.text.slice(0, 2000) };
  return parseReveal(msg);
}

export function parseToWebview(msg: unknown): ToWebview | undefined {
  if (!isObject(msg)) return undefined;
  if (msg.type === "show" && isObject(msg.view)) {
    return { type: "show", view: msg.view, hash: typeof msg.hash === "string" ? msg.hash : undefined };
  }
  if (msg.type === "highlight" && Array.isArray(msg.lines)) {
    return { type: "highlight", file: typeof msg.file === "string" ? msg.file : undefined,
             cellId: isCount(msg.cellId, 1) ? msg.cellId : undefined, lines: msg.lines.filter((l) => isCount(l, 1)) };
  }
  if (msg.type === "message" && typeof msg.text === "string") return { type: "message", text: msg.text };
  return undefined;
}

/** The files a view's locations in notebook cell `cellId` name (IPython's file for that cell). */
export function filesForCell(view: Record<string, unknown>, cellId: number): string[] {
  const files = new Set<string>();
  const details = isObject(view.details) ? view.details : {};
  for (const d of Object.values(details)) {
    const loc = isObject(d) ? d.loc : undefined;
    if (isObject(loc) && loc.cell === cellId && typeof loc.file === "string") files.add(loc.file);
  }
  return [...files];
}
