/**
 * Jupyter iopub messages -> VS Code cell output operations, as plain data (no `vscode` import), so
 * the rules are unit-tested under node: consecutive stream chunks of one name grow one output,
 * every mime type of a bundle becomes an item (richest first: VS Code shows the first it can
 * render), `display_id` updates replace the outputs that showed that id (in any cell), and
 * `clear_output(wait=True)` clears only when the next output arrives, as Jupyter does.
 * The controller turns each operation into one NotebookCellExecution call.
 */

export interface OutputItemDesc {
  mime: string;
  data: Uint8Array;
}

/** What VS Code's built-in ipynb serializer reads back when it saves the notebook. */
export interface OutputMetadata {
  outputType: "stream" | "display_data" | "execute_result" | "error";
  metadata?: unknown;
  transient?: unknown;
  executionCount?: number | null;
}

export interface OutputDesc {
  /** Stable for this session: display updates and stream chunks name the output by it. */
  key: string;
  items: OutputItemDesc[];
  metadata: OutputMetadata;
}

export type OutputOp =
  | { op: "append"; output: OutputDesc }
  | { op: "appendItems"; key: string; items: OutputItemDesc[] }
  | { op: "replaceItems"; key: string; items: OutputItemDesc[] }
  | { op: "clear" };

export const STDOUT_MIME = "application/vnd.code.notebook.stdout";
export const STDERR_MIME = "application/vnd.code.notebook.stderr";
export const ERROR_MIME = "application/vnd.code.notebook.error";

const encoder = new TextEncoder();
const BINARY_IMAGES = new Set(["image/png", "image/jpeg", "image/gif", "image/webp", "image/bmp"]);
// after Spore's own views (their renderers): the order VS Code's own renderers prefer, text last
const RICHNESS = ["application/vnd.jupyter.widget-view+json", "text/html", "image/svg+xml", "image/png", "image/jpeg",
  "image/gif", "text/markdown", "text/latex", "application/json", "application/javascript"];

function rank(mime: string): number {
  if (mime.startsWith("application/vnd.spore.")) return -1;
  if (mime === "text/plain") return RICHNESS.length + 1;
  const at = RICHNESS.indexOf(mime);
  return at >= 0 ? at : RICHNESS.length;
}

/** The mime types of a bundle, richest first (stable among equals). */
export function orderMimes(mimes: readonly string[]): string[] {
  return mimes.map((m, i) => ({ m, i })).sort((a, b) => rank(a.m) - rank(b.m) || a.i - b.i).map((x) => x.m);
}

function isJsonMime(mime: string): boolean {
  return mime === "application/json" || mime.endsWith("+json");
}

/** nbformat allows multi-line strings as arrays of lines; the protocol sends strings. Accept both. */
function asText(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (Array.isArray(value) && value.every((v) => typeof v === "string")) return value.join("");
  return undefined;
}

function base64ToBytes(text: string): Uint8Array {
  return new Uint8Array(Buffer.from(text.replace(/\s+/g, ""), "base64"));
}

/** One item per mime type of a Jupyter mime bundle. */
export function bundleItems(data: Record<string, unknown>): OutputItemDesc[] {
  const items: OutputItemDesc[] = [];
  for (const mime of orderMimes(Object.keys(data))) {
    const value = data[mime];
    const text = asText(value);
    let bytes: Uint8Array;
    if (BINARY_IMAGES.has(mime) && text !== undefined) bytes = base64ToBytes(text);
    else if (isJsonMime(mime) || text === undefined) bytes = encoder.encode(JSON.stringify(value));
    else bytes = encoder.encode(text);
    items.push({ mime, data: bytes });
  }
  return items;
}

export function streamItem(name: string, text: string): OutputItemDesc {
  return { mime: name === "stderr" ? STDERR_MIME : STDOUT_MIME, data: encoder.encode(text) };
}

/** VS Code's error item (what NotebookCellOutputItem.error builds); the stack keeps IPython's ANSI
 *  colours, which VS Code renders in error outputs. */
export function errorItem(content: Record<string, unknown>): OutputItemDesc {
  const traceback = Array.isArray(content.traceback) ? content.traceback.map(String) : [];
  const value = { name: String(content.ename ?? "Error"), message: String(content.evalue ?? ""), stack: traceback.join("\n") };
  return { mime: ERROR_MIME, data: encoder.encode(JSON.stringify(value)) };
}

/**
 * Carriage returns (progress bars) applied: text after a `\r` overwrites its line from the start.
 * Only used once a stream has carried a `\r`; plain streams are appended chunk by chunk.
 */
export function applyCarriageReturns(text: string): string {
  return text.split("\n").map((line) => {
    if (!line.includes("\r")) return line;
    let out = "";
    for (const part of line.split("\r")) out = part + out.slice(part.length);
    return out;
  }).join("\n");
}

/** display_id -> the outputs that show it, across the notebook's cells. */
export class DisplayRegistry {
  private readonly byId = new Map<string, Set<string>>();

  add(displayId: string, key: string): void {
    let keys = this.byId.get(displayId);
    if (keys === undefined) this.byId.set(displayId, (keys = new Set()));
    keys.add(key);
  }

  keys(displayId: string): string[] {
    return [...(this.byId.get(displayId) ?? [])];
  }

  /** Outputs that were cleared no longer receive updates. */
  forget(keys: Iterable<string>): void {
    const gone = new Set(keys);
    for (const [id, set] of this.byId) {
      for (const k of gone) set.delete(k);
      if (set.size === 0) this.byId.delete(id);
    }
  }
}

function displayIdOf(content: Record<string, unknown>): string | undefined {
  const transient = content.transient as { display_id?: unknown } | undefined;
  return typeof transient?.display_id === "string" ? transient.display_id : undefined;
}

/** The outputs of one cell execution. */
export class CellOutputs {
  private readonly own: string[] = [];
  private stream: { key: string; name: string; text: string; rewritten: boolean } | undefined;
  private clearPending = false;

  constructor(private readonly newKey: () => string, private readonly displays: DisplayRegistry) {}

  /** The operations one iopub output message asks for (none for types that show nothing). */
  apply(msgType: string, content: Record<string, unknown>): OutputOp[] {
    switch (msgType) {
      case "stream": return this.onStream(String(content.name ?? "stdout"), asText(content.text) ?? "");
      case "display_data":
      case "execute_result": return this.onBundle(msgType, content);
      case "update_display_data": return this.onUpdate(content);
      case "error": return this.add({ key: this.newKey(), items: [errorItem(content)], metadata: { outputType: "error" } });
      case "clear_output": return this.onClear(content.wait === true);
      default: return [];
    }
  }

  private onStream(name: string, text: string): OutputOp[] {
    if (text === "") return [];
    const ops = this.flushClear();
    const s = this.stream;
    if (s !== undefined && s.name === name && ops.length === 0) {
      s.text += text;
      if (s.rewritten || text.includes("\r")) {
        s.rewritten = true;
        return [{ op: "replaceItems", key: s.key, items: [streamItem(name, applyCarriageReturns(s.text))] }];
      }
      return [{ op: "appendItems", key: s.key, items: [streamItem(name, text)] }];
    }
    const key = this.newKey();
    const rewritten = text.includes("\r");
    ops.push(...this.add({ key, items: [streamItem(name, rewritten ? applyCarriageReturns(text) : text)],
      metadata: { outputType: "stream" } }));
    this.stream = { key, name, text, rewritten };
    return ops;
  }

  private onBundle(msgType: "display_data" | "execute_result", content: Record<string, unknown>): OutputOp[] {
    const key = this.newKey();
    const metadata: OutputMetadata = { outputType: msgType, metadata: content.metadata ?? {} };
    if (content.transient !== undefined) metadata.transient = content.transient;
    if (msgType === "execute_result") metadata.executionCount = (content.execution_count as number | null | undefined) ?? null;
    const ops = this.add({ key, items: bundleItems((content.data ?? {}) as Record<string, unknown>), metadata });
    const displayId = displayIdOf(content);
    if (displayId !== undefined) this.displays.add(displayId, key);
    return ops;
  }

  private onUpdate(content: Record<string, unknown>): OutputOp[] {
    const displayId = displayIdOf(content);
    if (displayId === undefined) return [];
    const items = bundleItems((content.data ?? {}) as Record<string, unknown>);
    return this.displays.keys(displayId).map((key) => ({ op: "replaceItems", key, items }));
  }

  private onClear(wait: boolean): OutputOp[] {
    if (wait) {
      this.clearPending = true;
      return [];
    }
    this.clearPending = true;
    return this.flushClear();
  }

  private flushClear(): OutputOp[] {
    if (!this.clearPending) return [];
    this.clearPending = false;
    this.displays.forget(this.own);
    this.own.length = 0;
    this.stream = undefined;
    return [{ op: "clear" }];
  }

  private add(output: OutputDesc): OutputOp[] {
    const ops = this.flushClear();
    if (output.metadata.outputType !== "stream") this.stream = undefined;
    this.own.push(output.key);
    ops.push({ op: "append", output });
    return ops;
  }
}
