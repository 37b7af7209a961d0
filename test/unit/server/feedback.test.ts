import assert from 'node:assert/strict';
import { postJson, PROJECT, USER_ID, useServer } from './helpers';

const CALL_REF = `svc:///${PROJECT}/call/0193a3c4-call`;
const OBJECT_REF = `svc:///${PROJECT}/object/my_dataset:abc123`;
const OP_REF = `svc:///${PROJECT}/op/score:def456`;
const UUID = '0f8fad5b-d9cb-469f-a165-70867728950e';

const base = { project_id: PROJECT, svc_ref: CALL_REF, feedback_type: 'label', payload: { value: 1 } };

describe('reference server: POST /feedback/create', () => {
  const server = useServer();
  const create = (body: unknown) => postJson(server(), '/feedback/create', body);

  it('stores a row and answers id, created_at, svc_user_id and payload', async () => {
    const res = await create(base);
    assert.equal(res.status, 200);
    assert.deepEqual(Object.keys(res.body).sort(), ['created_at', 'id', 'payload', 'svc_user_id']);
    assert.match(res.body.id, /^[0-9a-f-]{36}$/);
    assert.match(res.body.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.equal(res.body.svc_user_id, USER_ID);
    assert.deepEqual(res.body.payload, { value: 1 });
    assert.equal(server().store.feedback.length, 1);
    assert.equal(server().store.feedback[0]!.svc_ref, CALL_REF);
  });

  it('accepts object, call and op refs as svc_ref', async () => {
    for (const svc_ref of [OBJECT_REF, CALL_REF, OP_REF]) {
      assert.equal((await create({ ...base, svc_ref })).status, 200, svc_ref);
    }
  });

  const invalid: [string, Record<string, unknown>, RegExp][] = [
    ['a missing project_id', { project_id: undefined }, /project_id: Field required/],
    ['a project_id without entity', { project_id: 'chat' }, /project_id: must have the form/],
    ['a svc_ref of another project', { svc_ref: 'svc:///acme/other/call/c1' }, /svc_ref: must reference the project/],
    ['a svc_ref that is not a ref', { svc_ref: 'https://example.com/x' }, /svc_ref: must have the form/],
    ['an object ref without digest', { svc_ref: `svc:///${PROJECT}/object/name` }, /svc_ref/],
    ['a call_ref that is an object ref', { call_ref: OBJECT_REF }, /call_ref: must have the form svc:\/\/\/<entity>\/<project>\/call/],
    ['an annotation_ref that is an op ref', { annotation_ref: OP_REF }, /annotation_ref/],
    ['a runnable_ref that is an object ref', { runnable_ref: OBJECT_REF }, /runnable_ref/],
    ['a trigger_ref of another project', { trigger_ref: 'svc:///x/y/object/a:b' }, /trigger_ref/],
    ['an id that is not a UUID', { id: 'not-a-uuid' }, /^id: must be a UUID/],
    ['a client-set svc_user_id', { svc_user_id: 'me' }, /svc_user_id: Must not be set by the client/],
    ['a payload that is an array', { payload: [1] }, /payload: Input should be a valid dictionary/],
    ['a payload that is null', { payload: null }, /payload/],
    ['an empty feedback_type', { feedback_type: '' }, /feedback_type: String should have at least 1 character/],
    ['an unknown top-level field', { extra: 1 }, /extra: Extra inputs are not permitted/],
    ['an unknown reserved type', { feedback_type: 'svc.other.1' }, /reserved/],
    ['svc.annotation.* without annotation_ref', { feedback_type: 'svc.annotation.score' }, /annotation_ref: Field required/],
    ['svc.runnable.* without runnable_ref', { feedback_type: 'svc.runnable.score' }, /runnable_ref: Field required/],
  ];
  for (const [what, patch, reason] of invalid) {
    it(`answers 400 {reason} naming the field for ${what}`, async () => {
      const res = await create({ ...base, ...patch });
      assert.equal(res.status, 400);
      assert.match(res.body.reason, reason);
      assert.equal(server().store.feedback.length, 0);
    });
  }

  it('accepts null for the optional nullable fields, svc_user_id included', async () => {
    const res = await create({ ...base, id: null, creator: null, call_ref: null, svc_user_id: null });
    assert.equal(res.status, 200);
  });

  it('accepts svc.annotation.* and svc.runnable.* with their refs', async () => {
    assert.equal((await create({ ...base, feedback_type: 'svc.annotation.score', annotation_ref: OBJECT_REF })).status, 200);
    assert.equal((await create({ ...base, feedback_type: 'svc.runnable.score', runnable_ref: OP_REF })).status, 200);
  });

  it('answers 400 "Feedback payload too large" for a payload of 1 MiB or more', async () => {
    const res = await create({ ...base, payload: { text: 'x'.repeat(1024 * 1024) } });
    assert.equal(res.status, 400);
    assert.equal(res.body.reason, 'Feedback payload too large');
  });

  describe('svc.note.1', () => {
    it('accepts exactly {note} of 1..1024 characters', async () => {
      const res = await create({ ...base, feedback_type: 'svc.note.1', payload: { note: 'n'.repeat(1024) } });
      assert.equal(res.status, 200);
    });
    for (const [what, payload] of [
      ['an empty note', { note: '' }],
      ['a note of 1025 characters', { note: 'n'.repeat(1025) }],
      ['an extra payload key', { note: 'hi', extra: 1 }],
      ['a non-string note', { note: 5 }],
    ] as const) {
      it(`refuses ${what}`, async () => {
        const res = await create({ ...base, feedback_type: 'svc.note.1', payload });
        assert.equal(res.status, 400);
      });
    }
  });

  describe('svc.reaction.1', () => {
    it('returns the processed payload with alias fields', async () => {
      const res = await create({ ...base, feedback_type: 'svc.reaction.1', payload: { emoji: '👍' } });
      assert.equal(res.status, 200);
      assert.deepEqual(res.body.payload, { emoji: '👍', detoned: '👍', detoned_alias: ':thumbs_up:', alias: ':thumbs_up:' });
      assert.deepEqual(server().store.feedback[0]!.payload, res.body.payload);
    });

    it('removes the skin tone in detoned and names it in alias', async () => {
      const res = await create({ ...base, feedback_type: 'svc.reaction.1', payload: { emoji: '👍🏽' } });
      assert.deepEqual(res.body.payload, {
        emoji: '👍🏽',
        detoned: '👍',
        detoned_alias: ':thumbs_up:',
        alias: ':thumbs_up_medium_skin_tone:',
      });
    });

    it('gives emoji outside the table a generic alias', async () => {
      const res = await create({ ...base, feedback_type: 'svc.reaction.1', payload: { emoji: '🦑' } });
      assert.equal(res.status, 200);
      assert.equal(res.body.payload.alias, ':emoji_1f991:');
    });

    it('accepts a multi-code-point emoji (ZWJ sequence, flag) as one grapheme', async () => {
      for (const emoji of ['👩‍💻', '🇫🇷', '❤️']) {
        const res = await create({ ...base, feedback_type: 'svc.reaction.1', payload: { emoji } });
        assert.equal(res.status, 200, emoji);
      }
    });

    for (const [what, emoji] of [['two emoji', '👍👍'], ['text', 'ok'], ['an emoji and text', '👍!'], ['an empty string', '']]) {
      it(`refuses ${what}`, async () => {
        const res = await create({ ...base, feedback_type: 'svc.reaction.1', payload: { emoji } });
        assert.equal(res.status, 400);
        assert.match(res.body.reason, /emoji/);
      });
    }
  });

  describe('client-supplied id', () => {
    it('uses the id and makes a retried identical create return the stored row', async () => {
      const first = await create({ ...base, id: UUID });
      const second = await create({ ...base, id: UUID, payload: { value: 1 } });
      assert.equal(first.status, 200);
      assert.equal(first.body.id, UUID);
      assert.equal(second.status, 200);
      assert.deepEqual(second.body, first.body);
      assert.equal(server().store.feedback.length, 1);
    });

    it('answers 400 when the same id comes with different content', async () => {
      await create({ ...base, id: UUID });
      const res = await create({ ...base, id: UUID, payload: { value: 2 } });
      assert.equal(res.status, 400);
      assert.match(res.body.reason, /already exists/);
      assert.equal(server().store.feedback.length, 1);
    });
  });
});
