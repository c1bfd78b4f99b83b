/**
 * Real spore.tensor/1 bundles, made by the kernel's own code (spore_kernel.tensor_view.json_text) in
 * the repository's Python, so the renderer is tested against what the kernel really sends.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";

export const repo = path.resolve(__dirname, "..", "..", "..");
const python = path.join(repo, ".venv", "bin", "python");

/** The repository's Python (the one `make` installs Spore into). */
export function venvPython(): string {
  if (!fs.existsSync(python)) throw new Error(`${python} is missing: run make (it creates the venv) first`);
  return python;
}

export const CASES: Record<string, string> = {
  matrix_nan: "ms.Tensor(np.array([[1, np.nan, 3], [np.inf, 5, -np.inf]], np.float32))",
  big4d: "ms.Tensor(np.arange(2*3*200*300, dtype=np.float32).reshape(2, 3, 200, 300))",
  empty: "ms.Tensor(np.zeros((0, 2, 2), np.float32))",
  empty5: "ms.Tensor(np.zeros((2, 3, 0, 4, 5), np.float32))",
  vector: "ms.Tensor(np.arange(10, dtype=np.int32))",
  scalar: "ms.Tensor(2.5)",
  booleans: "ms.Tensor(np.array([[True, False], [True, True]]))",
  bf16: "ms.Tensor(np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4), ms.bfloat16)",
  hostile: "ms.Parameter(ms.Tensor(np.ones((2, 2), np.float32)), name='<img src=x onerror=alert(1)>')",
  sampled: "ms.Tensor(np.broadcast_to(np.float32(1.5), (3000, 3000)))",
};

let cache: Record<string, unknown> | undefined;

export function kernelBundles(): Record<string, unknown> {
  if (cache) return cache;
  const code = [
    "import json, sys, numpy as np, spore as ms",
    "from spore_kernel.tensor_view import json_text",
    `cases = ${JSON.stringify(CASES)}`,
    "print(json.dumps({k: json.loads(json_text(eval(v))) for k, v in cases.items()}))",
  ].join("\n");
  const out = execFileSync(venvPython(), ["-c", code], {
    encoding: "utf8", maxBuffer: 64 << 20,
    env: { ...process.env, PYTHONPATH: [path.join(repo, "kernel"), path.join(repo, "engine")].join(path.delimiter), OMP_NUM_THREADS: "1" },
  });
  cache = JSON.parse(out) as Record<string, unknown>;
  return cache;
}
