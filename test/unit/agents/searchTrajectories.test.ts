// svc_search_trajectories: the run search through the agents' tool, its page and its cut, on the
// search run of test/fixtures/art/searchRun.ts (JSONL steps and Parquet steps written by DuckDB).
import * as assert from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { findTool, runTool } from '../../../src/agents/core/tools';
import { readHost } from './readHost';
import { TRAIN_STEPS, TRAJECTORIES, VAL_STEPS, writeSearchRun } from '../../fixtures/art/searchRun';

describe('agents: svc_search_trajectories', function () {
  this.timeout(60_000);
  let dir = '';
  let model = '';
  let outside = '';
  const host = () => readHost([dir], dir);
  const run = (input: unknown) => runTool(host(), findTool('svc_search_trajectories')!, input);
  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-search-tool-'));
    outside = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-search-outside-'));
    model = await writeSearchRun(dir);
  });
  after(() => {
    fs.rmSync(dir, { recursive: true, force: true });
    fs.rmSync(outside, { recursive: true, force: true });
  });

  it('finds every hit of a run, shows `limit` of them and says how to get the rest', async () => {
    const total = (TRAIN_STEPS.length + VAL_STEPS.length) * TRAJECTORIES * 4;
    const r = await run({ run: path.relative(dir, model), query: 'lagos' });
    assert.strictEqual(r.isError, false, r.text);
    const files = TRAIN_STEPS.length + VAL_STEPS.length;
    assert.match(r.text, new RegExp(`Searched ${files} of ${files} step files of the run .+ for “lagos”: ${total} hits in ${files * TRAJECTORIES} trajectories`));
    assert.ok(r.text.includes(`Steps: train 1–40; val ${VAL_STEPS.join(', ')}.`), r.text.slice(0, 400));
    assert.match(r.text, new RegExp(`Showing first 20 of ${total} hits; pass offset 20 for more\\.`));
    const rows = r.text.split('\n').filter((l) => /^\| (train|val) \|/.test(l));
    assert.strictEqual(rows.length, 20);
    assert.match(rows[0]!, /^\| train \| 1 \| 1 \| 0 \| message 2 of trajectory 2\.1 \(content\) \| .+ \| Scenario 1: what is the weather in Lagos\? \|$/);
    const middle = await run({ run: path.relative(dir, model), query: 'lagos', offset: 150, limit: 50 });
    assert.match(middle.text, new RegExp(`Showing 151–200 of ${total} hits; pass offset 200 for more\\.`));
    const last = await run({ run: path.relative(dir, model), query: 'lagos', offset: total - 10, limit: 50 });
    assert.strictEqual(last.text.split('\n').filter((l) => /^\| (train|val) \|/.test(l)).length, 10);
    assert.doesNotMatch(last.text, /pass offset/);
  });

  it('finds the TimeoutError of a group with a regular expression and the filters', async () => {
    const r = await run({ run: path.join(model, 'history.jsonl'), query: 'time(out|d out)', regex: true, split: 'train', steps: { from: 5, to: 7 } });
    assert.match(r.text, /: 1 hit in 1 trajectory/);
    assert.match(r.text, /\| train \| 6 \| 2 \| {2}\| exception 1 of group 3 \| {2}\| TimeoutError: rollout 3 timed out/);
    const user = await run({ run: model, query: 'weather', role: 'user', tool: 'search_docs', reward: { min: 0.5 } });
    assert.strictEqual(user.isError, false, user.text);
    for (const line of user.text.split('\n').filter((l) => /^\| (train|val) \|/.test(l))) assert.match(line, /message 2 of trajectory/);
  });

  it('refuses a catastrophic pattern, a run outside the read roots and a missing split by name', async () => {
    const bad = await run({ run: model, query: '(a+)+$', regex: true });
    assert.strictEqual(bad.isError, true);
    assert.match(bad.text, /\/\(a\+\)\+\$\/ is refused: a quantified group holds a quantifier/);
    const far = await run({ run: outside, query: 'x' });
    assert.strictEqual(far.isError, true);
    assert.match(far.text, /is outside the folders this server reads/);
    const split = await run({ run: model, query: 'x', split: 'test' });
    assert.match(split.text, /has no split “test” \(it has train, val\)/);
    const both = await run({ query: 'x' });
    assert.match(both.text, /Give exactly one of run and files/);
  });

  it('names a malformed step file and searches the others', async () => {
    const copy = path.join(dir, 'broken');
    fs.cpSync(model, copy, { recursive: true });
    const target = path.join(copy, 'trajectories', 'train', '0005.parquet');
    fs.writeFileSync(target, 'not parquet at all');
    const r = await run({ run: copy, query: 'quito', split: 'train' });
    assert.match(r.text, new RegExp(`Searched ${TRAIN_STEPS.length - 1} of ${TRAIN_STEPS.length} step files`));
    assert.match(r.text, /Problems \(1; those files or groups were skipped\):\n- .*0005\.parquet: /);
    assert.match(r.text, new RegExp(`: ${(TRAIN_STEPS.length - 1) * TRAJECTORIES * 4} hits`));
  });
});
