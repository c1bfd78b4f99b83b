/**
 * Running `python -m spore_viz payload|capture` for the Show Graph command: a child process with a
 * timeout and cancellation, stdout parsed as the viewer payload, failures turned into one sentence.
 * No `vscode` import (unit-tested under node with real child processes).
 */
import { spawn } from "node:child_process";
import * as path from "node:path";

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  cancelled: boolean;
}

export interface RunOptions {
  cwd?: string;
  timeoutMs: number;
  /** Abort to kill the child (the progress notification's Cancel). */
  signal?: AbortSignal;
  env?: NodeJS.ProcessEnv;
}

/** Limit on what a child may print: a payload of a 5,000-node graph is ~3 MB. */
const MAX_OUTPUT = 256 * 1024 * 1024;

export function run(command: string, args: readonly string[], opts: RunOptions): Promise<RunResult> {
  return new Promise((resolve) => {
    const child = spawn(command, [...args], { cwd: opts.cwd, env: opts.env ?? process.env, stdio: ["ignore", "pipe", "pipe"] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let size = 0;
    let timedOut = false;
    let cancelled = false;
    let settled = false;
    const kill = () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    };
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, opts.timeoutMs);
    const onAbort = () => {
      cancelled = true;
      kill();
    };
    opts.signal?.addEventListener("abort", onAbort, { once: true });
    if (opts.signal?.aborted) onAbort();
    const collect = (into: Buffer[]) => (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_OUTPUT) kill();
      else into.push(chunk);
    };
    child.stdout.on("data", collect(out));
    child.stderr.on("data", collect(err));
    const finish = (code: number | null, extraErr = "") => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      opts.signal?.removeEventListener("abort", onAbort);
      resolve({ code, stdout: Buffer.concat(out).toString("utf8"), stderr: Buffer.concat(err).toString("utf8") + extraErr,
                timedOut, cancelled });
    };
    child.on("error", (e) => finish(null, `${e.message}\n`));
    child.on("close", (code) => finish(code));
  });
}

/** `sources`: the one folder whose files may lend their lines to the details panel (the workspace folder). */
export function payloadArgs(file: string, sources?: string): string[] {
  return ["-m", "spore_viz", "payload", file, ...(sources ? ["--sources", sources] : [])];
}

/** `line` 1-based; the Python side stops itself a little after our own kill would. */
export function captureArgs(file: string, line: number, timeoutS: number): string[] {
  return ["-m", "spore_viz", "capture", file, "--line", String(line), "--timeout", String(timeoutS)];
}

export type Outcome = { ok: true; payload: unknown } | { ok: false; message: string };

/** The last meaningful stderr line: spore-viz prints one sentence, Python a traceback ending in one. */
function lastLine(stderr: string): string {
  const lines = stderr.split(/\r?\n/).map((l) => l.trim()).filter(Boolean);
  const own = lines.filter((l) => l.startsWith("spore-viz")).pop();
  return (own ?? lines.pop() ?? "").replace(/^spore-viz(?: capture)?: /, "");
}

/** What to tell the user about a run of `what` ("running train.py", "reading g.json"). */
export function outcome(res: RunResult, what: string, timeoutS: number): Outcome {
  if (res.cancelled) return { ok: false, message: `Spore: Show Graph cancelled (${what}).` };
  if (res.timedOut) {
    return { ok: false, message: `Spore: ${what} did not reach the graph within ${timeoutS} s (setting spore.graph.captureTimeout).` };
  }
  if (res.code === 0) {
    try {
      return { ok: true, payload: JSON.parse(res.stdout) };
    } catch {
      return { ok: false, message: `Spore: ${what} printed no graph (its output is not JSON).` };
    }
  }
  if (res.code === null) return { ok: false, message: `Spore: could not start Python for ${what}: ${lastLine(res.stderr)}` };
  if (/No module named spore_viz/.test(res.stderr)) {
    return { ok: false, message: "Spore: this Python has no spore_viz (install spore-ide in it, or set spore.pythonPath)." };
  }
  return { ok: false, message: `Spore: ${lastLine(res.stderr) || `${what} failed (exit code ${res.code})`}` };
}

export function describeFile(file: string): string {
  return path.basename(file);
}
