/** Formatting for tree items, tooltips, messages and the details view. Pure: no vscode import. */

/** `1 file`, `2 files`, `1 entry`/`3 entries` (pass the plural when it is not word + s). */
export function plural(n: number, word: string, many = `${word}s`): string {
  return `${n.toLocaleString('en-US')} ${n === 1 ? word : many}`;
}

/** A number rounded to `digits` significant digits, without trailing zeros: 3.5368 -> `3.54`, 45.0 -> `45`. */
function significant(n: number, digits: number): string {
  return String(Number(n.toPrecision(digits)));
}

/**
 * A duration for people: `850 ms`, `3.54 s`, `45.2 s`, `1 min 30 s`, `2 h 5 min`; `0 ms` and
 * `< 1 ms` rather than `0.0 s`. null, undefined and negative values (-1 = not computed) are `n/a`.
 */
export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms) || ms < 0) return 'n/a';
  if (ms === 0) return '0 ms';
  if (ms < 0.5) return '< 1 ms';
  // Round first, then pick the unit, so 999.6 ms reads `1 s` and 59.99 s reads `1 min`.
  if (Math.round(ms) < 1000) return `${Math.round(ms)} ms`;
  const seconds = Number((ms / 1000).toPrecision(3));
  if (seconds < 60) return `${significant(seconds, 3)} s`;
  const totalSeconds = Math.round(ms / 1000);
  if (totalSeconds < 3600) {
    const m = Math.floor(totalSeconds / 60);
    const s = totalSeconds % 60;
    return s ? `${m} min ${s} s` : `${m} min`;
  }
  const totalMinutes = Math.round(ms / 60_000);
  const h = Math.floor(totalMinutes / 60);
  const m = totalMinutes % 60;
  return m ? `${h} h ${m} min` : `${h} h`;
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** A local calendar date, `2026-11-15`. */
export function formatLocalDate(t: number | Date): string {
  const d = new Date(t);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

/** A local date and time, `2026-11-15 14:03:07`; the time is left out at local midnight with `dateOnlyAtMidnight`. */
export function formatLocalDateTime(iso: string | number | null | undefined, options: { dateOnlyAtMidnight?: boolean } = {}): string {
  if (iso === null || iso === undefined || iso === '') return 'n/a';
  const t = typeof iso === 'number' ? iso : Date.parse(iso);
  if (Number.isNaN(t)) return String(iso);
  const d = new Date(t);
  const time = `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
  if (options.dateOnlyAtMidnight && time === '00:00:00' && d.getMilliseconds() === 0) return formatLocalDate(d);
  return `${formatLocalDate(d)} ${time}`;
}

/** The local time zone as an offset, `UTC+01:00`, for a time in it (offsets move with daylight saving). */
export function formatUtcOffset(t: number | Date): string {
  const minutes = -new Date(t).getTimezoneOffset();
  const sign = minutes < 0 ? '-' : '+';
  const a = Math.abs(minutes);
  return `UTC${sign}${pad(Math.floor(a / 60))}:${pad(a % 60)}`;
}

const DAY_MS = 86_400_000;

/**
 * A time relative to now for the last 7 days (`just now`, `5 min ago`, `3 h ago`, `2 d ago`),
 * and the local date from then on, so every row of a list reads the same way.
 */
export function formatRelative(iso: string | null | undefined, now: number = Date.now()): string {
  if (!iso) return 'n/a';
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return iso;
  const s = Math.round((now - t) / 1000);
  // A clock a little ahead of the service's is not "the future".
  if (s < -60) return formatLocalDate(t);
  if (s < 45) return 'just now';
  if (s < 3600) return `${Math.max(1, Math.round(s / 60))} min ago`;
  if (s < 86_400) return `${Math.round(s / 3600)} h ago`;
  if (now - t < 7 * DAY_MS) return `${Math.floor((now - t) / DAY_MS)} d ago`;
  return formatLocalDate(t);
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

/** `64 MiB` (exact), `1.2 MiB`, `850.5 KiB`, `12 bytes`, `2.5 GiB` (a trajectory file the viewer opens). */
export function formatBytes(n: number): string {
  const [size, unit] = n >= 1024 ** 3 ? [1024 ** 3, 'GiB'] : n >= 1024 * 1024 ? [1024 * 1024, 'MiB'] : n >= 1024 ? [1024, 'KiB'] : [1, 'bytes'];
  const v = n / size;
  if (n === 1) return '1 byte';
  return `${Number.isInteger(v) ? v : v.toFixed(1)} ${unit}`;
}
