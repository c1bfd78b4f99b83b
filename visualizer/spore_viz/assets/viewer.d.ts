/** Types of viewer.js for the VS Code extension's TypeScript (esbuild bundles the .js itself). */

/** The payload `spore_viz.view_payload` computes (kind "spore.view/1"); hosts treat it as opaque data. */
export interface ViewPayload {
  kind?: string;
  name: string;
  items: unknown[];
  details: Record<string, unknown>;
  sources: Record<string, Record<string, string>>;
  [key: string]: unknown;
}

/** What a click on a node with a source location hands the host. Line 1-based, col 0-based. */
export interface RevealLocation {
  file: string;
  line: number;
  col: number;
  /** The In[n] execution count of the notebook cell the code came from (kernel graphs only). */
  cellId?: number;
}

export interface ViewerHooks {
  onReveal?(loc: RevealLocation): void;
  /** Bind "/" on the whole window to the search box (only where the viewer owns the page). */
  keys?: boolean;
  /** Deep link to open on: "#select=n0&expand=all". */
  hash?: string;
  /** "modifier": the wheel zooms only with Ctrl/Cmd held, else it scrolls the host (notebook outputs). */
  wheelZoom?: "always" | "modifier";
}

export interface Viewer {
  open(hash: string): void;
  /** Mark the nodes made by these lines of `file` (any file when undefined); returns their node ids. */
  highlightLines(file: string | undefined, lines: number[]): string[];
  fit(): void;
  destroy(): void;
}

/** Builds the viewer in `root`; throws an Error naming what is wrong with a malformed payload. */
export function mount(root: HTMLElement, payload: unknown, hooks?: ViewerHooks): Viewer;
