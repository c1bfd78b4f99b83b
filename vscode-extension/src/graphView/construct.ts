/**
 * Which construct (or function) holds a line of Python source, from the text alone: the Show Graph
 * command decides with it whether the cursor is somewhere a graph can be captured, and which lines
 * the panel highlights as the cursor moves. Pure (no `vscode`), indentation-based like Python's own
 * blocks; `spore_viz.capture.find_target` makes the same choice from the AST when it runs the file.
 */

export interface Construct {
  kind: "cell" | "function";
  /** The class of a construct, or the function's name. */
  name: string;
  /** 0-based first line (the first decorator's) and last line of the block. */
  start: number;
  end: number;
}

interface Block {
  kind: "class" | "def";
  name: string;
  indent: number;
  start: number;
  end: number;
  parent?: Block;
  jit: boolean;
}

const DEF = /^(\s*)(?:async\s+)?def\s+([A-Za-z_]\w*)\s*\(/;
const CLASS = /^(\s*)class\s+([A-Za-z_]\w*)\s*[(:]/;
const DECORATOR = /^\s*@\s*([\w.]+)/;

function indentOf(line: string): number {
  let n = 0;
  for (const ch of line) {
    if (ch === " ") n += 1;
    else if (ch === "\t") n += 8 - (n % 8);
    else break;
  }
  return n;
}

function blank(line: string): boolean {
  const t = line.trim();
  return t === "" || t.startsWith("#");
}

/** Every class and def of `text`, with its line span and enclosing block. */
export function blocks(text: string): Block[] {
  const lines = text.split(/\r?\n/);
  const out: Block[] = [];
  const open: Block[] = [];
  let decoStart = -1;
  let jit = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (blank(line)) continue;
    const ind = indentOf(line);
    while (open.length && ind <= open[open.length - 1].indent) open.pop();
    const deco = DECORATOR.exec(line);
    if (deco) {
      if (decoStart < 0) decoStart = i;
      const last = deco[1].split(".").pop();
      if (last === "jit" || last === "ms_function") jit = true;
      continue;
    }
    const m = DEF.exec(line) ?? CLASS.exec(line);
    if (m) {
      const b: Block = { kind: line.trimStart().startsWith("class") ? "class" : "def", name: m[2], indent: ind,
                         start: decoStart >= 0 ? decoStart : i, end: i, parent: open[open.length - 1], jit };
      out.push(b);
      open.push(b);
    }
    decoStart = -1;
    jit = false;
    for (const b of open) b.end = i;
  }
  return out;
}

/** The innermost Cell construct or function holding 0-based `line`, as capture would choose it. */
export function constructAt(text: string, line: number): Construct | undefined {
  let best: { depth: number; c: Construct } | undefined;
  for (const b of blocks(text)) {
    if (b.kind !== "def" || line < b.start || line > b.end) continue;
    let depth = 0;
    for (let p = b.parent; p; p = p.parent) depth++;
    let c: Construct | undefined;
    if (b.parent?.kind === "class" && b.name === "construct") c = { kind: "cell", name: b.parent.name, start: b.start, end: b.end };
    else if (b.parent?.kind !== "class" || b.jit) c = { kind: "function", name: b.name, start: b.start, end: b.end };
    if (c && (!best || depth >= best.depth)) best = { depth, c };
  }
  return best?.c;
}
