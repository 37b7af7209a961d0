/** Formatting for tree items and tooltips. Pure: no vscode import. */

/** `1.2 s`, `850 ms`, `3.4 min`; null, undefined and negative values (-1 = not computed) are `n/a`. */
export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms) || ms < 0) return 'n/a';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
  if (ms < 3_600_000) return `${(ms / 60_000).toFixed(1)} min`;
  return `${(ms / 3_600_000).toFixed(1)} h`;
}

/** `just now`, `5 min ago`, `3 h ago`, `2 d ago`, or the date for older times. */
export function formatRelative(iso: string | null | undefined, now: number = Date.now()): string {
  if (!iso) return 'n/a';
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return iso;
  const s = Math.round((now - t) / 1000);
  if (s < 0) return 'in the future';
  if (s < 45) return 'just now';
  if (s < 3600) return `${Math.round(s / 60)} min ago`;
  if (s < 86_400) return `${Math.round(s / 3600)} h ago`;
  if (s < 30 * 86_400) return `${Math.round(s / 86_400)} d ago`;
  return new Date(t).toISOString().slice(0, 10);
}

/** A metric value: numbers to 4 significant digits, everything else as JSON. */
export function formatMetric(value: unknown): string {
  if (typeof value === 'number') {
    if (Number.isInteger(value)) return String(value);
    return Math.abs(value) >= 1e-3 && Math.abs(value) < 1e6 ? String(Number(value.toPrecision(4))) : value.toExponential(3);
  }
  return JSON.stringify(value);
}

/** Escapes text for a markdown table cell or paragraph, so server data cannot inject markup. */
export function escapeMarkdown(text: string): string {
  return text.replace(/[\\`*_{}[\]()#+\-.!|<>~]/g, (c) => `\\${c}`).replace(/\r?\n/g, ' ');
}

/** `64 MiB` (exact), `1.2 MiB`, `850.5 KiB`, `12 bytes`. */
export function formatBytes(n: number): string {
  const [size, unit] = n >= 1024 * 1024 ? [1024 * 1024, 'MiB'] : n >= 1024 ? [1024, 'KiB'] : [1, 'bytes'];
  const v = n / size;
  return `${Number.isInteger(v) ? v : v.toFixed(1)} ${unit}`;
}
