// The token view of a trainable turn in the trajectory viewer: the strip's summary (mean logprob,
// perplexity, tokens under p < 0.1) on a turn with logprobs, its tokens once shown, ids decoded with
// the tokenizer.json named by svc.tokenizerPath, and a 32k-token turn that starts with one chunk of
// token elements, not 32k. Fixtures: test/fixtures/tokenizer/ (make.py, Python's json).
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import { waitFor } from './helpers';
import { openInViewer as open } from './setups';

const fixtures = path.resolve(__dirname, '../../../test/fixtures/tokenizer');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-viewer-tokens-'));

describe('trajectory viewer: the token view of a turn', function () {
  this.timeout(90_000);
  afterEach(() => vscode.commands.executeCommand('workbench.action.closeAllEditors'));
  after(async () => {
    await vscode.workspace.getConfiguration('svc').update('tokenizerPath', undefined, vscode.ConfigurationTarget.Global);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('shows a turn with logprobs as its tokens, with mean logprob, perplexity and tokens under p < 0.1', async () => {
    const file = path.join(dir, 'strip.trajectories.jsonl');
    fs.copyFileSync(path.join(fixtures, 'strip.jsonl'), file);
    const session = await open(file);
    session.select(0, 0, 1, true);
    await waitFor('the strip of message 2', () => session.lastRendered?.trajectory === 0 && (session.lastRendered.strips?.[0]?.nodes ?? 0) > 0);
    assert.deepStrictEqual(session.lastRendered!.strips, [{ message: 1, tokens: 4, nodes: 4, summary: '4 tokens · mean logprob -0.815 · perplexity 2.259 · 1 under p < 0.1', text: 'The answer is 4' }]);
  });

  it('decodes token ids without text with the tokenizer.json of svc.tokenizerPath', async () => {
    await vscode.workspace.getConfiguration('svc').update('tokenizerPath', path.join(fixtures, 'byte-level'), vscode.ConfigurationTarget.Global);
    const file = path.join(dir, 'compact.trajectories.jsonl');
    fs.copyFileSync(path.join(fixtures, 'strip.jsonl'), file);
    const session = await open(file);
    session.select(0, 1, 1, true);
    await waitFor('the strip of trajectory 2', () => session.lastRendered?.trajectory === 1 && (session.lastRendered.strips?.[0]?.nodes ?? 0) > 0);
    const s = session.lastRendered!.strips![0]!;
    assert.strictEqual(s.text, 'Hello world!<|im_end|>');
    assert.strictEqual(s.tokens, 4);
  });

  it('with no tokenizer.json to be found, shows positions (token ids) and logprobs, and says how to get text', async () => {
    const empty = fs.mkdtempSync(path.join(dir, 'no-tokenizer-'));
    await vscode.workspace.getConfiguration('svc').update('tokenizerPath', empty, vscode.ConfigurationTarget.Global);
    const file = path.join(dir, 'undecoded.trajectories.jsonl');
    fs.copyFileSync(path.join(fixtures, 'strip.jsonl'), file);
    const session = await open(file);
    session.select(0, 1, 1, true);
    await waitFor('the strip of trajectory 2', () => session.lastRendered?.trajectory === 1 && (session.lastRendered.strips?.[0]?.nodes ?? 0) > 0);
    const s = session.lastRendered!.strips![0]!;
    assert.strictEqual(s.text, '#259#261#0#265');
    assert.match(s.summary, /^4 tokens · mean logprob -0\.825 /);
    assert.match(s.note ?? '', /no tokenizer\.json was found for test-org\/tiny-bpe: set svc\.tokenizerPath to the model's tokenizer\.json \(or its folder\), or put it in the Hugging Face cache/);
  });

  it('starts a 32k-token turn with one chunk of token elements', async () => {
    // The fixture's compact choice, its lists grown to 32,768 tokens.
    const group = JSON.parse(fs.readFileSync(path.join(fixtures, 'strip.jsonl'), 'utf8')) as { trajectories: { messages_and_choices: Record<string, unknown>[] }[] };
    const c = group.trajectories[1]!.messages_and_choices[1]!;
    const n = 32_768;
    c.token_ids = Array.from({ length: n }, (_, i) => (i * 7) % 256);
    c.compact_logprobs = Array.from({ length: n }, (_, i) => -((i % 50) / 10));
    c.compact_top_logprobs = { token_ids: Array.from({ length: n }, (_, i) => [(i * 7) % 256, 0]), logprobs: Array.from({ length: n }, (_, i) => [-((i % 50) / 10), -9]) };
    group.trajectories = [group.trajectories[1]!];
    const file = path.join(dir, 'long.trajectories.jsonl');
    fs.writeFileSync(file, `${JSON.stringify(group)}\n`);
    const session = await open(file);
    const before = session.lastRendered!.domNodes;
    const t0 = performance.now();
    session.select(0, 0, 1, true);
    await waitFor('the long strip', () => (session.lastRendered?.strips?.[0]?.nodes ?? 0) > 0 && session.lastRendered!.at > t0);
    const r = session.lastRendered!;
    const s = r.strips![0]!;
    console.log(`      32k-token strip: first paint ${(r.at - t0).toFixed(0)} ms after select, ${s.nodes} token elements, DOM ${before} → ${r.domNodes} nodes`);
    assert.strictEqual(s.tokens, n);
    assert.ok(s.nodes <= 800, `${s.nodes} token elements at first`);
    assert.ok(r.domNodes < before + 2000, `DOM grew from ${before} to ${r.domNodes} nodes`);
  });
});
