/**
 * The Inspect Tensor panel's page: no remote loads, one nonce'd script from the extension's dist
 * folder, styles only from the webview's own source or set by that script through the CSSOM.
 * Pure (no `vscode`), so the policy is unit-tested as written.
 */
import { randomBytes } from "node:crypto";

export function makeNonce(): string {
  return randomBytes(18).toString("base64").replace(/[^A-Za-z0-9]/g, "");
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] as string);
}

export function contentSecurityPolicy(cspSource: string, nonce: string): string {
  return [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `style-src ${cspSource} 'nonce-${nonce}'`,
    `img-src ${cspSource} data:`,
    `font-src ${cspSource}`,
    "base-uri 'none'",
    "form-action 'none'",
  ].join("; ");
}

export function tensorPanelHtml(o: { cspSource: string; nonce: string; scriptUri: string; title: string }): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${escapeHtml(contentSecurityPolicy(o.cspSource, o.nonce))}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(o.title)}</title>
<style nonce="${o.nonce}">body { padding: 0.75em 1em; } #spore-tensor-source { opacity: 0.8; margin-bottom: 0.5em; }</style>
</head>
<body>
<div id="spore-tensor-source"></div>
<div id="spore-tensor-root">Waiting for the tensor…</div>
<script nonce="${o.nonce}" src="${escapeHtml(o.scriptUri)}"></script>
</body>
</html>`;
}
