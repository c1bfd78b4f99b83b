/**
 * The Python expressions Show Graph asks a notebook's Spore kernel to evaluate (through
 * `KernelSession.evaluate`, i.e. user_expressions), and the parsing of their answers. Pure (no
 * `vscode`): unit-tested under node. Names go into the expressions only after matching an identifier;
 * the inputs are the user's own Python for their own kernel.
 */

const HELPERS = '__import__("spore_kernel.graphview", fromlist=["graphview"])';
const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;

export interface CellVariable {
  name: string;
  class: string;
}

/** The kernel expression listing Cell variables (of `className` or its subclasses). */
export function listExpression(className: string | undefined): string {
  if (className !== undefined && !IDENT.test(className)) throw new Error(`not a class name: ${className}`);
  return `${HELPERS}.cell_variables(${className === undefined ? "None" : JSON.stringify(className)})`;
}

/** The kernel expression compiling `variable`'s graph for the inputs `args` (Python source). */
export function graphExpression(variable: string, args: string): string {
  if (!IDENT.test(variable)) throw new Error(`not a variable name: ${variable}`);
  if (args.includes("\n")) throw new Error("the inputs must be one expression on one line");
  return `${HELPERS}.graph_display(${variable}, (${args}))`;
}

export function parseVariables(data: Record<string, unknown> | undefined): CellVariable[] {
  const list = data?.["application/json"];
  if (!Array.isArray(list)) return [];
  return list.filter((v): v is CellVariable => typeof v === "object" && v !== null && typeof v.name === "string"
    && IDENT.test(v.name) && typeof v.class === "string");
}

