import assert from 'node:assert/strict';
import { LINK_AUTHORITY, linkFor, parseLink, type LinkTarget } from '../../../src/links/link';

/** What VS Code hands a URI handler: the path, and the query percent-decoded (as vscode.Uri.parse does). */
function received(link: string): { path: string; query: string } {
  const u = /^[\w.+-]+:\/\/[^/?#]*([^?#]*)(?:\?([^#]*))?/.exec(link)!;
  return { path: decodeURIComponent(u[1]!), query: decodeURIComponent(u[2] ?? '') };
}

describe('links/link', () => {
  it('builds links under the extension id, in the scheme of the receiving editor', () => {
    assert.equal(LINK_AUTHORITY, 'svc.svc-vscode');
    assert.equal(linkFor('vscode', { kind: 'thread', project: 'acme/chatbot', threadId: 't-1' }), 'vscode://svc.svc-vscode/thread?project=acme%2Fchatbot&id=t-1');
    assert.equal(linkFor('vscode-insiders', { kind: 'model', modelId: 'agent-7b' }), 'vscode-insiders://svc.svc-vscode/model?id=agent-7b');
    assert.equal(linkFor('code-oss', { kind: 'checkpoint', modelId: 'agent-7b', step: 42 }), 'code-oss://svc.svc-vscode/checkpoint?model=agent-7b&step=42');
  });

  it('reads back every link it builds, ids with spaces, plus, percent, equals and unicode included', () => {
    const targets: LinkTarget[] = [
      { kind: 'thread', project: 'acme-corp/chat.bot_2', threadId: 'a+b=c%20d/é #1' },
      { kind: 'model', modelId: 'org/model+v2 ü' },
      { kind: 'checkpoint', modelId: 'm%41', step: 0 },
      { kind: 'checkpoint', modelId: 'm', step: 123456789 },
    ];
    for (const target of targets) {
      const { path, query } = received(linkFor('vscode', target));
      assert.deepEqual(parseLink(path, query), { ok: true, target });
    }
  });

  it('refuses to build a link for a value holding "&" (the receiver could not tell it from the next parameter)', () => {
    assert.throws(() => linkFor('vscode', { kind: 'thread', project: 'a/b', threadId: 'x&y' }), /id "x&y" holds "&"/);
    assert.throws(() => linkFor('vscode', { kind: 'model', modelId: '' }), /needs a id/);
  });

  it('names what is wrong with a bad link', () => {
    const reason = (path: string, query: string) => {
      const r = parseLink(path, query);
      assert.equal(r.ok, false);
      return (r as { reason: string }).reason;
    };
    assert.match(reason('/thread', 'project=acme/chatbot'), /no "id" parameter/);
    assert.match(reason('/thread', ''), /no "project" or "id" parameter/);
    assert.match(reason('/thread', 'project=chatbot&id=t'), /project "chatbot" is not of the form entity\/project/);
    assert.match(reason('/model', 'model=m'), /no "id" parameter/);
    assert.match(reason('/checkpoint', 'model=m'), /no "step" parameter/);
    assert.match(reason('/checkpoint', 'model=m&step=-1'), /step "-1" is not a whole number/);
    assert.match(reason('/checkpoint', 'model=m&step=4.5'), /step "4.5" is not a whole number/);
    assert.match(reason('/checkpoint', 'model=m&step=x'), /step "x"/);
    assert.match(reason('/settings', 'baseUrl=http://evil'), /"\/settings" is none of \/thread, \/model or \/checkpoint/);
    assert.match(reason('', ''), /"\/" is none of/);
  });

  it('takes the first of a repeated parameter and ignores unknown ones', () => {
    assert.deepEqual(parseLink('/model', 'id=a&id=b&baseUrl=http://evil'), { ok: true, target: { kind: 'model', modelId: 'a' } });
    assert.deepEqual(parseLink('/checkpoint/', 'step=7&model=m'), { ok: true, target: { kind: 'checkpoint', modelId: 'm', step: 7 } });
  });
});
