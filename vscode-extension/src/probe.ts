/**
 * Before starting the language server, ask the interpreter whether it has Spore's module at all
 * (`importlib.util.find_spec`, which locates without importing: ~30 ms). An interpreter without
 * Spore is the most common set-up mistake; caught here it gives one clear message instead of the
 * language client's chain of connection errors from a server that died on `No module named`.
 */
import { execFile } from "node:child_process";

export type ProbeResult = { ok: true } | { ok: false; reason: string };

/** The argv that exits 0 when `module` is importable by `python`, 3 when it is not. */
export function probeArgs(module: string): string[] {
  return ["-c", `import importlib.util, sys; sys.exit(0 if importlib.util.find_spec(${JSON.stringify(module)}) else 3)`];
}

export function probeModule(python: string, module: string, timeoutMs = 15000): Promise<ProbeResult> {
  return new Promise((resolve) => {
    execFile(python, probeArgs(module), { timeout: timeoutMs, windowsHide: true }, (err, _stdout, stderr) => {
      if (err === null) return resolve({ ok: true });
      const code = (err as NodeJS.ErrnoException).code;
      if (code === "ENOENT") return resolve({ ok: false, reason: `${python} was not found` });
      if ((err as { code?: unknown }).code === 3) return resolve({ ok: false, reason: `${python} has no module ${module} (Spore is not installed there)` });
      if ((err as { killed?: boolean }).killed) return resolve({ ok: false, reason: `${python} did not answer within ${timeoutMs / 1000} s` });
      resolve({ ok: false, reason: `${python} failed: ${(stderr || err.message).trim().split("\n").pop()}` });
    });
  });
}
