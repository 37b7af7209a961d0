// Benchmark data, generated once into a cache folder (os.tmpdir()/svc-bench) and reused.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export const CACHE = path.join(os.tmpdir(), 'svc-bench');

/** One trajectory group of about 2 KB, valid for the service's schema. */
export function groupLine(i: number): string {
  const filler = 'The quick brown fox jumps over the lazy dog. '.repeat(8);
  return JSON.stringify({
    trajectories: [
      {
        messages_and_choices: [
          { role: 'system', content: 'You are a careful assistant.' },
          { role: 'user', content: `Question ${i}: ${filler}` },
          { finish_reason: 'stop', index: 0, message: { role: 'assistant', content: `Answer ${i}: ${filler}` } },
          { role: 'user', content: `Follow-up ${i}: ${filler.slice(0, 200)}` },
          { finish_reason: 'stop', index: 0, message: { role: 'assistant', content: `Done ${i}.` } },
        ],
        reward: (i % 7) / 7,
        metrics: { correct: i % 2 === 0, tokens: 300 + (i % 50) },
        metadata: { sample: i, source: 'bench' },
      },
    ],
  });
}

/** A JSONL trajectory file of at least `mb` megabytes (cached). */
export function trajectoryFile(mb: number): string {
  fs.mkdirSync(CACHE, { recursive: true });
  const file = path.join(CACHE, `trajectories-${mb}mb.jsonl`);
  if (fs.existsSync(file) && fs.statSync(file).size >= mb * 1024 * 1024) return file;
  const fd = fs.openSync(file, 'w');
  let written = 0;
  let i = 0;
  const target = mb * 1024 * 1024;
  while (written < target) {
    const lines: string[] = [];
    for (let k = 0; k < 1000; k++) lines.push(groupLine(i++));
    const buf = Buffer.from(lines.join('\n') + '\n');
    fs.writeSync(fd, buf);
    written += buf.length;
  }
  fs.closeSync(fd);
  return file;
}

/**
 * The same groups as `trajectoryFile(mb)` in one `.json` document,
 * `{"model_id": ..., "split": "train", "trajectory_groups": [...]}` (cached).
 */
export function trajectoryJsonFile(mb: number): string {
  const jsonl = trajectoryFile(mb);
  const file = jsonl.replace(/\.jsonl$/, '.json');
  if (fs.existsSync(file) && fs.statSync(file).mtimeMs >= fs.statSync(jsonl).mtimeMs) return file;
  const fd = fs.openSync(file, 'w');
  fs.writeSync(fd, '{"model_id": "bench", "split": "train", "trajectory_groups": [\n');
  const text = fs.readFileSync(jsonl);
  let start = 0;
  let first = true;
  while (start < text.length) {
    let nl = text.indexOf(0x0a, start);
    if (nl < 0) nl = text.length;
    if (nl > start) {
      if (!first) fs.writeSync(fd, ',\n');
      fs.writeSync(fd, text.subarray(start, nl));
      first = false;
    }
    start = nl + 1;
  }
  fs.writeSync(fd, '\n]}\n');
  fs.closeSync(fd);
  return file;
}

/** `n` call batch items: n/2 starts and n/2 ends of calls in 1-turn threads. */
export function callItems(n: number) {
  const items = [];
  const t0 = Date.UTC(2026, 10, 1);
  for (let i = 0; i < n / 2; i++) {
    const id = `bench-call-${i}`;
    items.push({
      mode: 'start' as const,
      req: {
        start: {
          project_id: 'bench/calls',
          op_name: 'bench.turn',
          started_at: new Date(t0 + i * 1000).toISOString(),
          attributes: { env: 'bench' },
          inputs: { prompt: `prompt ${i} with some text to make it realistic` },
          id,
          trace_id: id,
          thread_id: `bench-thread-${i % 5000}`,
          turn_id: id,
        },
      },
    });
    items.push({ mode: 'end' as const, req: { end: { project_id: 'bench/calls', id, ended_at: new Date(t0 + i * 1000 + 750).toISOString(), summary: {}, output: { text: `output ${i}` } } } });
  }
  return items;
}

/**
 * A JSONL file of `n` call batch items (cached): callItems' lines, with one start in a hundred
 * written as tracing SDKs write unset optional fields (`"display_name": null, "parent_id": null`),
 * which the import leaves out, so that item is rewritten and the others go as their bytes.
 */
export function callsFile(n: number): string {
  fs.mkdirSync(CACHE, { recursive: true });
  const file = path.join(CACHE, `calls-${n}.jsonl`);
  if (fs.existsSync(file)) return file;
  const lines = callItems(n).map((item, i) => {
    if (i % 200 === 0 && item.mode === 'start') return JSON.stringify({ ...item, req: { start: { ...item.req.start, display_name: null, parent_id: null } } });
    return JSON.stringify(item);
  });
  fs.writeFileSync(`${file}.tmp`, `${lines.join('\n')}\n`);
  fs.renameSync(`${file}.tmp`, file);
  return file;
}

/**
 * An ART version 2 Parquet step file (written by DuckDB, as test/fixtures/art/parquet.ts writes
 * them) whose groups' JSON adds up to at least `mb` MiB (cached). The contents are pseudo-random
 * words, so Zstd shrinks them about as much as it shrinks real conversations, not to nothing.
 */
export async function parquetTrajectoryFile(mb: number, rowGroupSize?: number): Promise<string> {
  fs.mkdirSync(CACHE, { recursive: true });
  const file = path.join(CACHE, `trajectories-${mb}mb${rowGroupSize ? `-rg${rowGroupSize}` : ''}.parquet`);
  if (fs.existsSync(file)) return file;
  const { artRows, copyArtRows } = await import('../../test/fixtures/art/parquet');
  const staged = `${file}.rows.jsonl`;
  const fd = fs.openSync(staged, 'w');
  const words = Array.from({ length: 4096 }, (_, i) => (i * 2654435761).toString(36).slice(0, 3 + (i % 7)));
  let seed = 1;
  const text = (n: number) => {
    const out: string[] = [];
    for (let k = 0; k < n; k++) {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      out.push(words[(seed >>> 12) % words.length]!);
    }
    return out.join(' ');
  };
  let json = 0;
  for (let g = 0; json < mb * 1024 * 1024; g++) {
    const trajectories = Array.from({ length: 4 }, (_, t) => ({
      messages_and_choices: [
        { role: 'user', content: `Question ${g}.${t}: ${text(120)}` },
        { finish_reason: 'stop', index: 0, logprobs: null, message: { role: 'assistant', content: `Answer: ${text(500)}`, tool_calls: null } },
      ],
      reward: ((g + t) % 7) / 7,
      metrics: { tokens: 300 + t },
    }));
    const group = { trajectories, metadata: { group: g } };
    json += Buffer.byteLength(JSON.stringify(group));
    // Each row alone, so the rows are renumbered below to carry this group's index.
    const rows = artRows([group]).map((r) => ({ ...r, group_index: g }));
    fs.writeSync(fd, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
  }
  fs.closeSync(fd);
  try {
    await copyArtRows(staged, `${file}.tmp`, { rowGroupSize });
    fs.renameSync(`${file}.tmp`, file);
  } finally {
    fs.rmSync(staged, { force: true });
  }
  return file;
}

/**
 * A run of `files` Parquet step files for the run search's figures: hard links to the step file of
 * parquetTrajectoryFile(mb) (symbolic links where the file system has none), in ART's layout.
 */
export async function runSearchDir(mb: number, files: number): Promise<string> {
  const step = await parquetTrajectoryFile(mb);
  const dir = path.join(CACHE, `run-search-${mb}mb-${files}`, 'models', 'bench');
  const split = path.join(dir, 'trajectories', 'train');
  fs.mkdirSync(split, { recursive: true });
  for (let i = 1; i <= files; i++) {
    const f = path.join(split, `${String(i).padStart(4, '0')}.parquet`);
    if (fs.existsSync(f)) continue;
    try {
      fs.linkSync(step, f);
    } catch {
      fs.symlinkSync(step, f);
    }
  }
  return dir;
}
