// The viewer's fixtures are written from the producers' field lists (test/fixtures/viewer/producers.ts),
// not from our schemas: this checks they are current and that every field of the official client's
// and the OpenAI SDK's models appears, and each optional one also as null and as absent.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  ART_EXCEPTION_FIELDS,
  ART_GROUP_FIELDS,
  ART_HISTORY_FIELDS,
  ART_TRAJECTORY_FIELDS,
  OPENAI_CHOICE_FIELDS,
  OPENAI_MESSAGE_FIELDS,
  fixtures,
} from '../../fixtures/viewer/producers';

const DIR = resolve(__dirname, '../../fixtures/viewer');
type O = Record<string, unknown>;

describe('viewer fixtures from the producers\' field lists', () => {
  it('are current (npx tsx test/fixtures/viewer/producers.ts rewrites them)', () => {
    for (const [rel, text] of Object.entries(fixtures())) assert.equal(readFileSync(join(DIR, rel), 'utf8'), text, rel);
  });

  it('carry every field of ART\'s groups, trajectories, histories and exceptions, and of OpenAI-SDK choices and messages', () => {
    const groups = readFileSync(join(DIR, 'art-model-dump.trajectories.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as O);
    const trajectories = groups.flatMap((g) => g.trajectories as O[]);
    const histories = trajectories.flatMap((t) => (Array.isArray(t.additional_histories) ? (t.additional_histories as O[]) : []));
    const exceptions = groups.flatMap((g) => g.exceptions as O[]);
    const items = trajectories.flatMap((t) => t.messages_and_choices as O[]);
    const choices = items.filter((i) => !('role' in i));
    const messages = choices.map((c) => c.message as O);
    const states = (objs: O[], field: string) => new Set<string>(objs.map((o) => (!(field in o) ? 'absent' : o[field] === null ? 'null' : 'present')));
    const expectAll = (what: string, objs: O[], fields: string[], optional: string[]) => {
      for (const f of fields) {
        const seen = states(objs, f);
        assert.ok(seen.has('present'), `${what}.${f} present somewhere`);
        if (optional.includes(f)) for (const s of ['null', 'absent']) assert.ok(seen.has(s), `${what}.${f} ${s} somewhere`);
      }
    };
    expectAll('group', groups, ART_GROUP_FIELDS, []);
    expectAll('trajectory', trajectories, ART_TRAJECTORY_FIELDS, ['tools', 'initial_policy_version', 'final_policy_version']);
    expectAll('history', histories, ART_HISTORY_FIELDS, []);
    expectAll('exception', exceptions, ART_EXCEPTION_FIELDS, []);
    expectAll('choice', choices, OPENAI_CHOICE_FIELDS, ['logprobs', 'stop_reason']);
    expectAll('message', messages, OPENAI_MESSAGE_FIELDS, ['annotations', 'reasoning_content']);
    assert.deepEqual([...states(messages, 'content')].sort(), ['null', 'present']);
    assert.deepEqual([...states(messages, 'tool_calls')].sort(), ['null', 'present']);
    assert.ok(items.some((i) => Array.isArray(i.content)), 'content as a list of parts');
  });
});
