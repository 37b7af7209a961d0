import assert from 'node:assert/strict';
import { parseRef, callRef, isProjectId, REF_PATTERN } from '../../../src/api/refs';

describe('api/refs', () => {
  it('parses a call ref into entity, project and call id', () => {
    const r = parseRef('svc:///acme/chatbot/call/0193-abc');
    assert.ok(r.ok);
    assert.deepEqual(r.ref, { kind: 'call', entity: 'acme', project: 'chatbot', projectId: 'acme/chatbot', callId: '0193-abc' });
  });

  it('parses object and op refs with name and digest', () => {
    const o = parseRef('svc:///acme/chatbot/object/my-dataset:v3abc');
    assert.ok(o.ok && o.ref.kind === 'object' && o.ref.name === 'my-dataset' && o.ref.digest === 'v3abc');
    const op = parseRef('svc:///acme/chatbot/op/predict:deadbeef');
    assert.ok(op.ok && op.ref.kind === 'op' && op.ref.name === 'predict');
  });

  for (const [ref, reason] of [
    ['http:///acme/chatbot/call/1', /must start with svc:\/\/\//],
    ['svc:///acme/call/1', /must have the form/],
    ['svc:///acme/chatbot/call/', /call id/],
    ['svc:///acme/chatbot/object/noDigest', /<name>:<digest>/],
    ['svc:///acme/chatbot/object/:digest', /<name>:<digest>/],
    ['svc:///acme/chatbot/table/x:y', /unknown kind "table"/],
    ['svc:///acme//call/1', /project/],
  ] as const) {
    it(`refuses ${ref} with a reason`, () => {
      const r = parseRef(ref);
      assert.equal(r.ok, false);
      if (!r.ok) assert.match(r.reason, reason);
    });
  }

  it('builds call refs that parse back', () => {
    const ref = callRef('acme/chatbot', 'c-1');
    assert.equal(ref, 'svc:///acme/chatbot/call/c-1');
    assert.ok(parseRef(ref).ok);
  });

  it('checks project ids', () => {
    assert.ok(isProjectId('acme/chatbot'));
    assert.ok(!isProjectId('acme'));
    assert.ok(!isProjectId('acme/chat/bot'));
    assert.ok(!isProjectId('acme/ chat'));
  });

  it('finds refs in free text', () => {
    const text = 'see "svc:///a/b/call/123" and (svc:///a/b/object/x:1), not svc://a/b';
    assert.deepEqual(text.match(REF_PATTERN), ['svc:///a/b/call/123', 'svc:///a/b/object/x:1']);
  });
});
