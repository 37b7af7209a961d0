/** The dashboard's HTML page: strict CSP with a nonce, the bundled script and stylesheet only. Pure. */

export interface DashboardPage {
  /** webview.cspSource */
  cspSource: string;
  scriptUri: string;
  styleUri: string;
  nonce: string;
  title: string;
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/**
 * No inline script or style, no eval: scripts need the nonce, styles come from our own files
 * (uPlot's positioning goes through element.style, which a CSP does not restrict), images are
 * ours or data: URIs (the chart export). Everything the page shows is built with DOM APIs.
 */
export function contentSecurityPolicy(cspSource: string, nonce: string): string {
  return [
    "default-src 'none'",
    `img-src ${cspSource} data:`,
    `style-src ${cspSource}`,
    `font-src ${cspSource}`,
    `script-src 'nonce-${nonce}'`,
  ].join('; ');
}

export function dashboardHtml(p: DashboardPage): string {
  const attr = escapeHtml;
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${attr(contentSecurityPolicy(p.cspSource, p.nonce))}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${attr(p.styleUri)}">
<title>${escapeHtml(p.title)}</title>
</head>
<body>
<main id="app" aria-busy="true"></main>
<script nonce="${attr(p.nonce)}" src="${attr(p.scriptUri)}"></script>
</body>
</html>`;
}
