import assert from 'node:assert/strict';
import { buildWebUiUrl, threadValues } from '../../../src/webUi/url';

describe('webUi/url', () => {
  it('fills each placeholder of the template with its value', () => {
    const built = buildWebUiUrl('https://ui.example.com/{entity}/{project}/threads/{threadId}?call={callId}', { entity: 'acme', project: 'chat', threadId: 't-1', callId: 'c-9' });
    assert.deepEqual(built, { ok: true, url: 'https://ui.example.com/acme/chat/threads/t-1?call=c-9' });
  });

  it('encodes every value with encodeURIComponent, so an id cannot add a path, a query or a host', () => {
    const built = buildWebUiUrl('https://ui.example.com/{project}/t/{threadId}?c={callId}', { project: 'a b', threadId: '../x/y?z=1#f', callId: 'q&r=@evil.com' });
    assert.ok(built.ok);
    assert.equal(built.url, 'https://ui.example.com/a%20b/t/..%2Fx%2Fy%3Fz%3D1%23f?c=q%26r%3D%40evil.com');
    assert.equal(new URL(built.url).host, 'ui.example.com');
  });

  it('leaves a value it does not know empty (a ref has no thread id)', () => {
    const built = buildWebUiUrl('https://ui.example.com/{entity}/{project}?thread={threadId}&call={callId}', { entity: 'e', project: 'p', callId: 'c' });
    assert.deepEqual(built, { ok: true, url: 'https://ui.example.com/e/p?thread=&call=c' });
  });

  it('refuses an empty template, naming the setting', () => {
    const built = buildWebUiUrl('  ', { threadId: 't' });
    assert.equal(built.ok, false);
    assert.match(!built.ok ? built.reason : '', /svc\.webUiUrl is not set/);
  });

  it('refuses a template that is not http(s), or carries a user name or password', () => {
    for (const t of ['javascript:alert(1)//{threadId}', 'file:///etc/{threadId}', 'vscode://x/{threadId}', 'ui.example.com/{threadId}']) {
      const built = buildWebUiUrl(t, { threadId: 't' });
      assert.equal(built.ok, false, t);
      assert.match(!built.ok ? built.reason : '', /svc\.webUiUrl/);
    }
    assert.equal(buildWebUiUrl('https://me:secret@ui.example.com/{threadId}', { threadId: 't' }).ok, false);
  });

  it('refuses an unknown placeholder, listing the ones it knows', () => {
    const built = buildWebUiUrl('https://ui.example.com/{apiKey}/{threadId}', { threadId: 't' });
    assert.equal(built.ok, false);
    assert.match(!built.ok ? built.reason : '', /\{apiKey\}.*\{entity\}, \{project\}, \{threadId\}, \{callId\}/);
  });

  it('splits a project id into entity and project for a thread', () => {
    assert.deepEqual(threadValues('acme/chat', 't-1', 'c-2'), { entity: 'acme', project: 'chat', threadId: 't-1', callId: 'c-2' });
    assert.deepEqual(threadValues('acme/chat', 't-1', null), { entity: 'acme', project: 'chat', threadId: 't-1' });
  });
});
