// The run search's disk cache (src/search/diskCache.ts), on the search run of
// test/fixtures/art/searchRun.ts (Parquet steps written by DuckDB, JSONL steps by JSON.stringify).
// A fresh SearchCache over the same folder stands for a restart: its memory is empty, so what it
// does not read from a step file comes from the disk.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runStepFiles, searchRun, type RunHit, type RunProblem, type RunSearchQuery, type StepFile } from '../../../src/search/runSearch';
import { SearchCache } from '../../../src/search/searchCache';
import { SearchDiskCache } from '../../../src/search/diskCache';
import { writeSearchRun } from '../../fixtures/art/searchRun';
import { useTempDir } from '../files/helpers';

/** A whole second: utimes keeps it exactly, so a restored mtime is the same number. */
const T0 = new Date('2026-01-02T03:04:05Z');

function diskCache(folder: string, budget?: number): SearchCache {
  const c = new SearchCache();
  c.useDisk(folder, budget);
  return c;
}

async function collect(files: StepFile[], q: RunSearchQuery, cache: SearchCache): Promise<{ hits: RunHit[]; problems: RunProblem[]; summary: Awaited<ReturnType<typeof searchRun>> }> {
  const hits: RunHit[] = [];
  const problems: RunProblem[] = [];
  const summary = await searchRun(files, q, { onHit: (h) => void hits.push(h), onProblem: (p) => problems.push(p) }, undefined, cache);
  return { hits, problems, summary };
}

/** Overwrites a step file with bytes no reader takes, of the same size and the same mtime. */
function garbage(file: string): void {
  const st = statSync(file);
  writeFileSync(file, Buffer.alloc(st.size, 0x7e));
  utimesSync(file, st.atime, st.mtime);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('search/diskCache: the run search\'s disk cache', function () {
  // DuckDB writes the Parquet steps.
  this.timeout(60_000);
  const dir = useTempDir();
  let model = '';
  let n = 0;
  before(async () => {
    model = await writeSearchRun(dir());
    n = (await runStepFiles(model)).length;
  });

  let runs = 0;
  /** A copy of the run (mtimes set to T0) and an empty cache folder. */
  async function fresh(): Promise<{ steps: StepFile[]; folder: string; root: string }> {
    const root = join(dir(), `copy-${++runs}`);
    cpSync(model, join(root, 'run'), { recursive: true });
    const steps = await runStepFiles(join(root, 'run'));
    for (const f of steps) utimesSync(f.file, T0, T0);
    return { steps, folder: join(root, 'search-cache'), root };
  }

  it('answers a second search (after a restart) from the disk: no step file is read, the same hits and problems', async () => {
    const { steps, folder } = await fresh();
    // A malformed line in a JSONL step: its problem is kept with the entry.
    const jsonl = steps[1]!.file;
    const lines = readFileSync(jsonl, 'utf8').split('\n');
    lines[1] = '{"trajectories": [ oops';
    writeFileSync(jsonl, lines.join('\n'));
    utimesSync(jsonl, T0, T0);
    const first = await collect(steps, { query: 'quito' }, diskCache(folder));
    assert.equal(first.summary.fromDisk, 0);
    assert.equal(first.problems.length, 1);
    assert.ok(first.hits.length > 0);
    // Every step file replaced by bytes of the same size and mtime that no reader takes.
    for (const f of steps) garbage(f.file);
    const second = await collect(steps, { query: 'quito' }, diskCache(folder));
    assert.deepEqual(second.hits, first.hits);
    assert.deepEqual(second.problems, first.problems);
    assert.deepEqual([second.summary.cached, second.summary.fromDisk, second.summary.filesSearched], [n, n, n]);
    // Another query, and filters, from the same entries.
    const filtered = await collect(steps, { query: 'weather', role: 'user', reward: { min: 0.5 } }, diskCache(folder));
    assert.equal(filtered.summary.fromDisk, n);
    assert.ok(filtered.hits.length > 0 && filtered.hits.every((h) => h.reward! >= 0.5));
  });

  it('caches the verdicts when a search filters by them; a search without verdicts then uses that entry too', async () => {
    const { steps, folder } = await fresh();
    const plain = await collect(steps, { query: 'paris' }, diskCache(folder));
    // The entries have no verdicts: a verdict search reads the step files again and rewrites them.
    const byVerdict = await collect(steps, { query: 'paris', verdict: 'trains' }, diskCache(folder));
    assert.equal(byVerdict.summary.fromDisk, 0);
    for (const f of steps) garbage(f.file);
    const again = await collect(steps, { query: 'paris', verdict: 'trains' }, diskCache(folder));
    assert.deepEqual([again.summary.fromDisk, again.hits], [n, byVerdict.hits]);
    const plainAgain = await collect(steps, { query: 'paris' }, diskCache(folder));
    assert.deepEqual([plainAgain.summary.fromDisk, plainAgain.hits], [n, plain.hits]);
  });

  it('reads a step file again when its size or its modification time changed', async () => {
    const { steps, folder } = await fresh();
    await collect(steps, { query: 'lagos' }, diskCache(folder));
    const [sized, timed] = [steps[5]!.file, steps[6]!.file];
    // Same mtime, another size.
    writeFileSync(sized, Buffer.alloc(statSync(sized).size + 1, 0x7e));
    utimesSync(sized, T0, T0);
    // Same size, another mtime.
    writeFileSync(timed, Buffer.alloc(statSync(timed).size, 0x7e));
    utimesSync(timed, T0, new Date(T0.getTime() + 1000));
    const second = await collect(steps, { query: 'lagos' }, diskCache(folder));
    assert.equal(second.summary.fromDisk, n - 2);
    assert.deepEqual(second.problems.map((p) => p.file), [sized, timed], 'both were read, and found not to be Parquet');
  });

  it('ignores a truncated, corrupt or hostile cache file, answers from the step file and rewrites the entry', async () => {
    const { steps, folder } = await fresh();
    const cache = diskCache(folder);
    const first = await collect(steps, { query: 'quito' }, cache);
    const disk = cache.disk!;
    const entry = (i: number) => disk.entryPath(steps[i]!.file);
    const truncated = readFileSync(entry(4));
    writeFileSync(entry(4), truncated.subarray(0, truncated.length >> 1));
    // Garbage in the middle: some groups are handed out before the fault is seen.
    const corrupt = readFileSync(entry(5));
    corrupt.fill(0x22, corrupt.length >> 1, (corrupt.length >> 1) + 64);
    writeFileSync(entry(5), corrupt);
    // The header record's length (after the 8-byte magic) says 4 GiB.
    const huge = readFileSync(entry(6));
    huge.writeUInt32LE(0xffffffff, 8);
    writeFileSync(entry(6), huge);
    writeFileSync(entry(7), 'not a cache file');
    const second = diskCache(folder);
    const r = await collect(steps, { query: 'quito' }, second);
    assert.deepEqual(r.hits, first.hits, 'the same hits, none twice');
    assert.deepEqual(r.problems, []);
    assert.deepEqual([r.summary.fromDisk, second.disk!.corrupt, second.disk!.written], [n - 4, 4, 4]);
    for (const f of steps) garbage(f.file);
    const third = await collect(steps, { query: 'quito' }, diskCache(folder));
    assert.deepEqual([third.summary.fromDisk, third.hits], [n, first.hits]);
  });

  it('takes a pipe at an entry\'s path for a miss, at once (it would wait for a writer for ever)', async function () {
    this.timeout(20_000);
    const { steps, folder } = await fresh();
    const first = await collect(steps, { query: 'quito' }, diskCache(folder));
    const entry = diskCache(folder).disk!.entryPath(steps[2]!.file);
    rmSync(entry);
    execFileSync('mkfifo', [entry]);
    const second = diskCache(folder);
    const r = await collect(steps, { query: 'quito' }, second);
    assert.deepEqual(r.hits, first.hits);
    assert.equal(r.summary.fromDisk, n - 1, 'every other step file from the disk');
    assert.equal(statSync(entry).isFile(), true, 'the entry rewritten as a file');
  });

  /** A run, and a disk budget that holds steps 10-12 and half of 13 (sized by an unbounded cache); `a` is 10-12, `b` 13-15. */
  async function budgeted() {
    const { steps, folder, root } = await fresh();
    const sizing = diskCache(join(root, 'sizing'));
    await collect(steps, { query: 'x' }, sizing);
    const size = (i: number) => statSync(sizing.disk!.entryPath(steps[i]!.file)).size;
    const has = (c: SearchCache, fs: StepFile[]) => fs.map((f) => readdirSync(folder).includes(c.disk!.entryPath(f.file).slice(folder.length + 1)));
    return { steps, folder, budget: size(10) + size(11) + size(12) + Math.floor(size(13) / 2), a: steps.slice(10, 13), b: steps.slice(13, 16), has };
  }

  it('keeps the folder under its budget: least recently used first, never what the running search used', async () => {
    const { steps, folder, budget, a, b, has } = await budgeted();
    const first = diskCache(folder, budget);
    await collect(a, { query: 'x' }, first);
    assert.deepEqual(has(first, a), [true, true, true]);
    await sleep(20);
    // Another search: its entries push out the older ones.
    await collect(b, { query: 'x' }, first);
    assert.deepEqual([has(first, a), has(first, b)], [[false, false, false], [true, true, true]]);
    assert.ok((await first.disk!.usage()).bytes <= budget);
    // A search of more than fits keeps what it cached first, so the next one is partly from the disk
    // (least recently used alone would evict each entry just before it is needed again).
    await sleep(20);
    const run = steps.slice(10, 20);
    const scan = diskCache(folder, budget);
    await collect(run, { query: 'x' }, scan);
    assert.ok((await scan.disk!.usage()).bytes <= budget);
    assert.deepEqual(has(scan, run), [true, true, true, false, false, false, false, false, false, false]);
    await sleep(20);
    const again = await collect(run, { query: 'x' }, diskCache(folder, budget));
    assert.equal(again.summary.fromDisk, 3);
  });

  it('keeps what a search still running used while another search fills the folder', async () => {
    const { steps, folder, budget, a, b, has } = await budgeted();
    const cache = diskCache(folder, budget);
    // A search over `a` and on (the lease stands for its files still to come), and a second search
    // beside it, started later: the first one's entries stay while it runs.
    const first = cache.startSearch();
    await collect(a, { query: 'x' }, cache);
    await sleep(20);
    await collect(b, { query: 'x' }, cache);
    assert.deepEqual(has(cache, a), [true, true, true], 'the running search keeps its entries');
    first();
    // Once it ended, the next search's entries push them out.
    await sleep(20);
    await collect(steps.slice(16, 19), { query: 'x' }, cache);
    assert.deepEqual(has(cache, a), [false, false, false]);
  });

  it('writes only inside its folder, named by a hash of the path, and clears it', async () => {
    const { steps, folder, root } = await fresh();
    const before = readdirSync(join(root, 'run'), { recursive: true }).sort();
    const cache = diskCache(folder);
    await collect(steps, { query: 'paris' }, cache);
    assert.deepEqual(readdirSync(join(root, 'run'), { recursive: true }).sort(), before, 'nothing written next to the run');
    assert.deepEqual(readdirSync(root).sort(), ['run', 'search-cache']);
    const names = readdirSync(folder);
    assert.equal(names.length, n);
    assert.ok(names.every((x) => /^[0-9a-f]{40}\.svcsearch$/.test(x)), names.join(', '));
    const disk = new SearchDiskCache(folder);
    for (const hostile of ['/a/../../../etc/passwd', '../../x.parquet', 'C:\\..\\..\\y']) assert.equal(join(disk.entryPath(hostile), '..'), folder);
    assert.equal(await cache.clear(true), n);
    assert.deepEqual(readdirSync(folder), []);
    const after = await collect(steps, { query: 'paris' }, diskCache(folder));
    assert.equal(after.summary.fromDisk, 0);
  });

  it('searches on when the folder cannot be written', async () => {
    const { steps, root } = await fresh();
    // A file where the folder should be.
    const blocked = join(root, 'blocked');
    writeFileSync(blocked, '');
    const cache = diskCache(join(blocked, 'search-cache'));
    const r = await collect(steps, { query: 'paris' }, cache);
    assert.deepEqual([r.problems, r.summary.filesSearched, r.summary.fromDisk, cache.disk?.written], [[], n, 0, 0]);
  });
});
