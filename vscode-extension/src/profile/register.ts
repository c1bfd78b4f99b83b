/**
 * "Spore: Open Profile": a Profiler trace (`spore_trace.json`) as a timeline webview, and per-line code
 * lenses ("$(watch) 3.21 ms · 12.4% · 200 calls", the codicon drawn as a stopwatch) on the source lines
 * of its events in open Python files. A lens click opens the timeline with that line's events only; a
 * click on an event reveals its line.
 *
 * Which trace: the argument (the explorer's context menu passes the file), else the active editor's file
 * when it is a spore_trace.json, else the newest spore_trace.json in the workspace, else an open dialog.
 * The loaded trace is watched: a new run's trace replaces it (and its lenses) when the file changes.
 */
import * as path from "node:path";
import * as vscode from "vscode";
import type { FeatureEnv } from "../features";
import { makeNonce, profileHtml } from "./html";
import {
  TraceError, aggregateByLine, bestSuffixMatch, checkSize, lensTitle, parseTrace, statsForFile, type LineStat, type Trace,
} from "./trace";

const TRACE_NAME = "spore_trace.json";

interface LineFilter {
  file: string;
  line: number;
}

function isLineFilter(value: unknown): value is LineFilter {
  const v = value as LineFilter | undefined;
  return typeof v === "object" && v !== null && typeof v.file === "string" && typeof v.line === "number";
}

class Profile implements vscode.Disposable {
  trace: Trace | undefined;
  uri: vscode.Uri | undefined;
  private stats = new Map<string, Map<number, LineStat>>();
  private panel: vscode.WebviewPanel | undefined;
  private ready = false;
  private filter: LineFilter | undefined;
  private watcher: vscode.FileSystemWatcher | undefined;
  private readonly lensesChanged = new vscode.EventEmitter<void>();
  readonly onDidChangeLenses = this.lensesChanged.event;

  constructor(private readonly env: FeatureEnv) {}

  /** Read, check and show a trace; false (after saying why) when it cannot be shown. */
  async load(uri: vscode.Uri, quiet = false): Promise<boolean> {
    const name = path.basename(path.dirname(uri.fsPath)) + "/" + path.basename(uri.fsPath);
    let trace: Trace;
    try {
      const stat = await vscode.workspace.fs.stat(uri);
      checkSize(stat.size, uri.fsPath);
      trace = parseTrace(new TextDecoder("utf-8").decode(await vscode.workspace.fs.readFile(uri)), uri.fsPath);
    } catch (err) {
      const why = err instanceof TraceError ? err.message
        : `${uri.fsPath} could not be read: ${err instanceof Error ? err.message : String(err)}`;
      this.env.output.appendLine(`[spore] profile: ${why}`);
      if (!quiet) void vscode.window.showErrorMessage(`Spore: cannot open the profile: ${why}`);
      return false;
    }
    this.trace = trace;
    this.stats = aggregateByLine(trace);
    if (this.uri?.toString() !== uri.toString()) this.watch(uri);
    this.uri = uri;
    this.env.output.appendLine(`[spore] profile: ${uri.fsPath}: ${trace.events.length} events, `
      + `${this.stats.size} source files`);
    this.lensesChanged.fire();
    if (this.panel) this.panel.title = `Profile: ${name}`;
    this.post();
    return true;
  }

  private watch(uri: vscode.Uri): void {
    this.watcher?.dispose();
    const dir = vscode.Uri.file(path.dirname(uri.fsPath));
    this.watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(dir, path.basename(uri.fsPath)));
    const reload = (): void => { void this.load(uri, true); };
    this.watcher.onDidChange(reload);
    this.watcher.onDidCreate(reload);
  }

  /** The stats of one document's lines, matched by path (see `statsForFile`). */
  statsFor(document: vscode.TextDocument): Map<number, LineStat> | undefined {
    if (document.uri.scheme !== "file" || this.stats.size === 0) return undefined;
    return statsForFile(this.stats, document.uri.fsPath, vscode.workspace.asRelativePath(document.uri, false));
  }

  /** Show (or re-focus) the timeline, with only one line's events when `filter` is given. */
  show(filter?: LineFilter): void {
    this.filter = filter;
    if (this.panel) {
      this.panel.reveal(undefined, true);
      this.post();
      return;
    }
    const root = vscode.Uri.joinPath(this.env.context.extensionUri, "dist", "webviews");
    const panel = vscode.window.createWebviewPanel("spore.profile", `Profile: ${this.uri ? path.basename(this.uri.fsPath) : TRACE_NAME}`,
      { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true },
      { enableScripts: true, localResourceRoots: [root], retainContextWhenHidden: true });
    this.panel = panel;
    this.ready = false;
    const script = panel.webview.asWebviewUri(vscode.Uri.joinPath(root, "profile.js")).toString();
    panel.webview.html = profileHtml(script, makeNonce());
    panel.webview.onDidReceiveMessage((msg: { type?: string; file?: unknown; line?: unknown }) => {
      if (msg?.type === "ready") {
        this.ready = true;
        this.post();
      } else if (msg?.type === "reveal" && typeof msg.file === "string" && typeof msg.line === "number") {
        void revealSource(msg.file, msg.line);
      }
    });
    panel.onDidDispose(() => { this.panel = undefined; this.ready = false; });
  }

  private post(): void {
    if (!this.panel || !this.ready || !this.trace || !this.uri) return;
    void this.panel.webview.postMessage({ type: "trace", name: this.uri.fsPath, trace: this.trace, filter: this.filter });
  }

  dispose(): void {
    this.watcher?.dispose();
    this.panel?.dispose();
    this.lensesChanged.dispose();
  }
}

/** Open a trace's source line: the file it names, else the workspace file sharing the longest path tail. */
async function revealSource(file: string, line: number): Promise<void> {
  let uri = vscode.Uri.file(file);
  try {
    await vscode.workspace.fs.stat(uri);
  } catch {
    const base = path.basename(file.replace(/\\/g, "/"));
    const found = await vscode.workspace.findFiles(`**/${base}`, "**/node_modules/**", 50);
    const best = bestSuffixMatch(file, found.map((u) => u.fsPath));
    if (!best) {
      void vscode.window.showWarningMessage(`Spore: the trace names ${file}, which is neither on this machine nor in the workspace.`);
      return;
    }
    uri = vscode.Uri.file(best);
  }
  const doc = await vscode.workspace.openTextDocument(uri);
  const at = new vscode.Position(Math.min(Math.max(line - 1, 0), doc.lineCount - 1), 0);
  await vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.One, selection: new vscode.Range(at, at) });
}

/** The trace to open: see the module doc. Undefined when the user cancels the dialog. */
async function pickTrace(): Promise<vscode.Uri | undefined> {
  const active = vscode.window.activeTextEditor?.document.uri;
  if (active && active.scheme === "file" && path.basename(active.fsPath) === TRACE_NAME) return active;
  const found = await vscode.workspace.findFiles(`**/${TRACE_NAME}`, "**/node_modules/**", 200);
  let newest: { uri: vscode.Uri; mtime: number } | undefined;
  for (const uri of found) {
    try {
      const { mtime } = await vscode.workspace.fs.stat(uri);
      if (!newest || mtime > newest.mtime) newest = { uri, mtime };
    } catch {
      // deleted since findFiles listed it
    }
  }
  if (newest) return newest.uri;
  const picked = await vscode.window.showOpenDialog({
    canSelectMany: false, openLabel: "Open Profile", title: "A Spore Profiler trace (spore_trace.json)",
    filters: { "Spore Profiler trace": ["json"] },
  });
  return picked?.[0];
}

class LineLenses implements vscode.CodeLensProvider {
  constructor(private readonly profile: Profile) {}

  get onDidChangeCodeLenses(): vscode.Event<void> {
    return this.profile.onDidChangeLenses;
  }

  provideCodeLenses(document: vscode.TextDocument): vscode.CodeLens[] {
    const stats = this.profile.statsFor(document);
    if (!stats) return [];
    const out: vscode.CodeLens[] = [];
    for (const stat of stats.values()) {
      if (stat.line > document.lineCount) continue;  // the file changed since the run
      const range = document.lineAt(stat.line - 1).range;
      out.push(new vscode.CodeLens(range, {
        title: lensTitle(stat),
        command: "spore.openProfile",
        arguments: [{ file: stat.file, line: stat.line }],
        tooltip: `${stat.ops.slice(0, 5).join(", ")}${stat.ops.length > 5 ? ", …" : ""}: click to show this line's events in the timeline`,
      }));
    }
    return out.sort((a, b) => a.range.start.line - b.range.start.line);
  }
}

export function register(env: FeatureEnv): void {
  const profile = new Profile(env);
  env.context.subscriptions.push(
    profile,
    vscode.languages.registerCodeLensProvider({ scheme: "file", language: "python" }, new LineLenses(profile)),
    vscode.commands.registerCommand("spore.openProfile", async (arg?: unknown) => {
      if (isLineFilter(arg)) {  // a lens: the loaded trace, that line only
        if (profile.trace) profile.show(arg);
        return;
      }
      const uri = arg instanceof vscode.Uri ? arg : await pickTrace();
      if (uri && await profile.load(uri)) profile.show();
    }),
  );
}
