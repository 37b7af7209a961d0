import assert from 'node:assert/strict';
import { startReferenceServer } from '../../server';
import { API_KEY, BASIC, postJson, PROJECT, USER_ID, useServer } from './helpers';

const start = (id: string, extra: Record<string, unknown> = {}) => ({
  mode: 'start',
  req: {
    start: {
      project_id: PROJECT,
      id,
      trace_id: `trace-${id}`,
      op_name: 'chat',
      started_at: '2026-11-01T10:00:00.000Z',
      attributes: {},
      inputs: { q: 'hi' },
      ...extra,
    },
  },
});
const end = (id: string, extra: Record<string, unknown> = {}) => ({
  mode: 'end',
  req: { end: { project_id: PROJECT, id, ended_at: '2026-11-01T10:00:02.500Z', summary: {}, ...extra } },
});

describe('reference server: POST /call/upsert_batch', () => {
  const server = useServer();
  const upsert = (batch: unknown[]) => postJson(server(), '/call/upsert_batch', { batch });

  it('answers res aligned with batch: {id, trace_id} for a start, {} for an end', async () => {
    const res = await upsert([start('a'), end('a'), start('b')]);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { res: [{ id: 'a', trace_id: 'trace-a' }, {}, { id: 'b', trace_id: 'trace-b' }] });
    const a = server().store.getCall(PROJECT, 'a')!;
    assert.equal(a.op_name, 'chat');
    assert.equal(a.ended_at, '2026-11-01T10:00:02.500Z');
  });

  it('merges an end that arrives before its start', async () => {
    await upsert([end('a', { output: { answer: 42 }, exception: 'boom' })]);
    await upsert([start('a', { thread_id: 't', turn_id: 'a' })]);
    const a = server().store.getCall(PROJECT, 'a')!;
    assert.equal(a.started_at, '2026-11-01T10:00:00.000Z');
    assert.equal(a.ended_at, '2026-11-01T10:00:02.500Z');
    assert.deepEqual(a.output, { answer: 42 });
    assert.equal(a.thread_id, 't');
  });

  it('is idempotent: repeating a batch changes nothing', async () => {
    const batch = [start('a'), end('a'), start('b')];
    await upsert(batch);
    const snapshot = JSON.stringify([...server().store.calls.get(PROJECT)!.values()]);
    const again = await upsert(batch);
    assert.equal(again.status, 200);
    assert.equal(JSON.stringify([...server().store.calls.get(PROJECT)!.values()]), snapshot);
    assert.equal(server().store.calls.get(PROJECT)!.size, 2);
  });

  it('overwrites a client-sent svc_user_id with the authenticated user', async () => {
    await upsert([start('a', { svc_user_id: 'spoofed' })]);
    assert.equal(server().store.getCall(PROJECT, 'a')!.svc_user_id, USER_ID);
  });

  it('accepts an empty batch', async () => {
    assert.deepEqual((await upsert([])).body, { res: [] });
  });

  const invalid: [string, unknown, RegExp][] = [
    ['an unknown mode', { mode: 'update', req: {} }, /batch\[0\]\.mode: Unknown mode 'update'/],
    ['a start without op_name', start('a', { op_name: undefined }), /batch\[0\]\.req\.start\.op_name: Field required/],
    ['a start without trace_id', start('a', { trace_id: undefined }), /req\.start\.trace_id: Field required/],
    ['a start without id', start('a', { id: undefined }), /req\.start\.id: Field required/],
    ['a start with a bad started_at', start('a', { started_at: 'yesterday' }), /req\.start\.started_at: Input should be a valid datetime/],
    ['a start with a date but no time', start('a', { started_at: '2026-11-01' }), /started_at/],
    ['a start with February 30th', start('a', { started_at: '2026-02-30T00:00:00Z' }), /started_at/],
    ['a start whose attributes is not an object', start('a', { attributes: [] }), /req\.start\.attributes: Input should be a valid dictionary/],
    ['a start whose inputs is missing', start('a', { inputs: undefined }), /req\.start\.inputs: Field required/],
    ['a start with a fractional svc_run_step', start('a', { svc_run_step: 1.5 }), /svc_run_step: Input should be a valid integer/],
    ['a start with a null display_name', start('a', { display_name: null }), /display_name: Input should be a valid string/],
    ['a start with an unknown field', start('a', { color: 'red' }), /req\.start\.color: Extra inputs are not permitted/],
    ['a start with a bad project_id', start('a', { project_id: 'nope' }), /project_id: must have the form/],
    ['an end without summary', end('a', { summary: undefined }), /req\.end\.summary: Field required/],
    ['an end with a non-string exception', end('a', { exception: { e: 1 } }), /req\.end\.exception: Input should be a valid string/],
    ['an end with an unknown field', end('a', { status: 'ok' }), /req\.end\.status: Extra inputs are not permitted/],
    ['a start item carrying an end', { mode: 'start', req: { end: {} } }, /req\.end: Extra inputs|req\.start: Field required/],
    ['an item that is not an object', 'start', /batch\[0\]: Input should be a valid dictionary/],
  ];
  for (const [what, item, reason] of invalid) {
    it(`answers 400 {reason} naming the field path for ${what}, storing nothing`, async () => {
      const res = await upsert([start('ok'), item]);
      assert.equal(res.status, 400);
      assert.match(res.body.reason, new RegExp(reason.source.replace('batch\\[0\\]', 'batch\\[1\\]')));
      assert.equal(server().store.calls.size, 0);
    });
  }

  it('answers 400 for a body whose batch is missing or has extra top-level fields', async () => {
    assert.match((await postJson(server(), '/call/upsert_batch', {})).body.reason, /batch: Field required/);
    assert.match((await postJson(server(), '/call/upsert_batch', { batch: [], x: 1 })).body.reason, /x: Extra inputs/);
  });

  it('keeps an explicit null output and accepts timestamps with offsets and microseconds', async () => {
    await upsert([start('a', { started_at: '2026-11-01T12:00:00.123456+02:00' }), end('a', { output: null })]);
    const a = server().store.getCall(PROJECT, 'a')!;
    assert.ok('output' in a);
    assert.equal(a.output, null);
    assert.equal(a.startedUs, Date.parse('2026-11-01T10:00:00.123Z') * 1000 + 456);
  });

  it('answers 400 with error_code CALLS_COMPLETE_MODE_REQUIRED for a listed project', async () => {
    const s = await startReferenceServer({ apiKeys: [{ key: API_KEY, userId: USER_ID }], projectsRequiringCompleteMode: [PROJECT] });
    try {
      const res = await postJson(s, '/call/upsert_batch', { batch: [start('a')] }, BASIC);
      assert.equal(res.status, 400);
      assert.equal(res.body.error_code, 'CALLS_COMPLETE_MODE_REQUIRED');
      assert.equal(typeof res.body.reason, 'string');
      assert.equal(s.store.calls.size, 0);
    } finally {
      await s.close();
    }
  });
});
