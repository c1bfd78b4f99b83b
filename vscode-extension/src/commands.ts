/**
 * The processes the extension starts, as plain argv, so a test can pin them: both run as modules of
 * the chosen interpreter (`python -m spore_lsp`, `python -m spore_debug`) rather than through the
 * `spore-lsp` / `spore-debug` scripts, because the scripts sit next to the interpreter only inside a
 * venv, while `-m` works for any interpreter that has Spore installed.
 */
export interface ProcessCommand {
  command: string;
  args: string[];
}

export function languageServerCommand(python: string, extraArgs: readonly string[]): ProcessCommand {
  return { command: python, args: ["-m", "spore_lsp", ...extraArgs] };
}

export function debugAdapterCommand(python: string): ProcessCommand {
  return { command: python, args: ["-m", "spore_debug"] };
}
