import assert from 'node:assert/strict';
import fc from 'fast-check';
import { isTrajectoryGroup } from '../../../src/api/schemas/fastCheck';
import { TrajectoryGroup } from '../../../src/api/schemas/models';
import { artGroup, CHAT_COMPLETION_MESSAGE, CHOICE, compactGroups, dump, EXCEPTION, EXCHANGE, EXCHANGE_TRAJECTORY, GROUP, HISTORY, TRAJECTORY, TRAJECTORY_EXCHANGES, variants, wrongKind, type Field } from '../../fixtures/art/producers';
import { trajectoryArbitraries } from '../fuzz/arbitraries';
import { swapValue, valueSwap } from '../fuzz/files';
import { check, fuzz, named } from '../fuzz/helpers';

// The upload's fast yes/no check must say exactly what the TrajectoryGroup schema says, on every
// value: what the producers write (and each field of it absent, null, present, or of a wrong
// kind), and fuzzed groups with one value swapped for another of any type or removed.

const agree = (v: unknown, what: string) => {
  const schema = TrajectoryGroup.safeParse(v).success;
  assert.equal(isTrajectoryGroup(v), schema, `${what}: the schema says ${schema ? 'valid' : 'invalid'} ${JSON.stringify(v).slice(0, 300)}`);
};

/** Puts a value where a producer's model sits in a group. */
const inGroup: [string, Field[], (v: unknown) => unknown][] = [
  ['TrajectoryGroup', GROUP, (g) => g],
  ['Trajectory', TRAJECTORY, (t) => ({ ...dump(GROUP), trajectories: [t] })],
  ['History', HISTORY, (h) => ({ ...dump(GROUP), trajectories: [{ ...dump(TRAJECTORY), additional_histories: [h] }] })],
  ['Choice', CHOICE, (c) => ({ ...dump(GROUP), trajectories: [{ ...dump(TRAJECTORY), messages_and_choices: [c] }] })],
  ['ChatCompletionMessage', CHAT_COMPLETION_MESSAGE, (m) => ({ ...dump(GROUP), trajectories: [{ ...dump(TRAJECTORY), messages_and_choices: [{ ...dump(CHOICE), message: m }] }] })],
  ['ChatCompletionMessage as a message', CHAT_COMPLETION_MESSAGE, (m) => ({ ...dump(GROUP), trajectories: [{ ...dump(TRAJECTORY), messages_and_choices: [m] }] })],
  ['PydanticException', EXCEPTION, (e) => ({ ...dump(GROUP), exceptions: [e] })],
  ['ExchangeTrajectory', EXCHANGE_TRAJECTORY, (t) => ({ trajectories: [t] })],
  ['TrajectoryExchanges', TRAJECTORY_EXCHANGES, (x) => ({ trajectories: [{ ...dump(EXCHANGE_TRAJECTORY), exchanges: x }] })],
  ['Exchange', EXCHANGE, (x) => ({ trajectories: [{ exchanges: { messages: [x] } }] })],
  ['ExchangeTrajectory beside legacy fields', TRAJECTORY, (t) => ({ trajectories: [{ ...(t as object), exchanges: dump(TRAJECTORY_EXCHANGES) }] })],
];

describe('trajectories: the fast group check agrees with the schema', () => {
  it("on every producer variant, wrong kind and missing field", () => {
    let n = 0;
    for (const [name, fields, place] of inGroup) {
      agree(place(dump(fields)), name);
      for (const v of variants(fields)) agree(place(v.value), `${name} ${v.name}`);
      for (const x of fields) {
        for (const bad of [wrongKind(x.kind), null, '', 0, 1.5, true, [], {}, 'function']) agree(place({ ...dump(fields), [x.name]: bad }), `${name}.${x.name} = ${JSON.stringify(bad)}`);
        const { [x.name]: _drop, ...rest } = dump(fields);
        agree(place(rest), `${name} without ${x.name}`);
        n++;
      }
    }
    for (const role of ['system', 'developer', 'user', 'function', 'tool', 'assistant', 'robot', null]) {
      for (const m of [{ role, content: 'x' }, { role }, { role, content: null, tool_call_id: 'a' }, { role, content: [{ type: 'text', text: 'x' }], name: 'n' }, { role, content: [{ text: 'x' }] }]) {
        agree({ trajectories: [{ messages_and_choices: [m] }] }, `message ${JSON.stringify(m)}`);
      }
    }
    for (const tc of [{ id: 'a', type: 'function' }, { id: 'a', type: 'custom' }, { id: 'a', type: 'function', function: null }, { id: 'a', type: 'custom', custom: { input: 'x', name: 'n' } }]) {
      agree({ trajectories: [{ messages_and_choices: [{ role: 'assistant', tool_calls: [tc] }] }] }, `tool call ${JSON.stringify(tc)}`);
    }
    for (const t of ['2025-06-01T10:00:00.123456', '2025-06-01T10:00:00Z', '2025-02-30T10:00:00', '2025-06-01 10:00:00', '2025-06-01T10:00', 'yesterday', '2025-06-01T10:00:00+02:00']) {
      agree({ trajectories: [{ messages_and_choices: [], start_time: t }] }, `start_time ${t}`);
    }
    for (const r of [1, 1.5, -0, 2 ** 53, 1e308]) agree({ trajectories: [{ messages_and_choices: [], reward: r, initial_policy_version: r }] }, `number ${r}`);
    for (const g of compactGroups()) agree(g, 'a compact ART group');
    agree(artGroup(1), 'an ART group');
    agree(artGroup(2, { unset: true }), 'an ART group with unset fields');
    assert.ok(n > 40);
  });

  const b1 = fuzz(0xfa57, 500);
  it(named('on fuzzed groups with one value swapped or removed', b1), () => {
    // Without "__proto__" keys: zod's records skip them (see below).
    const { group } = trajectoryArbitraries();
    let invalid = 0;
    check(
      fc.property(group, valueSwap, (g, swap) => {
        agree(g, 'generated');
        const { value } = swapValue(g, swap);
        if (!TrajectoryGroup.safeParse(value).success) invalid++;
        agree(value, 'swapped');
      }),
      b1,
    );
    assert.ok(invalid > 50, `${invalid} swaps made an invalid group: the property saw both answers`);
  });

  it('is stricter than zod where zod is wrong: a "__proto__" record key is checked, as the service checks it', () => {
    const g = JSON.parse('{"trajectories": [{"messages_and_choices": [], "metrics": {"__proto__": null}}]}') as unknown;
    assert.equal(TrajectoryGroup.safeParse(g).success, true, 'zod skips the key');
    assert.equal(isTrajectoryGroup(g), false);
  });
});
