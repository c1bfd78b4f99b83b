/**
 * Writes package.json's `contributes.debuggers` from debugger/spore_debug/configurations.json
 * (`npm run sync-debuggers`), or with `--check` fails when they differ (`npm run build` runs that, so
 * a changed configurations.json cannot ship with a stale package.json).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { debuggerContribution, parseDebuggerSpec } from "../src/debugConfig";

/** The extension folder: this file runs from out/scripts/. */
export const extensionRoot = path.resolve(__dirname, "..", "..");
export const specPath = path.resolve(extensionRoot, "..", "debugger", "spore_debug", "configurations.json");
export const packagePath = path.join(extensionRoot, "package.json");

export function expectedDebuggers(): unknown[] {
  return [debuggerContribution(parseDebuggerSpec(JSON.parse(fs.readFileSync(specPath, "utf8"))))];
}

function main(argv: string[]): number {
  const pkg = JSON.parse(fs.readFileSync(packagePath, "utf8"));
  const expected = expectedDebuggers();
  const same = JSON.stringify(pkg.contributes.debuggers) === JSON.stringify(expected);
  if (argv.includes("--check")) {
    if (same) return 0;
    console.error(`package.json's contributes.debuggers differs from ${path.relative(extensionRoot, specPath)}: run \`npm run sync-debuggers\``);
    return 1;
  }
  if (!same) {
    pkg.contributes.debuggers = expected;
    fs.writeFileSync(packagePath, JSON.stringify(pkg, null, 2) + "\n");
    console.log("package.json: contributes.debuggers written from configurations.json");
  } else {
    console.log("package.json: contributes.debuggers already agrees with configurations.json");
  }
  return 0;
}

if (require.main === module) process.exitCode = main(process.argv.slice(2));
