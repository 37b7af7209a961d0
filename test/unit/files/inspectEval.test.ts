/**
 * Issue 32: Inspect AI `.eval` logs read (header, summaries, samples on demand, attachments) and
 * converted to ART groups that pass the upload's own validation. The logs are written by Python
 * (test/fixtures/inspect/write_eval.py: zipfile + the zstd tool, JSON from Inspect's field lists).
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { validateTrajectoryFile } from '../../../src/files';
import { EvalLog } from '../../../src/files/inspectEval';
import { scoreValue, toArtGroups } from '../../../src/files/inspectArt';
import { useTempDir } from './helpers';
import { FIXTURES, writeEval } from '../../fixtures/inspect/evalFixtures';
import { ZipReader } from '../../../src/files/zip';

type Obj = Record<string, any>;

describe('files/inspectEval: Inspect AI .eval logs (issue 32)', function () {
  this.timeout(60_000);
  const dir = useTempDir();
  let log = '';
  before(() => {
    log = writeEval(join(dir(), 'arith.eval'), { compression: 'mixed', samples: 4, epochs: 2, error_sample: 3, frame_bytes: 700, pad: 3000 });
  });

  it('opens from the header and summaries alone: samples listed with their epochs, no sample entry read', async () => {
    const read: string[] = [];
    // eslint-disable-next-line @typescript-eslint/unbound-method -- called with its own `this` below
    const original = ZipReader.prototype.read;
    ZipReader.prototype.read = function (name: string, signal?: AbortSignal) {
      read.push(name);
      return original.call(this, name, signal);
    };
    const eval_ = await EvalLog.open(log).finally(() => (ZipReader.prototype.read = original));
    try {
      assert.deepEqual(read, ['header.json', 'summaries.json']);
      assert.equal(eval_.task, 'arith');
      assert.equal(eval_.model, 'openai/gpt-4o-mini');
      assert.deepEqual(eval_.samples.map((g) => [g.id, g.epochs.map((e) => e.epoch)]), [[1, [1, 2]], [2, [1, 2]], [3, [1, 2]], [4, [1, 2]]]);
      assert.deepEqual(eval_.scoreNames, ['match', 'closeness']);
      assert.equal(eval_.samples[2]!.epochs[0]!.error, "RuntimeError('sandbox died')");
    } finally {
      await eval_.close();
    }
  });

  it('reads a sample with its attachment:// strings resolved (the question and a 3,000-byte tool output)', async () => {
    const eval_ = await EvalLog.open(log);
    try {
      const s = (await eval_.sample(2, 1)) as Obj;
      assert.match(s.input, /^Question 2: what is 2 \+ 2\?/);
      assert.match(s.messages[1].content, /^Question 2/);
      assert.equal(s.messages[3].content.length, 1 + 3000);
      assert.ok(!JSON.stringify(s.messages).includes('attachment://'));
    } finally {
      await eval_.close();
    }
  });

  it('converts to ART groups (one per sample, its epochs) that pass the upload validation', async () => {
    const { groups, lost, scores } = await toArtGroups(log, {});
    assert.deepEqual(scores, ['match', 'closeness']);
    assert.equal(groups.length, 4);
    const g = groups as Obj[];
    assert.deepEqual(g.map((x) => x.trajectories.length), [2, 2, 0, 2]);
    // Sample 3 ended in an error: its epochs are the group's exceptions.
    assert.equal(g[2]!.exceptions.length, 2);
    assert.match(g[2]!.exceptions[0].message, /^sample 3, epoch 1: RuntimeError\('sandbox died'\)/);
    // Reward: the first score, "C" → 1, "I" → 0 (Inspect's value_to_float).
    assert.deepEqual(g.map((x) => x.trajectories.map((t: Obj) => t.reward)), [[1, 0], [0, 1], [], [0, 1]]);
    const t = g[0]!.trajectories[0] as Obj;
    const mc = t.messages_and_choices as Obj[];
    assert.deepEqual(mc.map((m) => m.role ?? `choice:${m.finish_reason}`), ['system', 'user', 'choice:tool_calls', 'tool', 'choice:stop']);
    assert.deepEqual(mc[2]!.message.tool_calls, [{ id: 'call_1_1', type: 'function', function: { name: 'add', arguments: '{"a":1,"b":1}' } }]);
    assert.equal(mc[2]!.message.reasoning_content, 'I should add 1 and 1.');
    assert.equal(mc[3]!.tool_call_id, 'call_1_1');
    assert.equal(t.tools[0].function.name, 'add');
    assert.equal(t.metrics.input_tokens, 41);
    assert.equal(t.metrics.closeness, 1);
    assert.equal(t.metadata['match.explanation'], 'ANSWER: 2');
    // The events, a line each (their full content is not kept).
    assert.deepEqual(t.logs, ['10:00:00 sample_init', '10:00:01 model openai/gpt-4o-mini: 41 in / 12 out', '10:00:02 tool add({"a":1,"b":1})', '10:00:03 score match: C']);
    assert.deepEqual(lost, ["events (the transcript of model calls, tool calls, scoring steps: a line each is kept in the trajectory's logs) (6 samples)"]);
    const file = join(dir(), 'converted.jsonl');
    writeFileSync(file, groups.map((x) => JSON.stringify(x)).join('\n') + '\n');
    const summary = await validateTrajectoryFile(file);
    assert.deepEqual(summary.problems.filter((p) => p.severity === 'error'), []);
  });

  it('takes the reward from the score asked for, and groups by a metadata key', async () => {
    const { groups } = await toArtGroups(log, { reward: 'closeness', groupBy: 'difficulty' });
    const g = groups as Obj[];
    assert.deepEqual(g.map((x) => x.metadata.difficulty), ['easy', 'hard']);
    assert.deepEqual(g.map((x) => x.trajectories.map((t: Obj) => `${t.metadata.sample_id}:${t.reward}`)), [['1:1', '1:0.5'], ['2:0.5', '2:1', '4:0.5', '4:1']]);
    await assert.rejects(toArtGroups(log, { reward: 'accuracy' }), { message: 'arith.eval has no score "accuracy"; its scores: match, closeness' });
  });

  it('reads an unfinished log from its journal (no header.json, no summaries.json), and says so', async () => {
    const path = writeEval(join(dir(), 'running.eval'), { journal: true, samples: 2, epochs: 1 });
    const { groups, lost } = await toArtGroups(path, {});
    assert.equal(groups.length, 2);
    assert.equal(lost[0], 'the log is unfinished (read from its journal): 2 samples so far');
  });

  it('names the file, entry and field of a summary that is not as Inspect writes it', async () => {
    const path = writeEval(join(dir(), 'bad.eval'), { break_summary: true, samples: 1, epochs: 1 });
    await assert.rejects(EvalLog.open(path), { message: 'bad.eval, entry summaries.json, field [0].epoch: Invalid input: expected number, received string' });
  });

  it('names the entry and field of a sample that is not JSON, quoting none of its text', async () => {
    const path = writeEval(join(dir(), 'broken.eval'), { break_sample: 'samples/1_epoch_1.json', samples: 1, epochs: 1 });
    const eval_ = await EvalLog.open(path);
    try {
      await assert.rejects(eval_.sample(1, 1), (e: Error) => {
        assert.match(e.message, /^broken\.eval, entry samples\/1_epoch_1\.json, field epoch \(line 1\): not JSON: /);
        assert.doesNotMatch(e.message, /secret-key-text/);
        return true;
      });
    } finally {
      await eval_.close();
    }
  });

  it('names the entry of a sample the summaries list but the zip lacks', async () => {
    const path = writeEval(join(dir(), 'gap.eval'), { drop_sample: 'samples/1_epoch_2.json', samples: 1, epochs: 2 });
    await assert.rejects(toArtGroups(path, {}), { message: 'gap.eval: no entry samples/1_epoch_2.json (the summaries list sample 1, epoch 2)' });
  });

  it('converts every kind of content part, and counts what ART has no place for in `lost`', async () => {
    const path = writeEval(join(dir(), 'rich.eval'), { rich: true, samples: 1, epochs: 2 });
    const { groups, lost } = await toArtGroups(path, {});
    const mc = (groups as Obj[])[0]!.trajectories[0].messages_and_choices as Obj[];
    assert.deepEqual(mc[1]!.content, [
      { type: 'text', text: 'What is in this picture?' },
      { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=', detail: 'low' } },
      { type: 'text', text: '[audio content not converted]' },
    ]);
    assert.equal(mc[2]!.message.reasoning_content, 'Thought about it.');
    assert.equal(mc[2]!.message.content, '[web_search search({"q": "png"}) → a logo]\nLet me add them.');
    assert.equal(mc[3]!.content, 'Error (timeout): the add tool timed out');
    assert.deepEqual(lost, [
      "audio content (audio, video, documents and data are not in ART's chat format) (1 sample)",
      'redacted reasoning (only its summary, if any, is shown) (1 sample)',
      'provider tool uses (web search, MCP, code execution) turned into text (1 sample)',
      "events (the transcript of model calls, tool calls, scoring steps: a line each is kept in the trajectory's logs) (2 samples)",
    ]);
    const file = join(dir(), 'rich.jsonl');
    writeFileSync(file, groups.map((x) => JSON.stringify(x)).join('\n') + '\n');
    assert.deepEqual((await validateTrajectoryFile(file)).problems.filter((p) => p.severity === 'error'), []);
  });

  it("the demo workspace's log (test/fixtures/inspect/demo.eval) converts to 6 groups of 3 epochs, sample 5 all exceptions", async () => {
    const { groups } = await toArtGroups(join(FIXTURES, 'demo.eval'), {});
    assert.deepEqual((groups as Obj[]).map((g) => [g.trajectories.length, g.exceptions?.length ?? 0]), [[3, 0], [3, 0], [3, 0], [3, 0], [0, 3], [3, 0]]);
  });

  it("maps score values as Inspect's value_to_float does", () => {
    assert.deepEqual(['C', 'P', 'I', 'N', 'yes', 'FALSE', '0.25', true, 3, [1], { a: 1 }, null, 'maybe'].map(scoreValue), [1, 0.5, 0, 0, 1, 0, 0.25, 1, 3, undefined, undefined, undefined, undefined]);
  });
});
