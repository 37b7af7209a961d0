import assert from 'node:assert/strict';
import { canonicalJson, RetryIds } from '../../../src/feedback/retryIds';

describe('feedback/retryIds', () => {
  let n = 0;
  const next = () => `id-${++n}`;

  it('reuses the id of a failed attempt at the same feedback, and forgets it after a success', () => {
    const ids = new RetryIds(next);
    const key = canonicalJson({ svc_ref: 'r', payload: { note: 'x' } });
    const first = ids.idFor(key);
    assert.equal(ids.idFor(canonicalJson({ payload: { note: 'x' }, svc_ref: 'r' })), first, 'key order does not matter');
    assert.notEqual(ids.idFor(canonicalJson({ svc_ref: 'r', payload: { note: 'y' } })), first);
    ids.succeeded(key);
    assert.notEqual(ids.idFor(key), first);
  });
  it('takes a caller-given id', () => {
    const ids = new RetryIds(next);
    ids.remember('k', 'given');
    assert.equal(ids.idFor('k'), 'given');
  });
  it('keeps a bounded number of pending ids, dropping the oldest', () => {
    const ids = new RetryIds(next, 3);
    const a = ids.idFor('a');
    ids.idFor('b');
    ids.idFor('c');
    ids.idFor('d');
    assert.equal(ids.size, 3);
    assert.notEqual(ids.idFor('a'), a);
  });
  it('canonical JSON sorts keys and drops undefined fields', () => {
    assert.equal(canonicalJson({ b: 1, a: [{ d: 1, c: undefined }] }), '{"a":[{"d":1}],"b":1}');
  });
});
