/**
 * One notebook's Spore kernel: a bridge process (`python -m spore_kernel.bridge`) and its kernel,
 * the queue of cells to run in order, and the KernelSession other features use to evaluate
 * expressions. Cells run one after another; a cell that fails ends the cells queued behind it
 * without running them, as Jupyter does.
 */
import * as os from "node:os";
import * as path from "node:path";
import * as vscode from "vscode";
import type { EvaluateResult, KernelSession } from "../kernelApi";
import { setKernelSession } from "../kernelApi";
import { probeModule } from "../probe";
import { pythonFor } from "../python";
import { BridgeClient, describeExit } from "./bridgeClient";
import { CellOutputs, DisplayRegistry, OutputDesc, OutputItemDesc, OutputOp } from "./outputs";
import type { BridgeEvent, ExecuteReply, StartReply } from "./protocol";

interface Running {
  requestId: number;
  execution: vscode.NotebookCellExecution;
  outputs: CellOutputs;
}

function toItems(items: OutputItemDesc[]): vscode.NotebookCellOutputItem[] {
  return items.map((i) => new vscode.NotebookCellOutputItem(i.data, i.mime));
}

/** The folder the kernel runs in: the notebook's own, else the workspace's, else the home directory. */
function kernelCwd(notebook: vscode.NotebookDocument): string {
  if (notebook.uri.scheme === "file") return path.dirname(notebook.uri.fsPath);
  const folder = vscode.workspace.getWorkspaceFolder(notebook.uri) ?? vscode.workspace.workspaceFolders?.[0];
  return folder?.uri.scheme === "file" ? folder.uri.fsPath : os.homedir();
}

export class NotebookSession implements KernelSession, vscode.Disposable {
  private client: BridgeClient | undefined;
  private starting: Promise<BridgeClient> | undefined;
  private queue: Promise<void> = Promise.resolve();
  /** Executions created but not started yet, in order; a failure or a restart ends them. */
  private readonly queued = new Set<vscode.NotebookCellExecution>();
  private running: Running | undefined;
  private opChain: Promise<unknown> = Promise.resolve();
  private readonly outputsByKey = new Map<string, vscode.NotebookCellOutput>();
  private readonly displays = new DisplayRegistry();
  private keyCounter = 0;
  private disposed = false;
  private readonly executed = new vscode.EventEmitter<void>();
  readonly onDidExecute: vscode.Event<void> = this.executed.event;

  constructor(
    readonly notebook: vscode.NotebookDocument,
    private readonly controller: vscode.NotebookController,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  private get label(): string {
    return path.basename(this.notebook.uri.path);
  }

  /** Start the bridge and kernel once; later calls share the same start. */
  ensureStarted(): Promise<BridgeClient> {
    if (this.client?.running) return Promise.resolve(this.client);
    if (this.starting === undefined) {
      this.starting = this.start().finally(() => { this.starting = undefined; });
    }
    return this.starting;
  }

  private async start(): Promise<BridgeClient> {
    if (this.disposed) throw new Error("the notebook was closed");
    const python = await pythonFor(this.notebook.uri);
    const probe = await probeModule(python.command, "spore_kernel");
    if (!probe.ok) {
      throw new Error(`${probe.reason} (chosen from ${python.detail}). Set spore.pythonPath to an interpreter that has Spore (spore-ide) installed.`);
    }
    const cwd = kernelCwd(this.notebook);
    this.log.info(`[${this.label}] starting ${python.command} -m spore_kernel.bridge (python: ${python.detail}; cwd ${cwd})`);
    const client = new BridgeClient({ python: python.command, cwd });
    client.onLog((line) => this.log.info(`[${this.label}] ${line}`));
    client.onEvent((e) => this.onEvent(client, e));
    void client.exited.then((exit) => this.onBridgeExit(client, describeExit(exit)));
    const reply = await client.request<StartReply>("start", { cwd });
    if (!reply.ok) {
      client.kill();
      throw new Error(`the Spore kernel did not start: ${reply.error}`);
    }
    const k = reply.kernel;
    this.log.info(`[${this.label}] kernel ${k.display_name} from ${k.source === "installed" ? `the kernelspec in ${k.spec}`
      : "the built-in kernelspec (none installed)"}: ${k.argv.join(" ")} over ${reply.connection.transport}, pid ${k.pid}`);
    if (this.disposed) {
      await client.shutdown();
      throw new Error("the notebook was closed");
    }
    this.client = client;
    setKernelSession(this.notebook, this);
    return client;
  }

  /** Queue `cells` behind whatever runs now; resolves when they have all run (or were ended). */
  executeCells(cells: readonly vscode.NotebookCell[]): Promise<void> {
    const executions: vscode.NotebookCellExecution[] = [];
    for (const cell of cells) {
      if (cell.kind !== vscode.NotebookCellKind.Code) continue;
      try {
        const execution = this.controller.createNotebookCellExecution(cell);
        this.queued.add(execution);
        execution.token.onCancellationRequested(() => {
          if (this.queued.delete(execution)) execution.end(undefined);
        });
        executions.push(execution);
      } catch (err) {
        // a cell already queued or running (run twice): VS Code refuses a second execution
        this.log.warn(`[${this.label}] cell ${cell.index + 1} not queued: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    const run = this.queue.then(async () => {
      for (const execution of executions) {
        if (!this.queued.delete(execution)) continue; // ended meanwhile (an earlier failure, a cancel)
        const ok = await this.runCell(execution);
        if (!ok) this.endQueued();
      }
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  private endQueued(): void {
    for (const execution of this.queued) execution.end(undefined);
    this.queued.clear();
  }

  private async runCell(execution: vscode.NotebookCellExecution): Promise<boolean> {
    execution.start(Date.now());
    await execution.clearOutput();
    let client: BridgeClient;
    try {
      client = await this.ensureStarted();
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      await execution.appendOutput(new vscode.NotebookCellOutput([
        vscode.NotebookCellOutputItem.error({ name: "Spore kernel", message }),
      ]));
      execution.end(false, Date.now());
      void this.offerOutput(`Spore: ${message}`);
      return false;
    }
    const cellUri = execution.cell.document.uri.toString();
    const sent = client.send<ExecuteReply>("execute", {
      code: execution.cell.document.getText(), cell: cellUri, metadata: { cellId: cellUri },
    });
    this.running = { requestId: sent.id, execution, outputs: new CellOutputs(() => `o${++this.keyCounter}`, this.displays) };
    let reply: ExecuteReply | undefined;
    try {
      reply = await sent.reply;
    } catch (err) {
      this.log.error(`[${this.label}] ${err instanceof Error ? err.message : String(err)}`);
    }
    this.running = undefined;
    await this.opChain;
    if (reply === undefined || !reply.ok) {
      // the kernel died, was restarted or the bridge went away: say so in the cell, not only in a toast
      const name = reply?.dead ? "Kernel died" : reply?.restarted ? "Kernel restarted" : "Spore kernel";
      await execution.appendOutput(new vscode.NotebookCellOutput([
        vscode.NotebookCellOutputItem.error({ name, message: reply?.error ?? "the Spore kernel bridge stopped" }),
      ]));
    }
    if (reply?.ok && typeof reply.execution_count === "number") execution.executionOrder = reply.execution_count;
    const success = reply?.ok === true && reply.status === "ok";
    execution.end(success, Date.now());
    this.executed.fire();
    return success;
  }

  private onEvent(client: BridgeClient, e: BridgeEvent): void {
    if (client !== this.client && this.client !== undefined) return;
    switch (e.event) {
      case "output": {
        const r = this.running;
        if (r === undefined || e.id !== r.requestId) {
          if (e.msg_type === "update_display_data" && r !== undefined) this.applyOps(r, r.outputs.apply(e.msg_type, e.content));
          return; // output of no running cell (a thread an older cell started): nowhere to show it
        }
        this.applyOps(r, r.outputs.apply(e.msg_type, e.content));
        return;
      }
      case "input_request":
        void this.answerInput(client, e.prompt, e.password);
        return;
      case "kernel_died":
        this.log.error(`[${this.label}] ${e.message}`);
        void this.offerRestart(`The Spore kernel of ${this.label} died (exit code ${e.exit_code}).`);
        return;
      case "error":
        this.log.error(`[${this.label}] the bridge refused a line: ${e.message}`);
        return;
      default:
        return;
    }
  }

  /** Apply output operations in order (each VS Code call waits for the one before). */
  private applyOps(r: Running, ops: OutputOp[]): void {
    for (const op of ops) {
      this.opChain = this.opChain.then(() => this.applyOp(r.execution, op)).catch((err) => {
        this.log.warn(`[${this.label}] output update failed: ${err instanceof Error ? err.message : String(err)}`);
      });
    }
  }

  private async applyOp(execution: vscode.NotebookCellExecution, op: OutputOp): Promise<void> {
    switch (op.op) {
      case "append": {
        const out = this.makeOutput(op.output);
        await execution.appendOutput(out);
        return;
      }
      case "appendItems": {
        const out = this.outputsByKey.get(op.key);
        if (out !== undefined) await execution.appendOutputItems(toItems(op.items), out);
        return;
      }
      case "replaceItems": {
        const out = this.outputsByKey.get(op.key);
        if (out !== undefined) await execution.replaceOutputItems(toItems(op.items), out);
        return;
      }
      case "clear":
        await execution.clearOutput();
        return;
    }
  }

  private makeOutput(desc: OutputDesc): vscode.NotebookCellOutput {
    const out = new vscode.NotebookCellOutput(toItems(desc.items), { ...desc.metadata });
    this.outputsByKey.set(desc.key, out);
    return out;
  }

  private async answerInput(client: BridgeClient, prompt: string, password: boolean): Promise<void> {
    this.log.info(`[${this.label}] the kernel asks for input: ${JSON.stringify(prompt)}`);
    const value = await vscode.window.showInputBox({ prompt: prompt || "Input for the Spore kernel", password, ignoreFocusOut: true });
    this.log.info(`[${this.label}] input ${value === undefined ? "cancelled (sending an empty line)" : "given"}`);
    // cancel answers "" so the kernel's input() returns instead of waiting forever
    const reply = await client.request("input_reply", { value: value ?? "" }).catch((err: Error) => ({ ok: false, error: err.message }));
    if (!reply.ok) this.log.warn(`[${this.label}] input reply: ${reply.error}`);
  }

  async interrupt(): Promise<void> {
    const client = this.client;
    if (client === undefined || !client.running) return;
    const reply = await client.request("interrupt");
    if (!reply.ok) void vscode.window.showWarningMessage(`Spore: interrupt failed: ${reply.error}`);
  }

  /** Restart the kernel (a fresh bridge when the old one is gone); queued cells are dropped. */
  async restart(): Promise<void> {
    this.endQueued();
    const client = this.client;
    try {
      if (client !== undefined && client.running) {
        const reply = await client.request("restart");
        if (!reply.ok) throw new Error(reply.error ?? "restart failed");
        this.log.info(`[${this.label}] kernel restarted`);
      } else {
        this.client = undefined;
        await this.ensureStarted();
      }
      void vscode.window.setStatusBarMessage(`Spore kernel of ${this.label} restarted`, 4000);
      this.executed.fire();
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      this.log.error(`[${this.label}] restart: ${message}`);
      void this.offerRestart(`Spore: restarting the kernel of ${this.label} failed: ${message}`);
    }
  }

  async evaluate(expression: string): Promise<EvaluateResult> {
    const client = this.client;
    if (client === undefined || !client.running) return { ok: false, error: "the Spore kernel is not running" };
    try {
      const reply = await client.request("evaluate", { expression });
      return reply.ok ? { ok: true, data: reply.data as Record<string, unknown> } : { ok: false, error: reply.error };
    } catch (err) {
      return { ok: false, error: err instanceof Error ? err.message : String(err) };
    }
  }

  private onBridgeExit(client: BridgeClient, why: string): void {
    if (client !== this.client) return;
    this.client = undefined;
    setKernelSession(this.notebook, undefined);
    if (this.disposed) return;
    this.log.error(`[${this.label}] the kernel bridge exited (${why})`);
    void this.offerRestart(`The Spore kernel of ${this.label} stopped (${why}).`);
  }

  private async offerRestart(text: string): Promise<void> {
    const pick = await vscode.window.showErrorMessage(text, "Restart Kernel", "Show Output");
    if (pick === "Restart Kernel") await this.restart();
    else if (pick === "Show Output") this.log.show(true);
  }

  private async offerOutput(text: string): Promise<void> {
    const pick = await vscode.window.showErrorMessage(text, "Show Output");
    if (pick === "Show Output") this.log.show(true);
  }

  async shutdown(): Promise<void> {
    this.disposed = true;
    this.endQueued();
    const client = this.client;
    this.client = undefined;
    setKernelSession(this.notebook, undefined);
    if (client !== undefined) {
      const exit = await client.shutdown();
      this.log.info(`[${this.label}] kernel shut down (${describeExit(exit)})`);
    }
    this.executed.dispose();
  }

  dispose(): void {
    void this.shutdown();
  }
}
