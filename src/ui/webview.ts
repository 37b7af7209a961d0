/**
 * The HTML shell every webview of this extension uses: a strict Content Security Policy with a
 * fresh nonce, the bundle's script and stylesheet (dist/webview/<entry>.js / .css), nothing remote.
 * Content is rendered by the script from typed messages; this shell holds no data. Every webview
 * panel (trajectory viewer, thread details, training dashboard) uses it.
 *
 * The bundle is inlined under the nonce rather than loaded by URL, so the document has nothing to
 * fetch before its script runs (in code-server the script then starts ~80 ms after the document
 * instead of ~140 ms). Where the bundle cannot be read from disk (an extension host without a file
 * system), it is loaded by URL as usual.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
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
  /** Allows `data:` images (the dashboard's chart export draws one). */
  dataImages?: boolean;
}

const escapeAttr = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** Bundle texts by path, kept while the file is unchanged (a rebuild during development is seen). */
const bundles = new Map<string, { mtimeMs: number; text: string }>();

function bundleText(uri: vscode.Uri): string | undefined {
  if (uri.scheme !== 'file') return undefined;
  try {
    const { mtimeMs } = statSync(uri.fsPath);
    const hit = bundles.get(uri.fsPath);
    if (hit?.mtimeMs === mtimeMs) return hit.text;
    const text = readFileSync(uri.fsPath, 'utf8');
    bundles.set(uri.fsPath, { mtimeMs, text });
    return text;
  } catch {
    return undefined;
  }
}

/** The document for a webview: CSP with a nonce, the entry's script and stylesheet. */
export function webviewHtml(webview: vscode.Webview, extensionUri: vscode.Uri, opts: ShellOptions): string {
  const n = nonce();
  const root = webviewRoot(extensionUri);
  const scriptUri = vscode.Uri.joinPath(root, `${opts.entry}.js`);
  const styleUri = vscode.Uri.joinPath(root, `${opts.entry}.css`);
  const scriptText = bundleText(scriptUri);
  const styleText = bundleText(styleUri);
  const csp = [
    "default-src 'none'",
    `style-src ${webview.cspSource} 'nonce-${n}'`,
    `script-src 'nonce-${n}'`,
    `img-src ${webview.cspSource}${opts.dataImages ? ' data:' : ''}`,
    `font-src ${webview.cspSource}`,
    "connect-src 'none'",
    "frame-src 'none'",
    "form-action 'none'",
    "base-uri 'none'",
  ].join('; ');
  const data = Object.entries(opts.data ?? {})
    .map(([k, v]) => ` data-${k.replace(/[^a-z0-9-]/gi, '')}="${escapeAttr(v)}"`)
    .join('');
  // Inlined text must not close its element early: `</` is escaped the way JS and CSS both read it.
  const style = styleText !== undefined ? `<style nonce="${n}">${styleText.replace(/<\//g, '<\\/')}</style>` : `<link rel="stylesheet" href="${webview.asWebviewUri(styleUri).toString()}">`;
  const script = scriptText !== undefined ? `<script nonce="${n}">${scriptText.replace(/<\/(script)/gi, '<\\/$1')}</script>` : `<script nonce="${n}" src="${webview.asWebviewUri(scriptUri).toString()}"></script>`;
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
${style}
<title>${escapeAttr(opts.title)}</title>
</head>
<body${data}>
<div id="app" aria-busy="true"></div>
${script}
</body>
</html>`;
}
