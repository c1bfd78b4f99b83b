/**
 * A running `python -m spore_kernel.bridge`: spawns it, writes requests as JSON lines, matches each
 * reply to its request by id, and hands events and stderr lines to listeners. No `vscode` import,
 * so it is tested under node against the real Python bridge.
 */
import { ChildProcess, spawn } from "node:child_process";
import type { BridgeEvent, BridgeReply, RequestType } from "./protocol";

export interface BridgeClientOptions {
  python: string;
  /** Where the bridge process runs (the kernel's own cwd is sent with `start`). */
  cwd?: string;
  env?: NodeJS.ProcessEnv;
}

export interface BridgeExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** set when the process could not be started at all (ENOENT: no such interpreter) */
  error?: string;
}

export interface SentRequest<R extends BridgeReply = BridgeReply> {
  id: number;
  /** Resolves with the reply (ok or not); rejects only when the bridge exits before answering. */
  reply: Promise<R>;
}

export class BridgeClient {
  private readonly proc: ChildProcess;
  private nextId = 0;
  private buffer = "";
  private errBuffer = "";
  private readonly waiting = new Map<number, { resolve(r: BridgeReply): void; reject(e: Error): void }>();
  private readonly eventListeners: ((e: BridgeEvent) => void)[] = [];
  private readonly logListeners: ((line: string) => void)[] = [];
  private exitInfo: BridgeExit | undefined;
  /** Resolves once when the process has exited (or failed to start). */
  readonly exited: Promise<BridgeExit>;

  constructor(options: BridgeClientOptions) {
    this.proc = spawn(options.python, ["-m", "spore_kernel.bridge"], {
      cwd: options.cwd,
      // unbuffered: the bridge's log lines reach the output channel when they happen
      env: { ...(options.env ?? process.env), PYTHONUNBUFFERED: "1" },
      stdio: ["pipe", "pipe", "pipe"],
      windowsHide: true,
    });
    this.exited = new Promise((resolve) => {
      let spawnError: string | undefined;
      this.proc.on("error", (err) => {
        spawnError = (err as NodeJS.ErrnoException).code === "ENOENT" ? `${options.python} was not found` : err.message;
        // a process that never started emits no exit/close: finish here
        if (this.proc.pid === undefined) this.finish({ code: null, signal: null, error: spawnError }, resolve);
      });
      this.proc.on("close", (code, signal) => this.finish({ code, signal, error: spawnError }, resolve));
    });
    this.proc.stdout?.setEncoding("utf8");
    this.proc.stdout?.on("data", (chunk: string) => this.onStdout(chunk));
    this.proc.stderr?.setEncoding("utf8");
    this.proc.stderr?.on("data", (chunk: string) => this.onStderr(chunk));
    this.proc.stdin?.on("error", () => undefined); // EPIPE after the bridge died: reported through `exited`
  }

  get pid(): number | undefined {
    return this.proc.pid;
  }

  get running(): boolean {
    return this.exitInfo === undefined;
  }

  onEvent(listener: (e: BridgeEvent) => void): void {
    this.eventListeners.push(listener);
  }

  /** Each line the bridge (or the kernel) writes to stderr. */
  onLog(listener: (line: string) => void): void {
    this.logListeners.push(listener);
  }

  send<R extends BridgeReply = BridgeReply>(type: RequestType, fields: Record<string, unknown> = {}): SentRequest<R> {
    const id = ++this.nextId;
    const reply = new Promise<R>((resolve, reject) => {
      if (this.exitInfo !== undefined) {
        reject(new Error(`the Spore kernel bridge is not running (${describeExit(this.exitInfo)})`));
        return;
      }
      this.waiting.set(id, { resolve: resolve as (r: BridgeReply) => void, reject });
      this.proc.stdin?.write(JSON.stringify({ ...fields, id, type }) + "\n");
    });
    return { id, reply };
  }

  request<R extends BridgeReply = BridgeReply>(type: RequestType, fields: Record<string, unknown> = {}): Promise<R> {
    return this.send<R>(type, fields).reply;
  }

  /** Write a raw line (tests use it for malformed input). */
  writeRaw(text: string): void {
    this.proc.stdin?.write(text);
  }

  /** Ask the bridge to shut its kernel down and exit; kill it if it has not within `timeoutMs`. */
  async shutdown(timeoutMs = 8000): Promise<BridgeExit> {
    if (this.exitInfo !== undefined) return this.exitInfo;
    const polite = this.request("shutdown").catch(() => undefined);
    this.proc.stdin?.end();
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<"late">((resolve) => { timer = setTimeout(() => resolve("late"), timeoutMs); });
    const outcome = await Promise.race([this.exited, late]);
    clearTimeout(timer);
    void polite;
    if (outcome === "late") this.proc.kill("SIGKILL");
    return this.exited;
  }

  /** Kill at once; the kernel follows on its own (ipykernel polls its parent, JPY_PARENT_PID, and exits with it). */
  kill(): void {
    if (this.exitInfo === undefined) this.proc.kill("SIGKILL");
  }

  private onStdout(chunk: string): void {
    this.buffer += chunk;
    let nl: number;
    while ((nl = this.buffer.indexOf("\n")) >= 0) {
      const line = this.buffer.slice(0, nl);
      this.buffer = this.buffer.slice(nl + 1);
      if (line.trim() !== "") this.onLine(line);
    }
  }

  private onLine(line: string): void {
    let msg: unknown;
    try {
      msg = JSON.parse(line);
    } catch {
      this.log(`[bridge stdout, not a protocol line] ${line}`);
      return;
    }
    if (typeof msg !== "object" || msg === null) return this.log(`[bridge stdout, not an object] ${line}`);
    const obj = msg as Record<string, unknown>;
    if ("reply" in obj) {
      const waiter = this.waiting.get(obj.reply as number);
      if (waiter === undefined) return this.log(`[bridge] a reply to no request: ${line}`);
      this.waiting.delete(obj.reply as number);
      waiter.resolve(obj as BridgeReply);
    } else if ("event" in obj) {
      for (const listener of this.eventListeners) {
        try {
          listener(obj as BridgeEvent);
        } catch (err) {
          this.log(`[bridge] an event listener failed: ${err instanceof Error ? err.stack ?? err.message : String(err)}`);
        }
      }
    }
  }

  private onStderr(chunk: string): void {
    this.errBuffer += chunk;
    let nl: number;
    while ((nl = this.errBuffer.indexOf("\n")) >= 0) {
      this.log(this.errBuffer.slice(0, nl).replace(/\r$/, ""));
      this.errBuffer = this.errBuffer.slice(nl + 1);
    }
  }

  private log(line: string): void {
    for (const listener of this.logListeners) listener(line);
  }

  private finish(info: BridgeExit, resolve: (e: BridgeExit) => void): void {
    if (this.exitInfo !== undefined) return;
    if (this.errBuffer !== "") this.log(this.errBuffer);
    this.errBuffer = "";
    this.exitInfo = info;
    const err = new Error(`the Spore kernel bridge exited (${describeExit(info)})`);
    for (const waiter of this.waiting.values()) waiter.reject(err);
    this.waiting.clear();
    resolve(info);
  }
}

export function describeExit(e: BridgeExit): string {
  if (e.error !== undefined) return e.error;
  return e.signal !== null ? `signal ${e.signal}` : `exit code ${e.code}`;
}
