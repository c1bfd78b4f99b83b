/**
 * The `spore` debug type as VS Code sees it, derived from the one declaration the debugger owns:
 * `debugger/spore_debug/configurations.json` (nvim-dap users and the README read the same file).
 * `debuggerContribution` turns it into package.json's `contributes.debuggers[0]`; the sync script
 * writes that and a unit test checks that package.json agrees, so the two cannot drift.
 */

/** The shape of configurations.json (only what the extension uses is typed). */
export interface DebuggerSpec {
  type: string;
  label: string;
  adapter?: unknown;
  configurationAttributes: Record<string, unknown>;
  initialConfigurations: Record<string, unknown>[];
  configurationSnippets: Record<string, unknown>[];
  examples?: unknown;
}

export interface DebuggerContribution {
  type: string;
  label: string;
  languages: string[];
  configurationAttributes: Record<string, unknown>;
  initialConfigurations: Record<string, unknown>[];
  configurationSnippets: Record<string, unknown>[];
}

/** Check the fields VS Code needs are there, so a broken JSON fails the build, not the user's F5. */
export function parseDebuggerSpec(json: unknown): DebuggerSpec {
  if (typeof json !== "object" || json === null || Array.isArray(json)) throw new Error("configurations.json: not an object");
  const o = json as Record<string, unknown>;
  for (const key of ["type", "label"]) {
    if (typeof o[key] !== "string") throw new Error(`configurations.json: "${key}" must be a string`);
  }
  if (typeof o.configurationAttributes !== "object" || o.configurationAttributes === null) {
    throw new Error('configurations.json: "configurationAttributes" must be an object');
  }
  for (const key of ["initialConfigurations", "configurationSnippets"]) {
    if (!Array.isArray(o[key])) throw new Error(`configurations.json: "${key}" must be an array`);
  }
  return o as unknown as DebuggerSpec;
}

/**
 * The package.json entry. The adapter command is not declared there: a DebugAdapterDescriptorFactory
 * starts `<python> -m spore_debug` with the interpreter resolved at session start. `examples` are
 * documentation (README's launch.json), not a VS Code field.
 */
export function debuggerContribution(spec: DebuggerSpec): DebuggerContribution {
  return {
    type: spec.type,
    label: spec.label,
    languages: ["python"],
    configurationAttributes: spec.configurationAttributes,
    initialConfigurations: spec.initialConfigurations,
    configurationSnippets: spec.configurationSnippets,
  };
}

/** What "Spore: Debug Current File" launches (the same as the JSON's first initial configuration). */
export function currentFileConfiguration(file: string): Record<string, unknown> {
  return {
    type: "spore",
    request: "launch",
    name: "Spore: current file",
    program: file,
    console: "integratedTerminal",
    justMyCode: true,
  };
}

/**
 * VS Code's resolveDebugConfiguration step. F5 without a launch.json hands an empty configuration:
 * debug the active Python file then. A launch with neither `program` nor `module` gets the active
 * file as its program. Returns undefined when there is nothing sensible to debug (VS Code then
 * opens launch.json).
 */
export function resolveLaunch(config: Record<string, unknown>, activePythonFile: string | undefined):
    Record<string, unknown> | undefined {
  const empty = config.type === undefined && config.request === undefined && config.name === undefined;
  if (empty) return activePythonFile === undefined ? undefined : currentFileConfiguration(activePythonFile);
  if (config.request === "launch" && config.program === undefined && config.module === undefined) {
    if (activePythonFile === undefined) return undefined;
    return { ...config, program: activePythonFile };
  }
  return config;
}
