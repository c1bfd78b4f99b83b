// Bundles what the .vsix ships: the extension host code (node, CommonJS), the notebook renderers
// (ES modules loaded by VS Code's output webview) and the scripts of the extension's own webviews
// (classic scripts loaded under a nonce'd CSP). One esbuild run per target; the .vsix carries no node_modules.
import * as esbuild from "esbuild";

const common = { bundle: true, minify: true, sourcemap: false, logLevel: "warning", legalComments: "none" };
// .css imported as text: the graph viewer injects its stylesheet (shared with spore_viz) itself
const browser = { ...common, platform: "browser", target: "es2022", loader: { ".css": "text" } };

await Promise.all([
  esbuild.build({ ...common, entryPoints: ["src/extension.ts"], outfile: "dist/extension.js", external: ["vscode"],
    format: "cjs", platform: "node", target: "node20" }),
  // notebook renderers: entry name -> dist/renderers/<name>.js (package.json contributes.notebookRenderer)
  esbuild.build({ ...browser, entryPoints: { graph: "src/renderers/graph.ts", tensor: "src/renderers/tensor.ts" },
    outdir: "dist/renderers", format: "esm" }),
  // webview panels: entry name -> dist/webviews/<name>.js
  esbuild.build({ ...browser, entryPoints: { graph: "src/webviews/graph.ts", tensor: "src/webviews/tensor.ts",
    profile: "src/webviews/profile.ts" }, outdir: "dist/webviews", format: "iife" }),
]);
