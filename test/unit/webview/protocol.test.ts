import assert from 'node:assert/strict';
import { FromWebview as FromDashboard } from '../../../src/dashboard/shared/protocol';
import { FromWebviewSchema as FromThreadDetails, ToWebviewSchema as ToThreadDetails } from '../../../src/threads/detailsProtocol';
import { FromWebview as FromViewer, ToWebview as ToViewer } from '../../../src/viewer/protocol';
import { parseMessage } from '../../../src/webview/shared/protocol';

describe('webviews: one message check at both ends (parseMessage)', () => {
  it('accepts what each protocol allows, in both directions', () => {
    assert.deepEqual(parseMessage(FromViewer, { type: 'search', query: 'tool' }), { ok: true, value: { type: 'search', query: 'tool' } });
    assert.ok(parseMessage(ToViewer, { type: 'select', group: 1 }).ok);
    assert.ok(parseMessage(FromThreadDetails, { type: 'copy', target: 'link' }).ok);
    assert.ok(parseMessage(ToThreadDetails, { type: 'copied', target: 'link' }).ok);
    assert.ok(parseMessage(FromDashboard, { type: 'refresh' }).ok);
  });

  it('refuses the rest the same way in every webview: the message type, where and why, never the data', () => {
    const viewer = parseMessage(FromViewer, { type: 'reveal', group: 'secret-value' });
    assert.deepEqual(viewer.ok, false);
    assert.match((viewer as { error: string }).error, /^message "reveal" refused at group: /);
    assert.doesNotMatch((viewer as { error: string }).error, /secret-value/);
    const details = parseMessage(FromThreadDetails, { type: 'copy', target: '../../etc/passwd' });
    assert.match((details as { error: string }).error, /^message "copy" refused at target: /);
    assert.doesNotMatch((details as { error: string }).error, /passwd/);
    assert.match((parseMessage(FromDashboard, 'runCommand') as { error: string }).error, /^message "string" refused at \(root\): /);
    assert.match((parseMessage(ToViewer, { type: 'eval', code: '1' }) as { error: string }).error, /^message "eval" refused at type: /);
  });
});
