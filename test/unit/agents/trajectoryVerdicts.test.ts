// The agents' trainability answers in plain Node, through runTool as both VS Code and the MCP server
// call it: svc_summarize_trajectories' summary line and "ART trains" column, and
// svc_explain_trajectory's verdict with its reasons and numbers. Fixtures: test/fixtures/trainability/
// (Python's json, ART's shapes).
import * as assert from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { findTool, runTool } from '../../../src/agents/core/tools';
import { readHost } from './readHost';
import { writeArtParquet } from '../../fixtures/art/parquet';

const root = path.resolve(__dirname, '../../..');
const host = readHost([root, os.tmpdir()], root);
const STEP = 'test/fixtures/trainability/step.jsonl';
const RAISES = 'test/fixtures/trainability/raises.jsonl';

async function run(name: string, input: unknown) {
  const t = findTool(name);
  assert.ok(t, `${name} is a tool`);
  return runTool(host, t, input);
}

/** The cells of the table row of group `g`. */
function row(text: string, g: number): string[] {
  const line = text.split('\n').find((l) => new RegExp(`^\\| ${g} \\|`).test(l));
  assert.ok(line, `row of group ${g} in\n${text}`);
  return line.split('|').slice(1, -1).map((c) => c.trim());
}

describe('agents: svc_summarize_trajectories says what ART will train on', () => {
  it('gives the file summary line and an "ART trains" column per group', async () => {
    const r = await run('svc_summarize_trajectories', { file: STEP });
    assert.strictEqual(r.isError, false, r.text);
    assert.match(r.text, /ART training \(its default settings\): Of 17 trajectories, 7 will train; 2 zero advantage, 3 in groups without reward variance, 1 in a group of one, 1 without logprobs, .*1 exception\./);
    const header = r.text.split('\n').find((l) => l.startsWith('| group |'))!;
    const col = header.split('|').slice(1, -1).map((c) => c.trim()).indexOf('ART trains');
    assert.ok(col > 0, header);
    assert.strictEqual(row(r.text, 0)[col], '2 of 4');
    assert.strictEqual(row(r.text, 1)[col], '0 of 3: no reward variance');
    assert.strictEqual(row(r.text, 2)[col], '0 of 1: group of one');
    assert.match(r.text, /svc_explain_trajectory/);
  });

  it('says when the step would make ART raise', async () => {
    const r = await run('svc_summarize_trajectories', { file: RAISES });
    assert.match(r.text, /ART would stop with an error at this step: 5 trajectories make it raise\./);
    assert.strictEqual(row(r.text, 0).at(-1), '1 of 2; ART raises');
  });
});

describe('agents: svc_explain_trajectory', () => {
  it('explains a zero-advantage trajectory with the numbers and the ART rule', async () => {
    const r = await run('svc_explain_trajectory', { file: STEP, group: 0, trajectory: 2 });
    assert.strictEqual(r.isError, false, r.text);
    assert.match(r.text, /group 0 \(line 1\), trajectory 2 of 4: ART does not train on it: zero advantage\./);
    assert.match(r.text, /Advantage: reward 0\.5 − group mean 0\.5 = 0; over std 0\.353553 \+ 1e-6 \(scale_rewards=True, ART's default\) = 0\./);
    assert.match(r.text, /its reward 0\.5 equals its group's mean 0\.5/);
    assert.match(r.text, /OpenPipe\/ART@e8f1ffc3/);
  });

  it('says a trainable trajectory trains, with its advantage and turns', async () => {
    const r = await run('svc_explain_trajectory', { file: STEP, group: 0, trajectory: 0 });
    assert.match(r.text, /trajectory 0 of 4: ART trains on it\./);
    assert.match(r.text, /Advantage: reward 1 − group mean 0\.5 = 0\.5; over std 0\.353553 \+ 1e-6 \(scale_rewards=True, ART's default\) = 1\.41421\./);
    assert.match(r.text, /Turns: 1 choice, 1 with logprobs \(logprobs\.content\), 3 tokens\./);
  });

  it('names the missing logprobs and the setting that would change it', async () => {
    const r = await run('svc_explain_trajectory', { file: STEP, group: 3, trajectory: 0 });
    assert.match(r.text, /ART does not train on it: no logprobs\./);
    assert.match(r.text, /allow_training_without_logprobs/);
    const compact = await run('svc_explain_trajectory', { file: STEP, group: 3, trajectory: 1 });
    assert.match(compact.text, /ART trains on it\./);
    assert.match(compact.text, /1 with logprobs \(compact_logprobs\)/);
  });

  it('explains an exchange trajectory and a group with an exception', async () => {
    const x = await run('svc_explain_trajectory', { file: STEP, group: 6, trajectory: 0 });
    assert.match(x.text, /ART trains on it\./);
    assert.match(x.text, /exchanges/);
    const e = await run('svc_explain_trajectory', { file: STEP, group: 5, trajectory: 1 });
    assert.match(e.text, /1 rollout raised/);
  });

  it('refuses a group or trajectory that is not in the file, naming what is', async () => {
    const g = await run('svc_explain_trajectory', { file: STEP, group: 7, trajectory: 0 });
    assert.strictEqual(g.isError, true);
    assert.match(g.text, /has 7 groups \(0–6\)/);
    const t = await run('svc_explain_trajectory', { file: STEP, group: 2, trajectory: 1 });
    assert.strictEqual(t.isError, true);
    assert.match(t.text, /group 2 has 1 trajectory \(0–0\)/);
    const bad = await run('svc_explain_trajectory', { file: STEP, group: -1, trajectory: 0 });
    assert.strictEqual(bad.isError, true);
    assert.match(bad.text, /group/);
  });
});

describe('agents: the same verdicts from an ART Parquet step file (written by DuckDB)', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-verdicts-'));
  const file = path.join(dir, '0001.parquet');
  before(async () => {
    const groups = fs
      .readFileSync(path.join(root, STEP), 'utf8')
      .split('\n')
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    await writeArtParquet(file, groups);
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('gives the JSONL file\'s summary line and column, and explains by row', async () => {
    const jsonl = await run('svc_summarize_trajectories', { file: STEP });
    const parquet = await run('svc_summarize_trajectories', { file });
    assert.strictEqual(parquet.isError, false, parquet.text);
    const line = (t: string) => t.split('\n').find((l) => l.startsWith('ART training'));
    assert.ok(line(parquet.text));
    assert.strictEqual(line(parquet.text), line(jsonl.text));
    const last = (t: string) => t.split('\n').filter((l) => /^\| \d/.test(l)).map((l) => l.split('|').slice(1, -1).at(-1)!.trim());
    assert.deepStrictEqual(last(parquet.text), last(jsonl.text));
    const r = await run('svc_explain_trajectory', { file, group: 3, trajectory: 0 });
    assert.match(r.text, /group 3 \(row 8\), trajectory 0 of 2: ART does not train on it: no logprobs\./);
  });
});
