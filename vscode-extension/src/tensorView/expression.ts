/**
 * What "Spore: Inspect Tensor" evaluates and how it reads the answer, without `vscode`: the
 * expression under the cursor (or the selection), the debuggee-side expression that returns the
 * tensor JSON as a string, and the parsing of a kernel's mime bundle or a DAP `evaluate` result.
 */
import type { EvaluateResult } from "../kernelApi";
import { type Parsed, TENSOR_MIME, type TensorBundle, parseBundle } from "./model";

export const MAX_EXPRESSION = 500;

const PY_KEYWORDS = new Set([
  "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue", "def", "del",
  "elif", "else", "except", "finally", "for", "from", "global", "if", "import", "in", "is", "lambda", "nonlocal",
  "not", "or", "pass", "raise", "return", "try", "while", "with", "yield",
]);
const WORD = /[A-Za-z0-9_\u00C0-\uFFFF]/;

/**
 * The name chain ending at the identifier under `character` in `line`: on `weight` in
 * `y = net.fc1.weight + b` it is `net.fc1.weight`, on `fc1` it is `net.fc1`; subscripts to the left
 * are kept (`xs[0].grad`). Undefined when the cursor is on no identifier, a keyword or a number.
 */
export function expressionAt(line: string, character: number): string | undefined {
  let end = character;
  if (!WORD.test(line[end] ?? "") && WORD.test(line[end - 1] ?? "")) end -= 1; // cursor just after a name
  if (!WORD.test(line[end] ?? "")) return undefined;
  let start = end;
  while (start > 0 && WORD.test(line[start - 1])) start--;
  while (end < line.length && WORD.test(line[end])) end++;
  const word = line.slice(start, end);
  if (/^[0-9]/.test(word) || PY_KEYWORDS.has(word)) return undefined;
  // walk left over ".name" and "[...]" links
  let left = start;
  for (;;) {
    if (line[left - 1] === "." && WORD.test(line[left - 2] ?? "")) {
      let s = left - 1;
      while (s > 0 && WORD.test(line[s - 1])) s--;
      if (/^[0-9]/.test(line.slice(s, left - 1))) break;
      left = s;
    } else if (line[left - 1] === "." && line[left - 2] === "]") {
      let p = left - 2; // over one or more [...] groups, then the name they index
      while (p >= 0 && line[p] === "]") {
        const open = matchingOpen(line, p);
        if (open === undefined) return line.slice(left, end);
        p = open - 1;
      }
      if (p < 0 || !WORD.test(line[p])) break;
      let s = p + 1;
      while (s > 0 && WORD.test(line[s - 1])) s--;
      left = s;
    } else break;
  }
  return line.slice(left, end);
}

function matchingOpen(line: string, close: number): number | undefined {
  let depth = 0;
  for (let i = close; i >= 0; i--) {
    if (line[i] === "]") depth++;
    else if (line[i] === "[" && --depth === 0) return i;
  }
  return undefined;
}

/** The selection when there is one, else the expression under the cursor. */
export function pickExpression(selection: string, line: string, character: number): string | undefined {
  const chosen = selection.trim();
  return chosen ? chosen : expressionAt(line, character);
}

/** Why `expr` cannot be evaluated as one expression, or undefined when it can be tried. */
export function expressionProblem(expr: string): string | undefined {
  if (!expr.trim()) return "the expression is empty";
  if (/[\r\n]/.test(expr)) return "select a single-line expression (the selection spans lines)";
  if (expr.length > MAX_EXPRESSION) return `the expression is longer than ${MAX_EXPRESSION} characters`;
  return undefined;
}

/** What a debuggee evaluates: the tensor JSON as one string, through a module that needs no IPython. */
export function debuggeeExpression(expr: string): string {
  return `__import__('spore_kernel.tensor_view').tensor_view.json_text((${expr.trim()}))`;
}

/**
 * A Python string literal as `repr()` writes it (what debugpy returns for a str), decoded; a text
 * that is not one is returned unchanged (an adapter that sends the raw string).
 */
export function unquotePython(text: string): string {
  const s = text.trim();
  const q = s[0];
  if ((q !== "'" && q !== '"') || s.length < 2 || s[s.length - 1] !== q) return s;
  const body = s.slice(1, -1);
  let out = "";
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (c !== "\\") { out += c; continue; }
    const n = body[++i];
    const simple: Record<string, string> = { "\\": "\\", "'": "'", '"': '"', n: "\n", r: "\r", t: "\t", "0": "\0", a: "\x07", b: "\b", f: "\f", v: "\v" };
    if (n in simple) out += simple[n];
    else if (n === "x" || n === "u" || n === "U") {
      const len = n === "x" ? 2 : n === "u" ? 4 : 8;
      const hex = body.slice(i + 1, i + 1 + len);
      if (!/^[0-9a-fA-F]+$/.test(hex) || hex.length !== len) return s;
      out += String.fromCodePoint(parseInt(hex, 16));
      i += len;
    } else out += `\\${n ?? ""}`;
  }
  return out;
}

/**
 * The bundle in a DAP evaluate result (the string json_text returned), or what went wrong. pydevd
 * answers an expression that raised with success and the exception as the value (`type` is then
 * the exception's class, e.g. "TypeError", and `result` its repr): that is an error, not JSON.
 */
export function bundleFromDapResult(expr: string, result: string, type?: string): Parsed<TensorBundle> {
  if (type !== undefined && type !== "" && type !== "str") return { ok: false, error: explainDapError(expr, result) };
  const text = unquotePython(result);
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { ok: false, error: `${expr}: the debuggee did not return tensor JSON (got ${clip(result)})` };
  }
  return parseBundle(raw);
}

/** A DAP evaluate error, said plainly (the usual ones: not a tensor, no Spore in the debuggee). */
export function explainDapError(expr: string, message: string): string {
  if (/No module named '?spore_kernel/.test(message)) {
    return `${expr}: the debugged Python cannot import spore_kernel (install spore-ide in its environment)`;
  }
  const notTensor = /expected a Spore Tensor or Parameter, got ([\w.]+)/.exec(message);
  if (notTensor) return `${expr} is a ${notTensor[1]}, not a Spore Tensor or Parameter`;
  return `${expr}: ${clip(message)}`;
}

/** The bundle in a kernel's evaluate reply, or a sentence saying why there is none. */
export function bundleFromEvaluate(expr: string, reply: EvaluateResult): Parsed<TensorBundle> {
  if (!reply.ok) return { ok: false, error: `${expr}: ${reply.error ?? "the kernel could not evaluate it"}` };
  const data = reply.data ?? {};
  if (TENSOR_MIME in data) return parseBundle(data[TENSOR_MIME]);
  const plain = typeof data["text/plain"] === "string" ? ` (its value: ${clip(data["text/plain"] as string)})` : "";
  return { ok: false, error: `${expr} is not a Spore Tensor or Parameter${plain}` };
}

function clip(text: string, n = 120): string {
  const one = text.replace(/\s+/g, " ").trim();
  return one.length > n ? `${one.slice(0, n - 1)}…` : one;
}

/** Debug types whose `evaluate` runs Python in the debuggee (Spore's adapter fronts debugpy). */
export function isTensorDebugType(type: string | undefined): boolean {
  return type === "spore" || type === "debugpy" || type === "python";
}

/**
 * The expression a command argument names: a string (from another command or a keybinding's args),
 * or the Variables view's context-menu argument `{variable: {evaluateName, name}}`.
 */
export function expressionFromArgument(arg: unknown): string | undefined {
  if (typeof arg === "string") return arg.trim() || undefined;
  if (typeof arg !== "object" || arg === null) return undefined;
  const variable = (arg as { variable?: unknown }).variable;
  if (typeof variable !== "object" || variable === null) return undefined;
  const { evaluateName, name } = variable as { evaluateName?: unknown; name?: unknown };
  if (typeof evaluateName === "string" && evaluateName.trim()) return evaluateName.trim();
  return typeof name === "string" && /^[A-Za-z_]\w*$/.test(name) ? name : undefined;
}
