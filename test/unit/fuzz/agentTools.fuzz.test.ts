// The tools' inputs, fuzzed against their schemas: whatever a model sends (wrong types, huge values,
// unknown keys, odd strings), a tool answers a text result and never throws into the host. The host
// here is the MCP server's, on a reference service, so inputs that pass the schema really run.
import * as assert from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import { z } from 'zod';
import { EnvHost } from '../../../src/agents/mcp/host';
import { prepareTool, runTool, TOOLS, type AgentTool } from '../../../src/agents/core/tools';
import { startReferenceServer, type ReferenceServer } from '../../server';
import { writeArtRun } from '../../fixtures/art/run';

const KEY = 'fuzz-key-0123456789';

/** The keys a tool's input schema names (the object under any refinements). */
function keysOf(t: AgentTool): string[] {
  const json = z.toJSONSchema(t.input, { io: 'input', unrepresentable: 'any' }) as { properties?: Record<string, unknown> };
  return Object.keys(json.properties ?? {});
}

/** Values of every JSON kind, weighted towards the huge and the odd. */
const value = fc.oneof(
  { weight: 3, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
  { weight: 1, arbitrary: fc.constantFrom(1e308, -1e308, Number.MAX_SAFE_INTEGER + 2, -1, 0.5, 2 ** 31, '', ' ', '../../../../etc/passwd', '\u0000', 'svc:///a/b/call/x', 'acme/bot', 'train', '2026-11-24T00:00:00Z', null, true, [], {}) },
  { weight: 1, arbitrary: fc.string({ minLength: 5_000, maxLength: 20_000 }) },
  { weight: 1, arbitrary: fc.array(fc.string(), { minLength: 200, maxLength: 2_000 }) },
);

const fixture = (name: string) => path.join(__dirname, '../../fixtures/trajectories', name);
/** A small run (written in `before`) for svc_scenario_history, under the read root (the temp folder). */
const RUN_DIR = path.join(os.tmpdir(), `svc-fuzz-run-${process.pid}`);
const RUN = path.join(RUN_DIR, '.art', 'demo', 'models', 'agent-7b');

/** A run under the host's read root (its working directory, the temp folder) for svc_search_trajectories. */
const searchRunDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-fuzz-run-'));
fs.mkdirSync(path.join(searchRunDir, 'trajectories', 'train'), { recursive: true });
fs.copyFileSync(fixture('groups.jsonl'), path.join(searchRunDir, 'trajectories', 'train', '0001.jsonl'));
fs.copyFileSync(fixture('problems.jsonl'), path.join(searchRunDir, 'trajectories', 'train', '0002.jsonl'));

/** Values a model would plausibly send for each field, extremes and mistakes included: many pass the schema. */
const plausible: Record<string, fc.Arbitrary<unknown>> = {
  projectId: fc.constantFrom('acme/bot', 'acme/other', 'x/y'),
  sortBy: fc.constantFrom('thread_id', 'turn_count', 'start_time', 'last_updated', 'p50_turn_duration_ms', 'p99_turn_duration_ms'),
  direction: fc.constantFrom('asc', 'desc'),
  after: fc.constantFrom('2026-01-01T00:00:00Z', '2030-01-01T00:00:00+02:00', '1970-01-01T00:00:00Z'),
  before: fc.constantFrom('2026-01-01T00:00:00Z', '9999-12-31T23:59:59Z'),
  threadIds: fc.array(fc.string({ minLength: 1, maxLength: 20 }), { maxLength: 5 }),
  limit: fc.integer({ min: 1, max: 500 }),
  offset: fc.integer({ min: 0, max: 1_000_000_000 }),
  modelId: fc.constantFrom('m', 'missing', 'a b/c', '..', 'x'.repeat(256)),
  order: fc.constantFrom('asc', 'desc'),
  metric: fc.constantFrom('reward', 'loss', 'nothing'),
  historyFile: fc.constantFrom(fixture('groups.jsonl'), '/nonexistent/history.jsonl', os.tmpdir()),
  file: fc.constantFrom(fixture('groups.jsonl'), fixture('problems.jsonl'), fixture('empty.json'), '/nonexistent.jsonl', os.tmpdir()),
  ref: fc.constantFrom('svc:///acme/bot/call/thread-1-turn-0', 'svc:///acme/bot/object/x:abc', 'svc:///bad', 'not a ref'),
  note: fc.string({ minLength: 1, maxLength: 1100 }),
  emoji: fc.constantFrom('👍', 'x', '👍👍', '🎉'),
  feedbackType: fc.constantFrom('custom.1', 'svc.note.1', ''),
  payload: fc.dictionary(fc.string({ maxLength: 5 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 3 }),
  files: fc.array(fc.constantFrom(fixture('groups.jsonl'), fixture('problems.jsonl'), '/nonexistent.jsonl'), { minLength: 1, maxLength: 3 }),
  split: fc.constantFrom('train', 'val'),
  group: fc.integer({ min: -1, max: 4 }),
  query: fc.oneof(fc.constantFrom('weather', 'timeout', '(a+)+$', '[', '\\1', 'a{2,}', '.*', '^', '$'), fc.string({ minLength: 1, maxLength: 30 })),
  regex: fc.boolean(),
  steps: fc.record({ from: fc.integer({ min: 0, max: 5 }), to: fc.integer({ min: 0, max: 5 }) }, { requiredKeys: [] }),
  reward: fc.record({ min: fc.double({ noNaN: true }), max: fc.double({ noNaN: true }) }, { requiredKeys: [] }),
  role: fc.constantFrom('user', 'assistant', 'tool', 'nobody'),
  tool: fc.constantFrom('get_weather', 'nothing'),
  verdict: fc.constantFrom('trains', 'not-trained', 'fails'),
  trajectory: fc.integer({ min: -1, max: 3 }),
  run: fc.constantFrom(RUN, path.join(RUN, 'history.jsonl'), path.join(RUN, 'trajectories', 'train', '0002.jsonl'), searchRunDir, path.join(searchRunDir, 'trajectories', 'train'), os.tmpdir(), '/nonexistent', fixture('groups.jsonl')),
  scenario: fc.constantFrom('scenario-00', 'scenario-01', 'nope', ' ', 'which city is scenario 1 about? answer in one word.'),
  key: fc.constantFrom('scenario_id', 'task', 'step', '__proto__', ''),
};

/** Inputs of the right shape (each of a tool's forms), with plausible values: these get past the schema often. */
const shaped: Record<string, fc.Arbitrary<unknown>> = {
  svc_list_threads: fc.record({ projectId: plausible.projectId!, limit: plausible.limit!, offset: plausible.offset! }, { requiredKeys: [] }),
  svc_list_checkpoints: fc.record({ modelId: plausible.modelId!, order: plausible.order!, limit: plausible.limit!, metric: plausible.metric! }, { requiredKeys: ['modelId'] }),
  svc_summarize_run: fc.oneof(fc.record({ modelId: plausible.modelId! }), fc.record({ historyFile: plausible.historyFile! })),
  svc_summarize_trajectories: fc.record({ file: plausible.file! }),
  svc_explain_trajectory: fc.record({ file: plausible.file!, group: plausible.group!, trajectory: plausible.trajectory! }),
  svc_attach_feedback: fc.oneof(
    fc.record({ ref: plausible.ref!, note: plausible.note! }),
    fc.record({ ref: plausible.ref!, emoji: plausible.emoji! }),
    fc.record({ ref: plausible.ref!, feedbackType: plausible.feedbackType!, payload: plausible.payload! }),
  ),
  svc_upload_trajectories: fc.record({ files: plausible.files!, modelId: plausible.modelId!, split: plausible.split! }),
  svc_scenario_history: fc.record({ run: plausible.run!, scenario: plausible.scenario!, key: plausible.key!, split: plausible.split! }, { requiredKeys: ['run', 'scenario'] }),
  svc_search_trajectories: fc.record(
    { run: plausible.run!, query: plausible.query!, regex: plausible.regex!, split: plausible.split!, steps: plausible.steps!, reward: plausible.reward!, role: plausible.role!, tool: plausible.tool!, verdict: plausible.verdict!, limit: fc.integer({ min: 1, max: 200 }), offset: fc.integer({ min: 0, max: 50 }) },
    { requiredKeys: ['run', 'query'] },
  ),
};

function inputFor(t: AgentTool) {
  const keys = keysOf(t);
  const likely = Object.fromEntries(keys.map((k) => [k, plausible[k] ?? value]));
  return fc.oneof(
    { weight: 3, arbitrary: shaped[t.name]! },
    { weight: 4, arbitrary: fc.record(likely, { requiredKeys: [] }) },
    { weight: 4, arbitrary: fc.dictionary(fc.constantFrom(...keys), value, { maxKeys: keys.length }) },
    { weight: 1, arbitrary: fc.dictionary(fc.string({ maxLength: 6 }), value, { maxKeys: 3 }) },
    { weight: 1, arbitrary: fc.anything() },
  );
}

describe('agent tools: fuzzed inputs give a text result, never a throw', function () {
  this.timeout(120_000);
  let server: ReferenceServer;
  let host: EnvHost;
  before(async () => {
    server = await startReferenceServer({ apiKeys: [{ key: KEY, userId: 'u' }] });
    server.seedThreads('acme/bot', 5);
    server.addCheckpoints('m', 3);
    host = new EnvHost({ env: { SVC_BASE_URL: server.url, SVC_API_KEY: KEY, SVC_PROJECT: 'acme/bot', NETRC: '/nonexistent' }, cwd: os.tmpdir(), userAgent: 'fuzz' });
    await writeArtRun(RUN_DIR, { splits: { train: 3 }, jsonlSteps: [1, 2], scenarios: 2 });
  });
  after(async () => {
    fs.rmSync(RUN_DIR, { recursive: true, force: true });
    await host.close();
    await server.close();
    fs.rmSync(searchRunDir, { recursive: true, force: true });
  });

  for (const t of TOOLS) {
    it(`${t.name}`, async () => {
      let ran = 0;
      await fc.assert(
        fc.asyncProperty(inputFor(t), async (input) => {
          const result = await runTool(host, t, input);
          assert.strictEqual(typeof result.text, 'string');
          assert.ok(result.text.length > 0);
          assert.strictEqual(typeof result.isError, 'boolean');
          // A refusal is the tool's own sentence, never a bug surfacing as a JavaScript error.
          assert.doesNotMatch(result.text, /TypeError|ReferenceError|RangeError|is not a function|Cannot read prop/, result.text);
          if (!/the input is not valid/.test(result.text)) ran++;
          const prepared = await prepareTool(host, t, input);
          assert.strictEqual(typeof prepared.progress, 'string');
          assert.strictEqual(prepared.confirmation !== undefined, t.write, 'writes always confirm, reads never');
        }),
        { numRuns: 150 },
      );
      assert.ok(ran > 0, 'some inputs passed the schema and ran');
    });
  }

  it('refuses huge values by the schema, naming the field', async () => {
    const threads = TOOLS.find((t) => t.name === 'svc_list_threads')!;
    const r = await runTool(host, threads, { limit: 1e308, offset: -1, threadIds: Array.from({ length: 5000 }, (_, i) => `t${i}`) });
    assert.strictEqual(r.isError, true);
    assert.match(r.text, /- limit: /);
    assert.match(r.text, /- offset: /);
    assert.match(r.text, /- threadIds: /);
  });
});
