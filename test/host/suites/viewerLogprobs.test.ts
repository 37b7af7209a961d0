// The trajectory viewer's Logprobs panel (issue 30 item 3): across a file, the histogram of the
// sampled tokens' logprobs and of each turn's mean logprob, counted as the file is indexed, and the
// turns with the least likely tokens, each one click from its turn's token view. The same for a
// JSONL file and its Parquet step file. Fixture: test/fixtures/trainability/logprobs.jsonl (Python's
// json, logprobs.py); the Parquet file written by DuckDB (test/fixtures/art/parquet.ts).
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import type { ViewerSession } from '../../../src/viewer/session';
import { artRows, writeArtRows } from '../../fixtures/art/parquet';
import { waitFor } from './helpers';
import { openAsStepFile, openInViewer } from './setups';

const FIXTURE = path.resolve(__dirname, '../../../test/fixtures/trainability/logprobs.jsonl');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-viewer-logprobs-'));

const open = (file: string) => openInViewer(file, { indexed: true });

// Tokens: g1t1 [-.1 -.2 -.3], g1t2 [-1 -5], g2t1 [-.5] and [-2 -.05], g2t2 (an exchange) [-9 -1].
// Bins (edges -20 -10 -5 -3 -2 -1 -.5 -.2 -.1 -.05 -.01): -9 → 2, -5 → 3, -2 → 5, -1 -1 → 6,
// -.5 -.3 → 7, -.2 → 8, -.1 → 9, -.05 → 10. Turn means -0.2000…04 (in doubles) → 7, -3 → 4,
// -.5 → 7, -1.025 → 5, -5 → 3.
const TOKEN_BINS = [0, 0, 1, 1, 0, 1, 2, 2, 1, 1, 1, 0];
const TURN_BINS = [0, 0, 0, 1, 1, 1, 0, 2, 0, 0, 0, 0];

async function checkPanel(session: ViewerSession): Promise<void> {
  session.showLogprobs(true);
  await waitFor('the Logprobs panel', () => (session.lastRendered?.logprobs?.tokenBins.length ?? 0) > 0, 30_000);
  const p = session.lastRendered!.logprobs!;
  assert.deepStrictEqual(p.tokenBins, TOKEN_BINS);
  assert.deepStrictEqual(p.turnBins, TURN_BINS);
  assert.strictEqual(p.note, '10 sampled tokens in 5 turns with logprobs');
  assert.deepStrictEqual(
    p.turns.map((t) => t.replace(/ lowest.*/, '')),
    ['Group 2, trajectory 2, message 2', 'Group 1, trajectory 2, message 2', 'Group 2, trajectory 1, message 4', 'Group 2, trajectory 1, message 2', 'Group 1, trajectory 1, message 2'],
  );
  assert.match(p.turns[0]!, /lowest -9 \(p 1\.23e-4\) at token 1 · mean -5 over 2 tokens/);

  // One click on the least likely turn (the exchange's choice): its group and trajectory, the turn shown as tokens.
  const t0 = performance.now();
  session.showLogprobs(true, 0);
  await waitFor('the least likely turn as tokens', () => session.lastRendered!.at > t0 && session.lastRendered!.group === 1 && session.lastRendered!.trajectory === 1 && (session.lastRendered!.strips?.[0]?.nodes ?? 0) > 0, 30_000);
  const r = session.lastRendered!;
  assert.deepStrictEqual(
    r.strips!.map((s) => [s.message, s.tokens, s.nodes]),
    [[1, 2, 2]],
  );
  assert.match(r.strips![0]!.summary, /^2 tokens · mean logprob -5 /);
  // And the second: group 1, trajectory 2, a compact_logprobs choice.
  const t1 = performance.now();
  session.showLogprobs(true, 1);
  await waitFor('the second least likely turn as tokens', () => session.lastRendered!.at > t1 && session.lastRendered!.group === 0 && session.lastRendered!.trajectory === 1 && (session.lastRendered!.strips?.[0]?.nodes ?? 0) > 0, 30_000);
  assert.deepStrictEqual(session.lastRendered!.strips!.map((s) => [s.message, s.tokens, s.nodes]), [[1, 2, 2]]);

  session.showLogprobs(false);
  await waitFor('the panel to close', () => session.lastRendered!.logprobs === undefined, 20_000);
}

describe('trajectory viewer: logprobs across the file', function () {
  this.timeout(90_000);
  afterEach(() => vscode.commands.executeCommand('workbench.action.closeAllEditors'));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('draws the token and turn-mean histograms of a JSONL file, and opens a least likely turn in one click', async () => {
    const file = path.join(dir, 'step.trajectories.jsonl');
    fs.copyFileSync(FIXTURE, file);
    await checkPanel(await open(file));
  });

  it('gives a Parquet step file the same histograms and turns, from one read of its groups', async () => {
    const session = await openAsStepFile(FIXTURE, dir);
    await checkPanel(session);
  });

  it('opens a least likely turn in an additional history: the history shown, its turn as tokens', async () => {
    const file = path.join(dir, 'history.trajectories.jsonl');
    fs.copyFileSync(path.join(path.dirname(FIXTURE), 'history.jsonl'), file);
    const session = await open(file);
    session.showLogprobs(true);
    await waitFor('the Logprobs panel', () => (session.lastRendered?.logprobs?.turns.length ?? 0) > 0, 30_000);
    assert.deepStrictEqual(session.lastRendered!.logprobs!.turns.map((t) => t.replace(/ lowest.*/, '')), ['Group 1, trajectory 1, history 1, message 2', 'Group 1, trajectory 1, message 2']);
    const t0 = performance.now();
    session.showLogprobs(true, 0);
    await waitFor('the history turn as tokens', () => session.lastRendered!.at > t0 && (session.lastRendered!.strips ?? []).some((s) => s.nodes > 0), 30_000);
    // Two strips (the main turn's, the history's): only the history's is shown as tokens.
    assert.deepStrictEqual(session.lastRendered!.strips!.map((s) => [s.message, s.tokens, s.nodes]), [[1, 1, 0], [1, 2, 2]]);
  });

  it('reads a step file whose rows are out of order as ART does: the same histograms and turns', async () => {
    const file = path.join(dir, 'trajectories', 'train', '0002.parquet');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const groups = fs.readFileSync(FIXTURE, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
    const rows = artRows(groups);
    // Rows 0-1 group 0, 2-3 group 1: the groups reversed, each group's rows swapped.
    await writeArtRows(file, [3, 2, 1, 0].map((i) => rows[i]!));
    const session = await open(file);
    await checkPanel(session);
  });
});
