/** The dashboard's theme helpers (its element builder is ../shared/dom.ts). */

/** Reads a theme colour (a `--vscode-*` variable), with a fallback for hosts that lack it. */
export function themeColor(name: string, fallback: string): string {
  const v = getComputedStyle(document.body).getPropertyValue(`--vscode-${name}`).trim();
  return v || fallback;
}

export function isHighContrast(): boolean {
  return document.body.classList.contains('vscode-high-contrast') || document.body.classList.contains('vscode-high-contrast-light');
}

export const nf = new Intl.NumberFormat('en-US');
