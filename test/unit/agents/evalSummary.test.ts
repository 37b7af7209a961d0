/**
 * Issue 32: svc_summarize_trajectories reads Inspect AI `.eval` logs (written by Python,
 * test/fixtures/inspect/write_eval.py): scores per task and sample, failures, tokens; a damaged
 * log is a clear problem naming the file.
 */
import * as assert from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { ToolHost } from '../../../src/agents/core/host';
import { findTool, runTool } from '../../../src/agents/core/tools';
import { writeEval } from '../../fixtures/inspect/evalFixtures';

describe('agents: svc_summarize_trajectories on an Inspect .eval log (issue 32)', function () {
  this.timeout(30_000);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-eval-summary-'));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const host: ToolHost = {
    client: () => ({ problem: 'no service' }),
    keyProblem: async () => undefined,
    origin: () => undefined,
    defaultProject: () => undefined,
    resolvePath: (f) => path.resolve(dir, f),
    readRoots: () => [dir],
    outsideRoots: 'confirm',
    feedbackCreator: () => undefined,
    signInHint: '',
    redact: (t) => t,
  };
  const summarize = findTool('svc_summarize_trajectories')!;

  it('summarizes scores per task and sample, failures and tokens, from the summaries alone', async () => {
    writeEval(path.join(dir, 'arith.eval'), { samples: 4, epochs: 2, error_sample: 3 });
    const r = await runTool(host, summarize, { file: 'arith.eval' });
    assert.strictEqual(r.isError, false, r.text);
    const text = r.text;
    assert.match(text, /an Inspect AI log \(\.eval\), status success\. Task arith, model openai\/gpt-4o-mini: 4 samples × 2 epochs \(8 sample runs\)\. Scores: match, closeness\./);
    // match: samples 1, 2, 4 scored in both epochs, one right and one wrong each: mean 0.5 over 6 runs.
    assert.match(text, /\| match \| 6 \| 0\.5 \| 0\.5 \| 0 \| 1 \| 0 \|/);
    assert.match(text, /\| closeness \| 6 \| 0\.75 \|/);
    assert.match(text, /Failures: 2 sample runs ended in an error, 0 stopped by a limit\.\n- sample 3, epoch 1: error: RuntimeError\('sandbox died'\)\n- sample 3, epoch 2/);
    assert.match(text, /Tokens over every sample run: input_tokens 340, output_tokens 192, total_tokens 532/);
    assert.match(text, /\| 3 \| 2 \| n\/a \| n\/a \| 2 \|/);
    assert.doesNotMatch(text, /Question|Show your work/, 'no sample text is quoted');
  });

  it('names a damaged log', async () => {
    fs.writeFileSync(path.join(dir, 'cut.eval'), fs.readFileSync(path.join(dir, 'arith.eval')).subarray(0, 100));
    const r = await runTool(host, summarize, { file: 'cut.eval' });
    assert.strictEqual(r.isError, true);
    assert.match(r.text, /Could not read the Inspect log .*cut\.eval: cut\.eval: not a zip, or cut short: no end-of-central-directory record/);
  });
});
