/**
 * The profile webview's page, without `vscode`: a strict Content-Security-Policy (nothing by default, the
 * one bundled script and the one style element by nonce, nothing else loads, no inline handlers) and no text
 * from the trace (the script puts every name in through textContent). Unit-tested in test/profile*.test.ts.
 */
import { randomBytes } from "node:crypto";

/** A fresh nonce per page: 16 random bytes, base64 (CSP's nonce-source grammar). */
export function makeNonce(): string {
  return randomBytes(16).toString("base64");
}

/**
 * The CSP: `default-src 'none'` (no images, fonts, frames or connections at all); the bundled script and
 * the one style element only by nonce (a nonce admits an external script too, so not even the extension's
 * other files are allowed).
 */
export function contentSecurityPolicy(nonce: string): string {
  return [
    "default-src 'none'",
    `style-src 'nonce-${nonce}'`,
    `script-src 'nonce-${nonce}'`,
  ].join("; ");
}

const STYLE = `
body { margin: 0; padding: 0 8px; font: 12px var(--vscode-font-family, sans-serif); color: var(--vscode-foreground);
       background: var(--vscode-editor-background); user-select: none; }
.header { display: flex; flex-wrap: wrap; gap: 4px 12px; align-items: center; padding: 6px 0; }
.header > * { white-space: nowrap; }
.title { font-weight: bold; }
.summary, .banner { opacity: 0.85; }
.banner { color: var(--vscode-editorInfo-foreground, inherit); }
button { font: inherit; color: var(--vscode-button-foreground); background: var(--vscode-button-background);
         border: none; padding: 2px 8px; cursor: pointer; }
button:hover { background: var(--vscode-button-hoverBackground); }
canvas { display: block; }
.tip { position: fixed; z-index: 10; max-width: 60ch; padding: 4px 8px; pointer-events: none; white-space: pre-wrap;
       word-break: break-all; color: var(--vscode-editorHoverWidget-foreground, inherit);
       background: var(--vscode-editorHoverWidget-background, #252526);
       border: 1px solid var(--vscode-editorHoverWidget-border, #454545); }
.tip .hint { opacity: 0.7; margin-top: 2px; }
.empty { padding: 20px 0; opacity: 0.7; }
[hidden] { display: none !important; }
`;

/** The whole page: `scriptUri` is dist/webviews/profile.js as a webview URI. */
export function profileHtml(scriptUri: string, nonce: string): string {
  const attr = (s: string): string => s.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${attr(contentSecurityPolicy(nonce))}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Spore Profile</title>
<style nonce="${attr(nonce)}">${STYLE}</style>
</head>
<body>
<script nonce="${attr(nonce)}" src="${attr(scriptUri)}"></script>
</body>
</html>`;
}
