import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseRef } from '../../../src/api/refs';
import { validateCallsFile } from '../../../src/calls/reader';
import { groupText, openArtParquet, readArtGroups, validateTrajectoryFile, type ArtGroup } from '../../../src/files';
import { readHistory } from '../../../src/dashboard/shared/history';
import { ART_CHOICE_TOKEN_FIELDS, ART_EXCEPTION_FIELDS, ART_GROUP_FIELDS, ART_TRAJECTORY_FIELDS, OPENAI_CHOICE_FIELDS, OPENAI_MESSAGE_FIELDS } from '../../fixtures/viewer/producers';
import { groupVerdict } from '../../../src/files/verdicts';

const root = path.resolve(__dirname, '..', '..', '..');
import { scenarioHistory } from '../../../src/viewer/scenario';
const { writeDemoWorkspace } = require('../../../scripts/demo-workspace.js') as {
  writeDemoWorkspace: (dir: string, o: { fixture: string; serviceUrl?: string }) => { name: string; what: string }[];
};

describe('scripts/demo-workspace.js: the sample files of `npm run demo`', () => {
  const fixture = path.join(root, 'test', 'fixtures', 'demo.json');
  let dir: string;
  let files: { name: string; what: string }[];
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-demo-ws-'));
    files = writeDemoWorkspace(dir, { fixture, serviceUrl: 'http://127.0.0.1:8787' });
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('names a good and a bad trajectory file, a step file, a calls file, the history of a training run and notes, each with what to do', () => {
    assert.deepEqual(files.map((f) => f.name), ['rollouts.jsonl', 'support-agent.trajectories.jsonl', 'rollouts-with-mistakes.jsonl', '.art/demo/models/agent-7b/trajectories/train/0001.parquet', 'harbor/jobs/2026-11-27__09-30-00', 'inspect/arith.eval', 'calls.jsonl', '.art/demo/models/agent-7b/history.jsonl', '.art/demo/models/agent-7b-scenarios/history.jsonl', 'notes.md']);
    for (const f of files) assert.ok(fs.existsSync(path.join(dir, f.name)), f.name);
    const readme = fs.readFileSync(path.join(dir, 'README.md'), 'utf8');
    for (const f of files) assert.ok(readme.includes(f.name), `the workspace README names ${f.name}`);
  });

  it('grows a run of 40 train and 10 val steps whose scenarios recur, for following one across steps (issue 31)', async () => {
    const run = path.join(dir, '.art', 'demo', 'models', 'agent-7b-scenarios');
    const names = (split: string) => fs.readdirSync(path.join(run, 'trajectories', split)).sort();
    assert.equal(names('train').length, 40);
    assert.equal(names('val').length, 10);
    assert.deepEqual(names('train').slice(0, 3), ['0001.jsonl', '0002.jsonl', '0003.parquet']);
    const h = await scenarioHistory({ run, scenario: 'scenario-02' });
    assert.equal(h.steps.length, 40);
    assert.ok(h.firstChange !== undefined && h.firstChange > 1, 'the answer changes at some step');
  });

  it('the good trajectory file validates; the bad one has the mistakes it says, at their lines', async () => {
    const good = await validateTrajectoryFile(path.join(dir, 'rollouts.jsonl'));
    assert.deepEqual(good.problems, []);
    const bad = await validateTrajectoryFile(path.join(dir, 'rollouts-with-mistakes.jsonl'));
    const errors = bad.problems.filter((p) => p.severity === 'error');
    assert.deepEqual(errors.map((p) => p.line), [2, 2, 4]);
    assert.match(files.find((f) => f.name === 'rollouts-with-mistakes.jsonl')!.what, /3 mistakes \(lines 2 and 4\)/);
  });

  it('keeps rollouts.jsonl small for the upload tour: 3 groups of one trajectory', () => {
    const lines = fs.readFileSync(path.join(dir, 'rollouts.jsonl'), 'utf8').trim().split('\n');
    assert.deepEqual(lines.map((l) => (JSON.parse(l) as { trajectories: unknown[] }).trajectories.length), [1, 1, 1]);
  });

  it("makes every trainability verdict show in the rich file: most choices with OpenAI logprobs and token ids, ART's compact logprobs, none, zero advantage", () => {
    type O = Record<string, unknown>;
    const groups = fs.readFileSync(path.join(dir, 'support-agent.trajectories.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as O);
    const choices = groups.flatMap((g) => (g.trajectories as O[]).flatMap((t) => (t.messages_and_choices as O[]).filter((m) => !('role' in m))));
    const openai = choices.filter((c) => Array.isArray((c.logprobs as O | null)?.content) && Array.isArray(c.token_ids));
    const compact = choices.filter((c) => Array.isArray(c.compact_logprobs) && c.compact_top_logprobs && c.logprobs === null);
    const none = choices.filter((c) => c.logprobs === null && c.compact_logprobs === undefined);
    assert.ok(openai.length > choices.length / 2, `most choices carry OpenAI logprobs.content: ${openai.length} of ${choices.length}`);
    assert.ok(compact.length > 0 && none.length > 0, `compact ${compact.length}, none ${none.length}`);
    for (const c of openai) assert.equal(((c.logprobs as O).content as unknown[]).length, (c.token_ids as unknown[]).length, 'one logprob per token id');
    // By the verdicts (docs/trainability.md): what ART trains on, and each reason it skips.
    const verdicts = groups.map((g) => groupVerdict(g));
    const codes = verdicts.flatMap((v) => v.members.map((m) => m.primary?.code ?? 'trains'));
    assert.deepEqual([...new Set(codes)].sort(), ['no-logprobs', 'trains', 'zero-advantage', 'zero-variance']);
    assert.ok(verdicts.every((v) => !v.fails), 'nothing makes ART raise');
    assert.ok(codes.filter((c) => c === 'trains').length > codes.length / 2, 'most trajectories train');
    assert.ok(verdicts.some((v) => v.exceptions > 0), 'a group with exceptions');
  });

  it('holds a rich trajectory file that shows the viewer: groups of 4 to 8 with varied rewards, one without signal, out-of-order tool results, reasoning, exceptions and a long message', async () => {
    const file = path.join(dir, 'support-agent.trajectories.jsonl');
    assert.deepEqual((await validateTrajectoryFile(file)).problems, [], 'it validates (and could be uploaded)');
    type O = Record<string, unknown>;
    const groups = fs.readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as O);
    const sizes = groups.map((g) => (g.trajectories as unknown[]).length);
    assert.ok(sizes.every((n) => n >= 4 && n <= 8), `groups of 4 to 8: ${sizes.join(', ')}`);
    const rewards = groups.map((g) => (g.trajectories as O[]).map((t) => t.reward as number));
    const flat = rewards.filter((r) => new Set(r).size === 1);
    assert.equal(flat.length, 1, 'exactly one group has no learning signal');
    assert.ok(rewards.filter((r) => new Set(r).size >= 4).length >= 2, 'the others have varied rewards');
    // Only the fields the producers write (ART's pydantic dump, the OpenAI SDK's choice and message).
    for (const g of groups) {
      for (const k of Object.keys(g)) assert.ok(ART_GROUP_FIELDS.includes(k), `group field ${k}`);
      for (const x of g.exceptions as O[]) assert.deepEqual(Object.keys(x), ART_EXCEPTION_FIELDS);
      for (const t of g.trajectories as O[]) {
        for (const k of Object.keys(t)) assert.ok(ART_TRAJECTORY_FIELDS.includes(k), `trajectory field ${k}`);
        for (const m of t.messages_and_choices as O[]) {
          if ('role' in m) continue;
          for (const k of Object.keys(m)) assert.ok(OPENAI_CHOICE_FIELDS.includes(k) || ART_CHOICE_TOKEN_FIELDS.includes(k), `choice field ${k}`);
          for (const k of Object.keys(m.message as O)) assert.ok(OPENAI_MESSAGE_FIELDS.includes(k), `message field ${k}`);
        }
      }
    }
    const items = groups.flatMap((g) => (g.trajectories as O[]).map((t) => t.messages_and_choices as O[]));
    const outOfOrder = items.some((ms) =>
      ms.some((m, i) => {
        const calls = ((m.message as O | undefined)?.tool_calls as { id: string }[] | null | undefined) ?? [];
        const answered = ms.slice(i + 1, i + 1 + calls.length).map((r) => r.tool_call_id);
        return calls.length >= 2 && answered.length === calls.length && answered.join() !== calls.map((c) => c.id).join() && [...answered].sort().join() === calls.map((c) => c.id).sort().join();
      }),
    );
    assert.ok(outOfOrder, 'parallel tool calls whose results come back in another order');
    assert.ok(items.flat().some((m) => typeof (m.message as O | undefined)?.reasoning_content === 'string'), 'reasoning (vLLM reasoning_content)');
    assert.ok(groups.some((g) => (g.exceptions as unknown[]).length > 0), 'a group with exceptions');
    assert.ok(items.flat().some((m) => typeof m.content === 'string' && m.content.length > 10_000), 'a long message');
    assert.match(files.find((f) => f.name === 'support-agent.trajectories.jsonl')!.what, /Trajectory Viewer/);
  });

  it('holds ART step files as ART writes them now: version 2 Parquet, legacy and exchange trajectories, groups of 4 to 8, an empty group with its exception', async () => {
    const split = path.join(dir, '.art', 'demo', 'models', 'agent-7b', 'trajectories');
    assert.deepEqual(fs.readdirSync(path.join(split, 'train')).sort(), ['0001.parquet', '0002.parquet', '0003.parquet', '0004.parquet', '0005.parquet']);
    assert.deepEqual(fs.readdirSync(path.join(split, 'val')), ['0005.parquet']);
    const groups = async (file: string) => {
      const { file: f, info } = await openArtParquet(file);
      const out: Record<string, unknown>[] = [];
      try {
        assert.equal(info.version, 2);
        for await (const g of readArtGroups(f)) out.push(JSON.parse(groupText(g as ArtGroup)) as Record<string, unknown>);
      } finally {
        await f.close();
      }
      return out;
    };
    const step3 = await groups(path.join(split, 'train', '0003.parquet'));
    const full = step3.filter((g) => Array.isArray(g.trajectories));
    assert.ok(full.every((g) => (g.trajectories as unknown[]).length >= 4 && (g.trajectories as unknown[]).length <= 8));
    const trajectories = full.flatMap((g) => g.trajectories as Record<string, Record<string, unknown[]>>[]);
    assert.ok(trajectories.some((t) => Array.isArray(t.messages_and_choices)), 'legacy trajectories');
    assert.ok(trajectories.some((t) => t.exchanges?.chat_completions?.length), 'chat completions exchanges');
    assert.ok(trajectories.some((t) => t.exchanges?.messages?.length), 'Anthropic Messages exchanges');
    assert.ok(new Set(trajectories.map((t) => t.reward)).size > 3, 'varied rewards');
    const empty = step3.filter((g) => !('trajectories' in g));
    assert.equal(empty.length, 1);
    assert.equal((empty[0]!.exceptions as unknown[]).length, 1);
    // Every verdict of docs/trainability.md shows, and ART raises on nothing (the exchanges carry the server's ids and logprobs).
    const verdicts = step3.map((g) => groupVerdict(g));
    const codes = verdicts.flatMap((v) => [...v.members.map((m) => m.primary?.code ?? 'trains'), ...v.reasons.filter((r) => r.code === 'empty-group').map((r) => r.code)]);
    assert.deepEqual([...new Set(codes)].sort(), ['empty-group', 'no-logprobs', 'trains', 'zero-advantage', 'zero-variance']);
    assert.ok(verdicts.every((v) => !v.fails), 'nothing makes ART raise');
    const forms = new Set(verdicts.flatMap((v) => v.members.flatMap((m) => m.turns.map((t) => t.form))));
    for (const f of ['logprobs.content', 'compact_logprobs', 'logprobs', 'none'] as const) assert.ok(forms.has(f), `a turn with logprobs as ${f}: ${[...forms].join(', ')}`);
    assert.equal((await groups(path.join(split, 'val', '0005.parquet'))).length, 4);
  });

  it('the calls file imports cleanly', async () => {
    const s = await validateCallsFile(path.join(dir, 'calls.jsonl'));
    assert.deepEqual(s.problems, []);
    assert.equal(s.starts, 2);
    assert.equal(s.ends, 2);
  });

  it('the run history is 50 steps as ART writes them: train and loss lines, val every fifth step, NaN left out', () => {
    const text = fs.readFileSync(path.join(dir, '.art/demo/models/agent-7b/history.jsonl'), 'utf8');
    const h = readHistory(text);
    assert.deepEqual(h.problems, []);
    assert.equal(h.rows.length, 50);
    assert.equal(h.lines, 110);
    assert.equal(h.rows.filter((r) => r.metrics['val/reward'] !== undefined).length, 10);
    assert.equal(h.rows[0]!.metrics['loss/kl_div'], undefined, 'NaN on step 1: left out');
    assert.equal(typeof h.rows[1]!.metrics['loss/kl_div'], 'number');
    for (const prefix of ['train/', 'val/', 'loss/', 'time/', 'costs/', 'throughput/', 'discarded/', 'data/']) {
      assert.ok(Object.keys(h.rows[4]!.metrics).some((k) => k.startsWith(prefix)), prefix);
    }
    assert.match(h.recordedAt.get(50)!, /^2026-11-19T\d{2}:\d{2}:\d{2}(\.\d{6})?$/, 'naive ISO');
  });

  it('the notes hold call refs taken from the demo data', () => {
    const notes = fs.readFileSync(path.join(dir, 'notes.md'), 'utf8');
    const refs = [...notes.matchAll(/svc:\/\/\/\S+/g)].map((m) => m[0]);
    assert.equal(refs.length, 3);
    const data = JSON.parse(fs.readFileSync(fixture, 'utf8')) as { projects: Record<string, { calls: { id: string }[] }> };
    for (const ref of refs) {
      const parsed = parseRef(ref);
      assert.ok(parsed.ok, ref);
      const calls = data.projects[parsed.ref.projectId]?.calls ?? [];
      assert.ok(calls.some((c) => ref.endsWith(`/call/${c.id}`)), `${ref} is a call of the demo data`);
    }
  });
});
