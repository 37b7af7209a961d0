/** Text for language models: compact tables and numbers that say what they are. Pure: no vscode import. */

/** `1,234`: counts read the same in every result. */
export function count(n: number): string {
  return n.toLocaleString('en-US');
}

/** A number with up to 4 significant digits (`0.6812`, `1,234`, `-3.1e-5`); `n/a` for null/undefined/NaN. */
export function num(n: unknown): string {
  if (typeof n !== 'number') return n === null || n === undefined ? 'n/a' : typeof n === 'string' ? n : JSON.stringify(n);
  if (Number.isNaN(n)) return 'n/a';
  if (!Number.isFinite(n)) return n > 0 ? 'Infinity' : '-Infinity';
  if (Number.isInteger(n)) return count(n);
  const abs = Math.abs(n);
  if (abs !== 0 && (abs < 1e-3 || abs >= 1e9)) return n.toExponential(2);
  return String(Number(n.toPrecision(4)));
}

/** A signed change: `+0.07`, `-1.2`. */
export function signed(n: number): string {
  return n > 0 ? `+${num(n)}` : num(n);
}

/** Byte sizes: `512 B`, `1.2 KB`, `3.4 MB` (decimal units, as file managers show them). */
export function bytes(n: number): string {
  if (n < 1000) return `${n} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let v = n;
  let i = -1;
  do {
    v /= 1000;
    i++;
  } while (v >= 1000 && i < units.length - 1);
  return `${Number(v.toPrecision(3))} ${units[i]}`;
}

/** A cell: no line breaks or pipes, at most `max` characters. */
export function cell(value: unknown, max = 160): string {
  let s = value === null || value === undefined ? '' : typeof value === 'string' ? value : typeof value === 'number' ? num(value) : JSON.stringify(value);
  s = s.replace(/[\r\n\t]+/g, ' ').replace(/\|/g, '\\|');
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

/** A Markdown table (models read these well, and people can too). */
export function table(headers: readonly string[], rows: readonly (readonly unknown[])[]): string {
  const line = (cells: readonly unknown[]) => `| ${cells.map((c) => cell(c)).join(' | ')} |`;
  return [line(headers), `|${headers.map(() => '---').join('|')}|`, ...rows.map(line)].join('\n');
}

/** The sentence that says a result was cut: "first 50 of 2,314 threads; pass offset 50 for more". */
export function cutNote(shown: number, offset: number, total: number | undefined, noun: string, more: string): string | undefined {
  const end = offset + shown;
  if (total !== undefined && end >= total) return undefined;
  const of = total === undefined ? `more than ${count(end)}` : count(total);
  const which = offset === 0 ? `first ${count(shown)}` : `${count(offset + 1)}–${count(end)}`;
  return `Showing ${which} of ${of} ${noun}; ${more}.`;
}

/** Mean, standard deviation (population), min and max of finite numbers; undefined when there are none. */
export function stats(values: readonly number[]): { n: number; mean: number; std: number; min: number; max: number } | undefined {
  const xs = values.filter((v) => Number.isFinite(v));
  if (!xs.length) return undefined;
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  const variance = xs.reduce((a, b) => a + (b - mean) ** 2, 0) / xs.length;
  return { n: xs.length, mean, std: Math.sqrt(variance), min: xs.reduce((a, b) => Math.min(a, b)), max: xs.reduce((a, b) => Math.max(a, b)) };
}
