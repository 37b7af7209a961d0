import assert from 'node:assert/strict';
import { FromWebview as FromDashboard } from '../../../src/dashboard/shared/protocol';
import { FromWebviewSchema as FromThreadDetails, ToWebviewSchema as ToThreadDetails } from '../../../src/threads/detailsProtocol';
import { FromWebview as FromViewer, ToWebview as ToViewer } from '../../../src/viewer/protocol';
import { parseMessage } from '../../../src/webview/protocol';

describe('webviews: one message check at both ends (parseMessage)', () => {
  it('accepts what each protocol allows, in both directions', () => {
    assert.deepEqual(parseMessage(FromViewer, { type: 'search', query: 'tool' }), { ok: true, value: { type: 'search', query: 'tool' } });
    assert.ok(parseMessage(ToViewer, { type: 'select', group: 1 }).ok);
    assert.ok(parseMessage(FromThreadDetails, { type: 'copy', target: 'link' }).ok);
    assert.ok(parseMessage(ToThreadDetails, { type: 'copied', target: 'link' }).ok);
    assert.ok(parseMessage(FromDashboard, { type: 'refresh' }).ok);
  });

  it("checks the viewer's Logprobs messages both ways: the panel's counts and turns, the request, the panel toggle", () => {
    const panel = { edges: [-1], tokens: 2, turns: 1, positive: 0, tokenBins: [1, 1], turnBins: [0, 1], worst: [{ group: 0, trajectory: 1, history: -1, message: 3, at: 'messages_and_choices[3]', tokens: 2, mean: -0.6, min: -1.1, minToken: 0 }] };
    assert.ok(parseMessage(ToViewer, { type: 'logprobs', version: 1, panel }).ok);
    assert.ok(parseMessage(ToViewer, { type: 'logprobs', version: 1, error: "ART's Parquet format version 1 keeps no logprobs" }).ok);
    assert.ok(parseMessage(ToViewer, { type: 'logprobsPanel', open: true, click: 0 }).ok);
    assert.ok(parseMessage(ToViewer, { type: 'select', group: 0, trajectory: 1, message: 3, history: 0, tokens: true }).ok);
    assert.ok(parseMessage(FromViewer, { type: 'logprobs' }).ok);
    const bad = parseMessage(ToViewer, { type: 'logprobs', version: 1, panel: { ...panel, worst: [{ ...panel.worst[0], message: '3' }] } });
    assert.match((bad as { error: string }).error, /^message "logprobs" refused at panel\.worst\.0\.message: /);
    assert.equal(parseMessage(ToViewer, { type: 'logprobsPanel', open: 'yes' }).ok, false);
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
