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

  it('returns the URL as the parser normalised it (url.href), which is what the browser opens', () => {
    assert.deepEqual(buildWebUiUrl('HTTPS://UI.Example.com?thread={threadId}', { threadId: 't-1' }), { ok: true, url: 'https://ui.example.com/?thread=t-1' });
    assert.deepEqual(buildWebUiUrl('https://ui.example.com:443/my threads/{threadId}', { threadId: 't-1' }), { ok: true, url: 'https://ui.example.com/my%20threads/t-1' });
  });

  it('refuses a backslash and control characters, naming them (https://evil.com\\@ui.example.com/ opens evil.com)', () => {
    const cases: [string, RegExp][] = [
      ['https://evil.com\\@ui.example.com/{threadId}', /backslash/],
      ['https://ui.example.com\\threads/{threadId}', /backslash/],
      ['https://ev\til.com@ui.example.com/{threadId}', /control character U\+0009/],
      ['https://ui.example.com/\n{threadId}', /control character U\+000A/],
      ['https://ui.example.com/\u0000{threadId}', /control character U\+0000/],
      ['https://ui.example.com/\u007f/{threadId}', /control character U\+007F/],
      ['https://ui.example.com/\u0085/{threadId}', /control character U\+0085/],
    ];
    for (const [t, reason] of cases) {
      const built = buildWebUiUrl(t, { threadId: 't' });
      assert.equal(built.ok, false, `${JSON.stringify(t)} gave ${built.ok ? built.url : ''}`);
      assert.match(!built.ok ? built.reason : '', /svc\.webUiUrl/);
      assert.match(!built.ok ? built.reason : '', reason);
    }
  });

  it('refuses a placeholder in the scheme, host or port: only the path, query and fragment take values', () => {
    for (const t of ['https://{entity}.example.com/{threadId}', 'https://ui.example.com{project}/t/{threadId}', 'https://ui.example.com:{project}/{threadId}', '{entity}://ui.example.com/{threadId}', 'https://{entity}/{threadId}']) {
      const built = buildWebUiUrl(t, { entity: 'evil.com#', project: '1', threadId: 't' });
      assert.equal(built.ok, false, `${t} gave ${built.ok ? built.url : ''}`);
      assert.match(!built.ok ? built.reason : '', /svc\.webUiUrl.*(host|scheme)/);
    }
  });

  it('refuses a host part the URL parser would read differently from what is written', () => {
    for (const t of ['https://0x7f.1/{threadId}', 'https://ui%2eexample.com/{threadId}']) {
      const built = buildWebUiUrl(t, { threadId: 't' });
      assert.equal(built.ok, false, `${t} gave ${built.ok ? built.url : ''}`);
      assert.match(!built.ok ? built.reason : '', /svc\.webUiUrl.*host/);
    }
  });

  it('refuses a value that would be a "." or ".." path segment (the parser would move the path), naming it', () => {
    for (const threadId of ['..', '.']) {
      const built = buildWebUiUrl('https://ui.example.com/{entity}/{project}/threads/{threadId}', { entity: 'acme', project: 'chat', threadId });
      assert.equal(built.ok, false, built.ok ? built.url : '');
      assert.match(!built.ok ? built.reason : '', new RegExp(`\\{threadId\\} is "${threadId.replace(/\./g, '\\.')}"`));
    }
    // In the query a dot is a value like any other.
    assert.deepEqual(buildWebUiUrl('https://ui.example.com/t?thread={threadId}', { threadId: '..' }), { ok: true, url: 'https://ui.example.com/t?thread=..' });
  });

  it('splits a project id into entity and project for a thread', () => {
    assert.deepEqual(threadValues('acme/chat', 't-1', 'c-2'), { entity: 'acme', project: 'chat', threadId: 't-1', callId: 'c-2' });
    assert.deepEqual(threadValues('acme/chat', 't-1', null), { entity: 'acme', project: 'chat', threadId: 't-1' });
  });
});
