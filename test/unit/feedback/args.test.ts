import assert from 'node:assert/strict';
import { InputError } from '../../../src/api';
import { isThreadNode, parseAttachArgs, turnChoices } from '../../../src/feedback/args';
import { treeNode } from '../../../src/ui/treeNodes';

const REF = 'svc:///acme/chatbot/call/c1';
const ok = (raw: unknown) => parseAttachArgs(raw);
/** Refused with an InputError matching `why`, naming `field` when given. */
const bad = (raw: unknown, why: RegExp, field?: string) => {
  assert.throws(
    () => parseAttachArgs(raw),
    (e: unknown) => {
      assert.ok(e instanceof InputError, `not an InputError: ${String(e)}`);
      assert.match(e.message, why);
      assert.match(e.message, /^svc\.attachFeedback[: ]/);
      if (field !== undefined) assert.equal(e.place.field, field);
      return true;
    },
  );
};

describe('feedback/args', () => {
  it('takes nothing, a link argument, or a full scripted call', () => {
    assert.deepEqual(ok(undefined), {});
    assert.deepEqual(ok(null), {});
    assert.deepEqual(ok({ ref: ` ${REF} `, note: undefined }), { ref: REF }, 'trimmed; undefined is left out');
    assert.deepEqual(ok({ ref: REF }), { ref: REF });
    assert.deepEqual(ok({ ref: REF, kind: 'note', note: 'hi', creator: 'ann', id: '0193e6c4-5c2a-7b1e-9a00-000000000001' }), {
      ref: REF,
      kind: 'note',
      note: 'hi',
      creator: 'ann',
      id: '0193e6c4-5c2a-7b1e-9a00-000000000001',
    });
  });
  it('infers the kind from the content', () => {
    assert.equal(ok({ note: 'x' }).kind, 'note');
    assert.equal(ok({ emoji: '👍' }).kind, 'reaction');
    assert.equal(ok({ feedbackType: 'score', payload: { v: 1 } }).kind, 'custom');
  });
  it('parses a payload given as JSON text', () => {
    assert.deepEqual(ok({ kind: 'custom', feedbackType: 'score', payload: '{"v": 1}' }).payload, { v: 1 });
  });
  it('normalises the creator: empty means none', () => {
    assert.equal(ok({ creator: '  ' }).creator, null);
    assert.equal(ok({ creator: null }).creator, null);
    assert.equal(ok({ creator: ' bo ' }).creator, 'bo');
  });
  it('names the argument of each problem', () => {
    bad('svc:///x', /object argument/);
    bad({ ref: REF, nots: 'x' }, /Unknown argument "nots"/);
    bad({ ref: 'svc:///acme/call/1' }, /ref "svc:\/\/\/acme\/call\/1" must have the form/, 'ref');
    bad({ kind: 'comment' }, /kind must be one of note, reaction, custom/, 'kind');
    bad({ note: '' }, /note: The note must not be empty/, 'note');
    bad({ note: 'x'.repeat(1025) }, /note: .*1025/, 'note');
    bad({ note: 5 }, /note: The note must be text/, 'note');
    bad({ emoji: '👍👍' }, /emoji: .*exactly one emoji/, 'emoji');
    bad({ payload: [1] }, /payload: .*not an array/, 'payload');
    bad({ payload: '{bad' }, /payload: The payload is not valid JSON/, 'payload');
    bad({ feedbackType: 'svc.runnable.1' }, /feedbackType: .*reserved/, 'feedbackType');
    bad({ kind: 'custom', feedbackType: 'svc.note.1', payload: { text: 'x' } }, /payload: .*exactly \{"note"/, 'payload');
    bad({ turn: 'middle' }, /turn must be "first" or "last"/, 'turn');
    bad({ id: 'not-a-uuid' }, /id must be a UUID/, 'id');
    bad({ id: 7 }, /id must be a UUID/, 'id');
    bad({ creator: 3 }, /creator must be a string or null/, 'creator');
    bad({ via: 'menu' }, /via must be "link"/, 'via');
  });
  it('refuses content of another kind', () => {
    bad({ kind: 'note', emoji: '👍' }, /emoji cannot be used with kind "note"/, 'emoji');
    bad({ kind: 'note', feedbackType: 'score' }, /feedbackType\/payload cannot be used with kind "note"/, 'feedbackType');
    bad({ note: 'x', emoji: '👍' }, /one kind of feedback: note and reaction/, 'kind');
  });
  it('recognises thread nodes by identity, not by shape, and their turns', () => {
    const node = treeNode({ kind: 'thread', project: 'acme/chatbot', row: { thread_id: 't', first_turn_id: 'a', last_turn_id: 'b' } });
    assert.equal(isThreadNode(node), true);
    assert.equal(isThreadNode({ ...node }), false, 'a script\'s object of the same shape is not a node');
    assert.equal(isThreadNode(treeNode({ kind: 'more', project: 'p', loaded: 1 })), false);
    assert.equal(isThreadNode({ ref: REF }), false);
    assert.deepEqual(turnChoices(node.row), [
      { turn: 'first', id: 'a' },
      { turn: 'last', id: 'b' },
    ]);
    assert.deepEqual(turnChoices({ first_turn_id: 'a', last_turn_id: 'a' }), [{ turn: 'first', id: 'a' }]);
    assert.deepEqual(turnChoices({ first_turn_id: null, last_turn_id: 'b' }), [{ turn: 'last', id: 'b' }]);
    assert.deepEqual(turnChoices({}), []);
  });
});
