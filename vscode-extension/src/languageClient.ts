/**
 * The Spore language server (`<python> -m spore_lsp`) over stdio, for Python files and for notebook
 * cells (the server declares LSP 3.17 notebook sync, so a notebook's cells reach it as one program).
 * A crash restarts it within a budget and always says so; a failed start names the interpreter.
 */
import * as vscode from "vscode";
import {
  CloseAction, CloseHandlerResult, ErrorAction, ErrorHandlerResult, LanguageClient, LanguageClientOptions,
  ServerOptions, State, TransportKind,
} from "vscode-languageclient/node";
import { languageServerCommand } from "./commands";
import { CrashBudget, onServerClosed } from "./crashBudget";
import { probeModule } from "./probe";
import { pythonFor } from "./python";

export class SporeLanguageServer implements vscode.Disposable {
  private client: LanguageClient | undefined;
  private readonly budget = new CrashBudget();
  private python: string | undefined;
  /** Whether the current client's server ever finished initializing (see onServerClosed). */
  private startedOnce = false;
  /** Restarts run one after another: a settings change during activation must not start two servers. */
  private queue: Promise<void> = Promise.resolve();

  private readonly started = new vscode.EventEmitter<LanguageClient>();
  /**
   * Fires each time a server has started and initialized (features that send it requests re-ask then):
   * after a start or restart of ours, and after vscode-languageclient's own restart of a crashed server.
   */
  readonly onDidStart: vscode.Event<LanguageClient> = this.started.event;
  private readonly stopped = new vscode.EventEmitter<void>();
  /** Fires when the running server stops or crashes (features drop what they showed from it). */
  readonly onDidStop: vscode.Event<void> = this.stopped.event;

  private readonly opened = new vscode.EventEmitter<vscode.Uri>();
  /**
   * Fires once the server has been sent a document's didOpen (a notebook's: each of its cells), so a
   * feature that asked about that document too early (right after a start or a crash restart, before
   * the client re-sent the open documents, the server answers "not open") asks again.
   */
  readonly onDidOpenInServer: vscode.Event<vscode.Uri> = this.opened.event;

  constructor(private readonly output: vscode.LogOutputChannel) {}

  /** The running client, for features that send the server their own requests; undefined while it is down. */
  get runningClient(): LanguageClient | undefined {
    return this.client?.isRunning() ? this.client : undefined;
  }

  /** Start (or restart) according to the current settings; stops it when `spore.lsp.enabled` is off. */
  restart(reason: string): Promise<void> {
    this.queue = this.queue.then(() => this.startFresh(reason)).catch((err) => {
      this.output.appendLine(`[spore] ${reason}: ${err instanceof Error ? err.message : String(err)}`);
    });
    return this.queue;
  }

  private async startFresh(reason: string): Promise<void> {
    await this.stop();
    this.budget.reset();
    const config = vscode.workspace.getConfiguration("spore");
    if (!config.get<boolean>("lsp.enabled", true)) {
      this.output.appendLine(`[spore] language server disabled (spore.lsp.enabled = false)`);
      return;
    }
    const python = await pythonFor(vscode.workspace.workspaceFolders?.[0]?.uri);
    this.python = python.command;
    const probe = await probeModule(python.command, "spore_lsp");
    if (!probe.ok) {
      // One message that names the interpreter and where it came from, instead of the client's connection errors.
      this.output.appendLine(`[spore] not starting the language server: ${probe.reason} (python: ${python.detail})`);
      void this.showFailure(`Spore: ${probe.reason} (chosen from ${python.detail}). `
        + "Set spore.pythonPath to an interpreter that has Spore (spore-ide) installed.");
      return;
    }
    const cmd = languageServerCommand(python.command, config.get<string[]>("lsp.args", []));
    this.output.appendLine(`[spore] ${reason}: starting ${[cmd.command, ...cmd.args].join(" ")} (python: ${python.detail})`);
    const serverOptions: ServerOptions = { command: cmd.command, args: cmd.args, transport: TransportKind.stdio };
    const clientOptions: LanguageClientOptions = {
      documentSelector: [
        { scheme: "file", language: "python" },
        { scheme: "untitled", language: "python" },
        { scheme: "vscode-notebook-cell", language: "python" },
      ],
      outputChannel: this.output,
      middleware: {
        didOpen: async (document, next) => {
          await next(document);
          this.opened.fire(document.uri);
        },
        notebooks: {
          didOpen: async (notebook, cells, next) => {
            await next(notebook, cells);
            for (const cell of cells) this.opened.fire(cell.document.uri);
          },
        },
      },
      errorHandler: {
        error: (_error, _message, count): ErrorHandlerResult =>
          ({ action: (count ?? 0) <= 3 ? ErrorAction.Continue : ErrorAction.Shutdown }),
        closed: (): CloseHandlerResult => this.onClosed(),
      },
    };
    const client = new LanguageClient("spore", "Spore Language Server", serverOptions, clientOptions);
    this.client = client;
    this.startedOnce = false;
    // A crashed server is restarted by the client itself (CloseAction.Restart below): the same client
    // object goes Running -> Stopped -> Starting -> Running, and only its state says when it is back.
    client.onDidChangeState((e) => {
      if (this.client !== client) return;
      if (e.newState === State.Stopped && e.oldState === State.Running) this.stopped.fire();
      else if (e.newState === State.Running && this.startedOnce) {
        this.output.appendLine("[spore] after the crash: the language server is ready");
        this.started.fire(client);
      }
    });
    try {
      await client.start();
      this.startedOnce = true;
      // a line to wait on (the e2e suite, a user reading the channel): the server answered initialize
      this.output.appendLine(`[spore] ${reason}: the language server is ready`);
      this.started.fire(client);
    } catch (err) {
      const text = err instanceof Error ? err.message : String(err);
      this.output.appendLine(`[spore] the language server did not start: ${text}`);
      void this.showFailure(`The Spore language server did not start with ${python.command} (${python.detail}); `
        + "its error is in the 'Spore Language Server' output. Set spore.pythonPath to an interpreter that has Spore (spore-ide) installed.");
    }
  }

  /** Restart only if the interpreter the rules pick now differs from the running server's. */
  async restartIfPythonChanged(reason: string): Promise<void> {
    if (this.client === undefined) return;
    const python = await pythonFor(vscode.workspace.workspaceFolders?.[0]?.uri);
    if (python.command !== this.python) await this.restart(reason);
  }

  private onClosed(): CloseHandlerResult {
    const decision = onServerClosed(this.startedOnce, this.budget, Date.now());
    if (decision.action === "start-failed") return { action: CloseAction.DoNotRestart, handled: true };
    if (decision.action === "restart") {
      const text = `The Spore language server stopped unexpectedly; restarting it (${decision.attempt} of ${decision.max}).`;
      this.output.appendLine(`[spore] ${text}`);
      void vscode.window.showWarningMessage(text, "Show Output").then((pick) => { if (pick) this.output.show(true); });
      return { action: CloseAction.Restart, handled: true };
    }
    const text = `The Spore language server crashed ${decision.crashes} times in 3 minutes and is not restarted again.`;
    this.output.appendLine(`[spore] ${text}`);
    void this.showFailure(text);
    return { action: CloseAction.DoNotRestart, handled: true };
  }

  private async showFailure(text: string): Promise<void> {
    const pick = await vscode.window.showErrorMessage(text, "Restart", "Show Output");
    if (pick === "Restart") await this.restart("restart requested");
    else if (pick === "Show Output") this.output.show(true);
  }

  async stop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (client === undefined) return;
    try {
      if (client.isRunning()) await client.stop(5000);
      else await client.dispose(5000);
    } catch (err) {
      this.output.appendLine(`[spore] stopping the language server: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  dispose(): void {
    void this.stop().finally(() => {
      this.started.dispose();
      this.stopped.dispose();
      this.opened.dispose();
    });
  }
}
