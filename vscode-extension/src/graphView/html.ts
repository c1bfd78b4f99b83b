/**
 * The Show Graph panel's HTML and Content-Security-Policy. Pure (no `vscode`): unit-tested under node.
 * The page holds no data: the payload comes by postMessage, so no name from user code or a file is
 * ever parsed as markup; the title is escaped all the same.
 */
import { randomBytes } from "node:crypto";

export function makeNonce(): string {
  return randomBytes(18).toString("base64").replace(/[+/=]/g, "");
}

/** Nothing loads but the nonce'd script; styles from the extension's own files or nonce'd. */
export function webviewCsp(cspSource: string, nonce: string): string {
  if (!/^[A-Za-z0-9]{8,}$/.test(nonce)) throw new Error("webviewCsp: the nonce must be 8+ alphanumerics");
  // VS Code's is e.g. "'self' https://*.vscode-cdn.net": 'self', schemes and hosts, never an 'unsafe-…' keyword
  const tokens = cspSource.trim().split(/\s+/);
  const ok = (tok: string) => tok === "'self'" || /^[A-Za-z][A-Za-z0-9+.-]*:[^\s;'",]*$/.test(tok) || /^[*A-Za-z0-9.-]+(:\d+)?$/.test(tok);
  if (cspSource.trim() === "" || !tokens.every(ok)) {
    throw new Error(`webviewCsp: unexpected cspSource ${JSON.stringify(cspSource)}`);
  }
  return `default-src 'none'; script-src 'nonce-${nonce}'; style-src ${tokens.join(" ")} 'nonce-${nonce}'`;
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] as string);
}

/** "Spore Graph: <name>", the name cut to a tab's length. */
export function panelTitle(name: string): string {
  const clean = name.replace(/[\u0000-\u001f]/g, " ").trim() || "graph";
  return `Spore Graph: ${clean.length > 60 ? `${clean.slice(0, 59)}…` : clean}`;
}

export function webviewHtml(opts: { cspSource: string; nonce: string; scriptUri: string; title: string }): string {
  const csp = webviewCsp(opts.cspSource, opts.nonce);
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${escapeHtml(csp)}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(opts.title)}</title>
<style nonce="${opts.nonce}">html, body { margin: 0; padding: 0; height: 100%; overflow: hidden; }</style>
</head>
<body>
<div id="spore-graph-root" class="spore-graph-view"></div>
<script nonce="${opts.nonce}" src="${escapeHtml(opts.scriptUri)}"></script>
</body>
</html>`;
}
