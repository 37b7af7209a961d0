/**
 * The HTML shell every webview of this extension uses: a strict Content Security Policy with a
 * fresh nonce, the bundled script and stylesheet from dist/webview/, nothing remote. Content is
 * rendered by the script from typed messages; this shell holds no data.
 */
import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';

/** Where the browser-platform bundles are (esbuild.js, `webviewEntries`). */
export function webviewRoot(extensionUri: vscode.Uri): vscode.Uri {
  return vscode.Uri.joinPath(extensionUri, 'dist', 'webview');
}

/** Options for a webview that runs one bundled script and may load only its own folder. */
export function webviewOptions(extensionUri: vscode.Uri): vscode.WebviewOptions {
  return { enableScripts: true, enableCommandUris: false, localResourceRoots: [webviewRoot(extensionUri)] };
}

export function nonce(): string {
  return randomBytes(18).toString('base64');
}

export interface ShellOptions {
  /** The bundle's name: dist/webview/<entry>.js (and .css). */
  entry: string;
  title: string;
  /** `data-*` attributes for <body>, e.g. the view's kind (text only; escaped). */
  data?: Record<string, string>;
}

const escapeAttr = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The document for a webview: CSP with a nonce, the entry's script and stylesheet. */
export function webviewHtml(webview: vscode.Webview, extensionUri: vscode.Uri, opts: ShellOptions): string {
  const n = nonce();
  const root = webviewRoot(extensionUri);
  const script = webview.asWebviewUri(vscode.Uri.joinPath(root, `${opts.entry}.js`));
  const style = webview.asWebviewUri(vscode.Uri.joinPath(root, `${opts.entry}.css`));
  const csp = [
    "default-src 'none'",
    `style-src ${webview.cspSource}`,
    `script-src 'nonce-${n}'`,
    `img-src ${webview.cspSource}`,
    `font-src ${webview.cspSource}`,
    "connect-src 'none'",
    "frame-src 'none'",
    "form-action 'none'",
    "base-uri 'none'",
  ].join('; ');
  const data = Object.entries(opts.data ?? {})
    .map(([k, v]) => ` data-${k.replace(/[^a-z0-9-]/gi, '')}="${escapeAttr(v)}"`)
    .join('');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${style}">
<title>${escapeAttr(opts.title)}</title>
</head>
<body${data}>
<div id="app" aria-busy="true"></div>
<script nonce="${n}" src="${script}"></script>
</body>
</html>`;
}
