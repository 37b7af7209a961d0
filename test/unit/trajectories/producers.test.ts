import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { TrajectoryLogRequest } from '../../../src/api/schemas/models';
import { readTrajectoryGroups, validateTrajectoryFile } from '../../../src/files';
import { uploadGroups } from '../../../src/trajectories/upload';
import { HttpError } from '../../server/errors';
import { Store } from '../../server/store';
import { logTrajectories } from '../../server/trajectories';
import {
  artGroup,
  CHAT_COMPLETION_MESSAGE,
  CHOICE,
  compactGroups,
  dump,
  EXCEPTION,
  EXCHANGE,
  EXCHANGE_TRAJECTORY,
  TRAJECTORY_EXCHANGES,
  GROUP,
  HISTORY,
  TRAJECTORY,
  variants,
  wrongKind,
  type Field,
} from '../../fixtures/art/producers';
import { harness, type Harness } from '../contract/helpers';
import { collect, useTempDir } from '../files/helpers';

// The oracle is the producers' own field lists (test/fixtures/art/producers.ts: ART's Trajectory,
// TrajectoryGroup, History and PydanticException; the OpenAI SDK's Choice and
// ChatCompletionMessage with vLLM's extras), not our zod schemas nor the reference server. What a
// producer writes must pass both; a value of a kind the producer's type never dumps must fail both.

/** Builds a request body holding `value` as the model named `model`. */
const place: Record<string, (value: unknown) => unknown> = {
  TrajectoryGroup: (g) => ({ model_id: 'agent-001', split: 'train', trajectory_groups: [g] }),
  Trajectory: (t) => place.TrajectoryGroup!({ ...dump(GROUP), trajectories: [t] }),
  History: (h) => place.Trajectory!({ ...dump(TRAJECTORY), additional_histories: [h] }),
  Choice: (c) => place.Trajectory!({ ...dump(TRAJECTORY), messages_and_choices: [{ role: 'user', content: 'hi' }, c] }),
  ChatCompletionMessage: (m) => place.Choice!({ ...dump(CHOICE), message: m }),
  PydanticException: (e) => place.TrajectoryGroup!({ ...dump(GROUP), exceptions: [e] }),
  ExchangeTrajectory: (t) => place.TrajectoryGroup!({ ...dump(GROUP), trajectories: [t] }),
  TrajectoryExchanges: (x) => place.ExchangeTrajectory!({ ...dump(EXCHANGE_TRAJECTORY), exchanges: x }),
  Exchange: (x) => place.TrajectoryExchanges!({ ...dump(TRAJECTORY_EXCHANGES), responses: [x] }),
};
const MODELS: [string, Field[]][] = [
  ['TrajectoryGroup', GROUP],
  ['Trajectory', TRAJECTORY],
  ['History', HISTORY],
  ['Choice', CHOICE],
  ['ChatCompletionMessage', CHAT_COMPLETION_MESSAGE],
  ['PydanticException', EXCEPTION],
  ['ExchangeTrajectory', EXCHANGE_TRAJECTORY],
  ['TrajectoryExchanges', TRAJECTORY_EXCHANGES],
  ['Exchange', EXCHANGE],
];

function serverAccepts(body: unknown): boolean {
  try {
    logTrajectories('agent-001', body, new Store());
    return true;
  } catch (e) {
    if (e instanceof HttpError && e.status === 422) return false;
    throw e;
  }
}
const clientAccepts = (body: unknown) => TrajectoryLogRequest.safeParse(body).success;

describe('trajectory files as the producers write them (ART, OpenAI SDK, vLLM)', () => {
  for (const [model, fields] of MODELS) {
    describe(model, () => {
      it('fully populated: the client and the reference service both accept it', () => {
        const body = place[model]!(dump(fields));
        assert.ok(clientAccepts(body), JSON.stringify(TrajectoryLogRequest.safeParse(body).error?.issues));
        assert.ok(serverAccepts(body));
      });
      for (const v of variants(fields)) {
        it(`${v.name}: accepted by both`, () => {
          const body = place[model]!(v.value);
          assert.ok(clientAccepts(body), JSON.stringify(TrajectoryLogRequest.safeParse(body).error?.issues));
          assert.ok(serverAccepts(body));
        });
      }
      it('an unknown field (a newer producer version): accepted by both', () => {
        const body = place[model]!({ ...dump(fields), auto_metrics: { x: 1 } });
        assert.ok(clientAccepts(body));
        assert.ok(serverAccepts(body));
      });
      for (const x of fields.filter((y) => y.kind !== 'any')) {
        it(`${x.name} of a kind ${model} never dumps (not ${x.kind}): refused by both`, () => {
          const body = place[model]!({ ...dump(fields), [x.name]: wrongKind(x.kind) });
          assert.equal(clientAccepts(body), false, 'client');
          assert.equal(serverAccepts(body), false, 'server');
        });
      }
      // The log route may not know `exceptions` (servers ignore what they do not know), so a
      // PydanticException missing a field is not a known refusal.
      if (model !== 'PydanticException') {
        for (const x of fields.filter((y) => y.required)) {
          it(`missing required ${x.name}: refused by both`, () => {
            const { [x.name]: _drop, ...rest } = dump(fields);
            const body = place[model]!(rest);
            assert.equal(clientAccepts(body), false, 'client');
            assert.equal(serverAccepts(body), false, 'server');
          });
        }
      }
    });
  }
});

describe("current ART dumps (exclude_defaults, exchanges): accepted by both, the mix refused by both", () => {
  it('compact groups: no trajectories, no reward, no messages_and_choices, exchange trajectories of all four APIs', () => {
    for (const g of compactGroups()) {
      const body = place.TrajectoryGroup!(g);
      assert.ok(clientAccepts(body), JSON.stringify(TrajectoryLogRequest.safeParse(body).error?.issues));
      assert.ok(serverAccepts(body));
    }
  });
  const legacy: [string, Record<string, unknown>][] = [
    ['messages_and_choices', { messages_and_choices: [{ role: 'user', content: 'hi' }] }],
    ['tools (even an empty list)', { tools: [] }],
    ['additional_histories', { additional_histories: [dump(HISTORY)] }],
  ];
  for (const [what, fields] of legacy) {
    it(`exchanges with ${what}: refused by both`, () => {
      const body = place.ExchangeTrajectory!({ ...dump(EXCHANGE_TRAJECTORY), ...fields });
      assert.equal(clientAccepts(body), false, 'client');
      assert.equal(serverAccepts(body), false, 'server');
    });
  }
  it('empty exchanges with legacy fields, or exchanges with empty legacy fields: accepted by both (ART tests non-emptiness)', () => {
    for (const t of [{ ...dump(TRAJECTORY), exchanges: { chat_completions: [], responses: [] } }, { ...dump(EXCHANGE_TRAJECTORY), messages_and_choices: [], additional_histories: [], tools: null }]) {
      const body = place.TrajectoryGroup!({ trajectories: [t] });
      assert.ok(clientAccepts(body), JSON.stringify(TrajectoryLogRequest.safeParse(body).error?.issues));
      assert.ok(serverAccepts(body));
    }
  });
});

describe('official-client files: validated with no problems, uploaded byte for byte', () => {
  const dir = useTempDir();
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  function files(): { name: string; file: string; groups: unknown[] }[] {
    const out: { name: string; file: string; groups: unknown[] }[] = [];
    const dumpGroups = [0, 1, 2].map((i) => artGroup(i, { unset: i === 1 }));
    const jsonl = path.join(dir(), 'model_dump.jsonl');
    fs.writeFileSync(jsonl, dumpGroups.map((g) => JSON.stringify(g)).join('\n') + '\n');
    out.push({ name: 'a model_dump JSONL', file: jsonl, groups: dumpGroups });
    const art = path.join(dir(), '.art', 'weather', 'models', 'agent-001', 'trajectories', 'train');
    fs.mkdirSync(art, { recursive: true });
    for (const step of [1, 2]) {
      const groups = [artGroup(step * 10), artGroup(step * 10 + 1, { unset: true })];
      const file = path.join(art, `000${step}.jsonl`);
      fs.writeFileSync(file, groups.map((g) => JSON.stringify(g)).join('\n') + '\n');
      out.push({ name: `the .art layout, step ${step}`, file, groups });
    }
    const compactDump = compactGroups();
    const compactFile = path.join(dir(), '.art', 'weather', 'models', 'agent-001', 'trajectories', 'val', '0003.jsonl');
    fs.mkdirSync(path.dirname(compactFile), { recursive: true });
    fs.writeFileSync(compactFile, compactDump.map((g) => JSON.stringify(g)).join('\n') + '\n');
    out.push({ name: 'current ART: compact groups and exchange trajectories', file: compactFile, groups: compactDump });
    const compactJson = path.join(dir(), 'compact.json');
    fs.writeFileSync(compactJson, JSON.stringify(compactDump, null, 2));
    out.push({ name: 'current ART: a .json array of compact groups', file: compactJson, groups: compactDump });
    const arrayGroups = [artGroup(5), artGroup(6, { unset: true })];
    const json = path.join(dir(), 'groups.json');
    fs.writeFileSync(json, JSON.stringify(arrayGroups, null, 2));
    out.push({ name: 'a .json array of groups', file: json, groups: arrayGroups });
    const request = path.join(dir(), 'request.json');
    fs.writeFileSync(request, JSON.stringify({ model_id: 'agent-001', split: 'val', trajectory_groups: arrayGroups }, null, 1));
    out.push({ name: 'a .json request body (with model_id)', file: request, groups: arrayGroups });
    return out;
  }

  it('every file validates without a problem, read whole or streamed', async () => {
    for (const { name, file } of files()) {
      for (const streamJsonAbove of [undefined, 0]) {
        const s = await validateTrajectoryFile(file, { streamJsonAbove });
        assert.deepEqual(s.problems, [], `${name} (${streamJsonAbove === 0 ? 'streamed' : 'whole'})`);
      }
    }
  });

  it('reading yields each group as the exact text of the file, read whole or streamed', async () => {
    for (const { name, file, groups } of files()) {
      const text = fs.readFileSync(file, 'utf8');
      for (const streamJsonAbove of [undefined, 0]) {
        const records = await collect(readTrajectoryGroups(file, { streamJsonAbove }));
        assert.deepEqual(records.map((r) => JSON.parse(r.json)), groups, name);
        for (const r of records) assert.ok(text.includes(r.json), `${name}: group ${r.index} is a slice of the file`);
      }
    }
  });

  it('the upload sends each group as the exact bytes of the file, compact groups and exchange trajectories included', async () => {
    for (const { name, file } of files()) {
      const text = fs.readFileSync(file, 'utf8');
      const summary = await validateTrajectoryFile(file);
      const sent: string[] = [];
      const client = { models: { logGroupsJson: async (_model: string, req: { groups: string[] }) => void sent.push(...req.groups) } } as unknown as Parameters<typeof uploadGroups>[0];
      const res = await uploadGroups(client, readTrajectoryGroups(file, { trusted: true, groupTrajectories: summary.groupTrajectories }), { modelId: 'agent-001', split: 'train', maxRequestBytes: 20_000 });
      assert.equal(res.outcome.status, 'done', name);
      assert.equal(sent.length, summary.groups, name);
      const records = await collect(readTrajectoryGroups(file));
      assert.deepEqual(sent, records.map((r) => r.json), name);
      for (const json of sent) assert.ok(text.includes(json), `${name}: a sent group is a slice of the file`);
    }
  });

  it('the reference service stores exactly what each file holds, unknown fields and nulls included', async () => {
    h = await harness();
    for (const { name, file, groups } of files()) {
      h.server.store.logs.length = 0;
      const summary = await validateTrajectoryFile(file);
      const res = await uploadGroups(h.client, readTrajectoryGroups(file, { trusted: true }), { modelId: 'agent-001', split: 'train', members: summary.members, maxRequestBytes: 20_000 });
      assert.equal(res.outcome.status, 'done', name);
      assert.ok(h.server.store.logs.length >= 1);
      assert.deepEqual(h.server.store.logs.flatMap((l) => l.body.trajectory_groups as unknown[]), groups, name);
      for (const l of h.server.store.logs) {
        assert.equal(l.split, 'train', 'the chosen split');
        if (summary.members?.model_id) assert.equal(l.body.model_id, 'agent-001', 'a model_id member names the model the request goes to');
      }
    }
  });
});
