import assert from 'node:assert/strict';
import { cpSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { FileBytes } from '../../../src/files/groupIndex';
import { join } from 'node:path';
import { InputError } from '../../../src/api/errors';
import { matcher, regexProblem } from '../../../src/search/matcher';
import { filesAsSteps, runStepFiles, searchRun, type RunHit, type RunProblem, type RunSearchQuery, type StepFile } from '../../../src/search/runSearch';
import { SearchCache } from '../../../src/search/searchCache';
import { writeArtParquet } from '../../fixtures/art/parquet';
import { callsDocs, CITIES, group, GROUPS, rewardOf, TRAIN_STEPS, TRAJECTORIES, VAL_STEPS, writeSearchRun } from '../../fixtures/art/searchRun';
import { useTempDir } from '../files/helpers';

async function collect(files: StepFile[], q: RunSearchQuery, cache = new SearchCache()): Promise<{ hits: RunHit[]; problems: RunProblem[]; summary: Awaited<ReturnType<typeof searchRun>> }> {
  const hits: RunHit[] = [];
  const problems: RunProblem[] = [];
  const summary = await searchRun(files, q, { onHit: (h) => void hits.push(h), onProblem: (p) => problems.push(p) }, undefined, cache);
  return { hits, problems, summary };
}

describe('search/runSearch: search across a run', function () {
  // DuckDB writes the Parquet steps.
  this.timeout(60_000);
  const dir = useTempDir();
  let model = '';
  let files: StepFile[] = [];
  before(async () => {
    model = await writeSearchRun(dir());
    files = await runStepFiles(model);
  });

  it('finds the step files of every split from the model folder, its history.jsonl or a split folder', async () => {
    assert.deepEqual(files.map((f) => `${f.split}/${f.step}`), [...TRAIN_STEPS.map((s) => `train/${s}`), ...VAL_STEPS.map((s) => `val/${s}`)]);
    assert.deepEqual(await runStepFiles(join(model, 'history.jsonl')), files);
    assert.deepEqual((await runStepFiles(join(model, 'trajectories', 'val'))).map((f) => f.step), VAL_STEPS);
    assert.deepEqual((await runStepFiles(model, 'val')).map((f) => f.file), files.filter((f) => f.split === 'val').map((f) => f.file));
    await assert.rejects(runStepFiles(model, 'test'), (e: Error) => e instanceof InputError && /no split “test” \(it has train, val\)/.test(e.message));
    await assert.rejects(runStepFiles(join(dir(), 'nowhere')), /nowhere: no such file or folder/);
  });

  it('finds a word in messages, tool calls and metadata of every step, in step → group → trajectory order', async () => {
    const { hits, problems, summary } = await collect(files, { query: 'lagos' });
    assert.deepEqual(problems, []);
    // Per trajectory of group 2: the user's question, the tool call's arguments, the answer, metadata.scenario_id.
    assert.equal(hits.length, files.length * TRAJECTORIES * 4);
    assert.equal(summary.hits, hits.length);
    assert.ok(hits.every((h) => h.group === 1));
    const order = hits.map((h) => [files.findIndex((f) => f.file === h.file), h.trajectory]);
    assert.deepEqual(order, [...order].sort((a, b) => a[0]! - b[0]! || a[1]! - b[1]!), 'step, then trajectory order');
    const first = hits.slice(0, 4);
    assert.deepEqual(first.map((h) => h.where), [
      'message 2 of trajectory 2.1 (content)',
      'message 3 of trajectory 2.1 (tool call get_weather)',
      'message 5 of trajectory 2.1 (content)',
      'metadata.scenario_id of trajectory 2.1',
    ]);
    assert.equal(first[0]!.snippet, 'Scenario 1: what is the weather in Lagos?');
    assert.equal(first[0]!.step, 1);
    assert.equal(first[0]!.reward, rewardOf(1, 1, 0));
  });

  it('finds a TimeoutError in a group\'s exceptions and says where it is', async () => {
    const { hits } = await collect(files, { query: 'timeout' });
    assert.equal(hits.length, 1);
    const [h] = hits;
    assert.deepEqual([h!.split, h!.step, h!.group, h!.trajectory, h!.where], ['train', 6, 2, -1, 'exception 1 of group 3']);
    assert.match(h!.snippet, /TimeoutError: rollout 3 timed out/);
  });

  it('finds logs, and matches a regular expression', async () => {
    assert.equal((await collect(files, { query: 'rollout \\d+\\.2\\.1 done', regex: true })).hits.length, files.length);
    const { hits } = await collect(files, { query: 'degrees in (paris|quito)', regex: true, split: 'train', steps: { from: 4, to: 6 } });
    assert.equal(hits.length, 3 * 2 * TRAJECTORIES);
    assert.ok(hits.every((h) => h.step >= 4 && h.step <= 6 && h.where.endsWith('(content)')));
    assert.equal((await collect(files, { query: 'DEGREES', caseSensitive: true })).hits.length, 0);
  });

  it('filters by steps, reward, role, tool and verdict', async () => {
    const train = files.filter((f) => f.split === 'train');
    // The final answers with a reward of at least 0.5.
    const rich = await collect(train, { query: 'degrees', reward: { min: 0.5 }, role: 'assistant', steps: { from: 2 } });
    let expected = 0;
    for (const s of TRAIN_STEPS) for (let g = 0; g < GROUPS; g++) for (let t = 0; t < TRAJECTORIES; t++) if (s >= 2 && rewardOf(s, g, t) >= 0.5) expected++;
    assert.ok(expected > 0);
    assert.equal(rich.hits.length, expected);
    assert.ok(rich.hits.every((h) => h.reward! >= 0.5));
    // "weather" in the rollouts that call search_docs: the system prompt, the question and the scenario id.
    const docs = await collect(train, { query: 'weather', tool: 'search_docs' });
    let calls = 0;
    for (const s of TRAIN_STEPS) for (let g = 0; g < GROUPS; g++) for (let t = 0; t < TRAJECTORIES; t++) if (callsDocs(s, g, t)) calls++;
    assert.equal(docs.hits.length, calls * 3);
    assert.equal((await collect(train, { query: 'weather', tool: 'search_docs', role: 'user' })).hits.length, calls);
    // Group-level fields have no trajectory: a trajectory filter leaves them out.
    assert.equal((await collect(train, { query: 'timeout', reward: { min: 0 } })).hits.length, 0);
    // These rollouts have no logprobs: ART trains on none of them.
    assert.equal((await collect(train, { query: 'paris', verdict: 'trains' })).hits.length, 0);
    assert.equal((await collect(train, { query: 'paris', verdict: 'not-trained' })).hits.length, train.length * TRAJECTORIES * 4);
  });

  it('reports a malformed file and a malformed line, and searches on', async () => {
    const broken = join(dir(), 'broken');
    cpSync(model, broken, { recursive: true });
    const steps = await runStepFiles(broken, 'train');
    writeFileSync(steps[4]!.file, Buffer.from('PAR1 this is not a parquet file PAR1'));
    const jsonl = steps[1]!.file;
    const lines = readFileSync(jsonl, 'utf8').split('\n');
    lines[1] = '{"trajectories": [ oops';
    writeFileSync(jsonl, lines.join('\n'));
    const { hits, problems, summary } = await collect(steps, { query: 'paris' });
    assert.equal(problems.length, 2, JSON.stringify(problems));
    assert.equal(problems[0]!.file, jsonl);
    assert.equal(problems[0]!.at, 'line 2');
    assert.match(problems[0]!.message, /JSON/);
    assert.equal(problems[1]!.file, steps[4]!.file);
    assert.equal(summary.filesSearched, steps.length - 1);
    // Paris is group 1: every file but the broken Parquet one.
    assert.equal(hits.length, (steps.length - 1) * TRAJECTORIES * 4);
  });

  it('reads a JSONL step file once', async () => {
    const jsonl = files.find((f) => f.file.endsWith('.jsonl'))!;
    let read = 0;
    // eslint-disable-next-line @typescript-eslint/unbound-method -- called with its own `this` below, and put back after
    const original = FileBytes.prototype.read;
    FileBytes.prototype.read = async function (this: FileBytes, start: number, end: number) {
      const b = await original.call(this, start, end);
      read += b.length;
      return b;
    };
    try {
      const { hits } = await collect([jsonl], { query: 'paris' });
      assert.equal(hits.length, TRAJECTORIES * 4);
    } finally {
      FileBytes.prototype.read = original;
    }
    // The whole file once, and its first 3 bytes again (readLines looks for a byte order mark).
    assert.equal(read, statSync(jsonl.file).size + 3);
  });

  it('stops when cancelled, and when the caller has enough hits', async () => {
    const abort = new AbortController();
    const seen: RunHit[] = [];
    await assert.rejects(
      searchRun(files, { query: 'weather' }, { onHit: (h) => void (seen.push(h), seen.length === 3 && abort.abort(new Error('cancelled by the test'))) }, abort.signal, new SearchCache()),
      /cancelled by the test/,
    );
    assert.ok(seen.length >= 3 && seen.length < 200, `${seen.length} hits before the cancel took`);
    const few: RunHit[] = [];
    const summary = await searchRun(files, { query: 'weather' }, { onHit: (h) => few.push(h) < 5 }, undefined, new SearchCache());
    assert.equal(few.length, 5);
    assert.equal(summary.stopped, true);
    assert.equal(summary.filesSearched, 1);
  });

  it('answers a second search from the cache, and reads a step file again once it changed', async () => {
    const copy = join(dir(), 'cached');
    cpSync(model, copy, { recursive: true });
    const steps = await runStepFiles(copy);
    const cache = new SearchCache();
    const first = await collect(steps, { query: 'quito' }, cache);
    assert.deepEqual([cache.misses, cache.hits, first.summary.cached], [steps.length, 0, 0]);
    const second = await collect(steps, { query: 'quito' }, cache);
    assert.deepEqual([cache.misses, cache.hits, second.summary.cached], [steps.length, steps.length, steps.length]);
    assert.deepEqual(second.hits, first.hits);
    // Another query is answered from the same texts.
    assert.equal((await collect(steps, { query: 'lagos' }, cache)).summary.cached, steps.length);
    // Step 7 rewritten: only it is read again, and its new text is found.
    const changed = steps.find((f) => f.split === 'train' && f.step === 7)!;
    const zebra = group(7, 0);
    (zebra.trajectories as Record<string, unknown>[])[0]!.metadata = { scenario_id: 'zebra crossing' };
    await writeArtParquet(changed.file, [zebra]);
    utimesSync(changed.file, new Date(), new Date(Date.now() + 5000));
    const after = await collect(steps, { query: 'zebra' }, cache);
    assert.deepEqual([after.summary.cached, cache.misses], [steps.length - 1, steps.length + 1]);
    assert.deepEqual(after.hits.map((h) => [h.step, h.where]), [[7, 'metadata.scenario_id of trajectory 1.1']]);
  });

  it('keeps within its budget: a file larger than a quarter of it is not kept', async () => {
    const cache = new SearchCache(2000);
    await collect(files, { query: 'paris' }, cache);
    assert.deepEqual(cache.size, { files: 0, chars: 0 });
    await collect(files, { query: 'paris' }, cache);
    assert.equal(cache.hits, 0);
  });

  it('refuses catastrophic and invalid regular expressions by name, before reading', async () => {
    for (const bad of ['(a+)+$', '(\\w*)*x', '(?:ab+c?){2,}', '((a|b)+)*', '(a)\\1']) {
      assert.ok(regexProblem(bad), bad);
      await assert.rejects(collect(files, { query: bad, regex: true }), (e: Error) => e instanceof InputError && e.message.includes(`/${bad}/ is refused`));
    }
    for (const fine of ['(foo|bar)+', 'a+b*c?', '[(]+x', '\\(a+\\)+', '(ab){2}', 'time(out|d out)']) assert.equal(regexProblem(fine), undefined, fine);
    assert.throws(() => matcher('(unclosed', true), /\/\(unclosed\/ is not valid/);
    assert.throws(() => matcher('', false), /query is empty/);
  });

  it('matches a regular expression over long texts in slices, finding a match across a slice boundary', () => {
    const long = 'x'.repeat(16 * 1024 - 3) + 'needle' + 'y'.repeat(40_000);
    assert.deepEqual(matcher('needle', true).first(long), { at: 16 * 1024 - 3, length: 6 });
    assert.deepEqual(matcher('y{3}$', true).first(long), { at: long.length - 3, length: 3 }, '$ is the end of the text, not of a slice');
    assert.equal(matcher('^y', true).first(long), undefined, '^ is the start of the text, not of a slice');
    assert.equal(matcher('\\by', true).first(long), undefined, 'no word boundary at a cut');
  });

  it('takes step files given one by one, with the step from the name', () => {
    assert.deepEqual(filesAsSteps(['/r/trajectories/train/0042.parquet', '/x/other.jsonl']), [
      { file: '/r/trajectories/train/0042.parquet', split: 'train', step: 42 },
      { file: '/x/other.jsonl', split: 'x', step: 1 },
    ]);
    assert.equal(CITIES.length, GROUPS);
  });
});
