// svc_summarize_trajectories across a file (issue 30 item 3): the distribution of the sampled
// tokens' logprobs and of each turn's mean logprob, and the turns with the least likely tokens named
// by group, trajectory and turn. The file is written by Python's json in ART's shapes (OpenAI
// logprobs.content, ART's compact_logprobs on a choice, an exchange's response choice); the
// quantiles asserted are worked out by hand below.
import * as assert from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { findTool, runTool } from '../../../src/agents/core/tools';
import { readHost } from './readHost';

/** Written by Python's json in ART's shapes (test/fixtures/trainability/logprobs.py). */
const FIXTURE = path.resolve(__dirname, '../../fixtures/trainability/logprobs.jsonl');

// Tokens: g0t0 [-.1 -.2 -.3], g0t1 [-1 -5], g1t0 [-.5] and [-2 -.05], g1t1 (exchange) [-9 -1].
// Sorted (10): -9 -5 -2 -1 -1 -.5 -.3 -.2 -.1 -.05; the value at index round(q × 9): min -9, 1% -9,
// 5% -9, 25% -2, median -.5, 75% -.2, 95% -.05, max -.05.
// Turn means (5): -.2, -3, -.5, -1.025, -5; sorted -5 -3 -1.025 -.5 -.2, at index round(q × 4):
// min -5, 1% -5, 5% -5, 25% -3, median -1.025, 75% -.5, 95% -.2, max -.2.
describe('agents: svc_summarize_trajectories gives the logprob distribution across a file', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-logprobs-'));
  const file = path.join(dir, '0001.jsonl');
  const host = readHost([dir]);
  before(() => fs.copyFileSync(FIXTURE, file));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('prints token and turn-mean quantiles and names the turns with the least likely tokens', async () => {
    const r = await runTool(host, findTool('svc_summarize_trajectories')!, { file });
    assert.strictEqual(r.isError, false, r.text);
    assert.match(r.text, /\nLogprobs of the sampled tokens \(10 tokens in 5 turns\): min -9, 1% -9, 5% -9, 25% -2, median -0\.5, 75% -0\.2, 95% -0\.05, max -0\.05\.\n/);
    assert.match(r.text, /\nMean logprob per turn: min -5, 1% -5, 5% -5, 25% -3, median -1\.025, 75% -0\.5, 95% -0\.2, max -0\.2\.\n/);
    assert.match(
      r.text,
      /\nTurns with the least likely tokens: group 1, trajectory 1, turn 0 \(exchanges\.chat_completions\[0\]\.response\.choices\[0\]\): lowest -9 \(probability 1\.23e-4\), mean -5 over 2 tokens; group 0, trajectory 1, turn 0 \(messages_and_choices\[1\]\): lowest -5 \(probability 0\.006738\), mean -3 over 2 tokens; group 1, trajectory 0, turn 1 \(messages_and_choices\[3\]\): lowest -2 .*; group 1, trajectory 0, turn 0 \(messages_and_choices\[1\]\): lowest -0\.5 .*; group 0, trajectory 0, turn 0 \(messages_and_choices\[1\]\): lowest -0\.3 .*\.\n/,
    );
  });
});
