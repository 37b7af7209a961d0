// Runs last: scans everything the extension wrote during the whole run for the secrets it saw.
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import type { ReferenceServer } from '../../server';
import { connect, endSuite, KEY, signIn, startServer, storeRevokedKey, waitFor } from './helpers';

function filesUnder(dir: string, out: string[] = []): string[] {
  if (!fs.existsSync(dir)) return out;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) filesUnder(full, out);
    else out.push(full);
  }
  return out;
}

describe('security: no secret is written anywhere', () => {
  let server: ReferenceServer;
  const WRONG = 'wrong-secret-key-7d9e2b4c1a';
  before(async () => {
    server = await startServer();
    server.seedThreads('acme/chatbot', 2);
  });
  after(async () => {
    await endSuite(server);
  });

  it('after signing in, failing auth, retrying and signing out, no secret is in the logs, settings or state', async () => {
    const a = await connect(server);
    a.log.info('security-scan-marker');
    await vscode.commands.executeCommand('svc.threads.refresh');
    await assert.rejects(Promise.resolve(vscode.commands.executeCommand('svc.signIn', { apiKey: WRONG })), /rejected the key \(401\)\. Nothing was stored/);
    await storeRevokedKey(WRONG);
    await vscode.commands.executeCommand('svc.threads.refresh');
    assert.strictEqual(a.connection.state, 'authFailed');
    await signIn();
    // After the sign-in (whose own check of the key may go to this route): the refresh meets the 503 and retries.
    server.faults.add({ path: '/threads/stream_query', kind: 'status', status: 503, retryAfter: '0' });
    await vscode.commands.executeCommand('svc.threads.refresh');
    assert.strictEqual(a.threads.rows.length, 2);
    // A message that quotes the key is scrubbed by the logger before it is written.
    a.log.error(`simulated failure quoting ${KEY} and ${Buffer.from(`api:${KEY}`).toString('base64')}`);

    const secrets = [KEY, WRONG, Buffer.from(`api:${KEY}`).toString('base64'), Buffer.from(`api:${WRONG}`).toString('base64')];
    // The log channel's file: find it under the host's log folder by the marker.
    const logsRoot = path.resolve(a.logUri.fsPath, '..', '..');
    let logText = '';
    await waitFor('the log file to contain the marker', () => {
      logText = filesUnder(logsRoot)
        .filter((f) => f.endsWith('.log'))
        .map((f) => fs.readFileSync(f, 'utf8'))
        .filter((t) => t.includes('security-scan-marker'))
        .join('\n');
      return logText.includes('simulated failure quoting');
    });
    assert.match(logText, /POST \/threads\/stream_query -> 401/);
    assert.match(logText, /POST \/threads\/stream_query -> 503 .*retrying/);
    const places: [string, string][] = [
      ['log channel', logText],
      ['svc settings', JSON.stringify(vscode.workspace.getConfiguration('svc'))],
      ['http settings', JSON.stringify(vscode.workspace.getConfiguration('http'))],
      ['globalState', JSON.stringify(a.globalState.keys().map((k) => [k, a.globalState.get(k)]))],
      ['workspaceState', JSON.stringify(a.workspaceState.keys().map((k) => [k, a.workspaceState.get(k)]))],
      ['status bar', `${a.statusBar.item.text} ${JSON.stringify(a.statusBar.item.tooltip)}`],
    ];
    for (const [where, text] of places) {
      for (const s of secrets) assert.ok(!text.includes(s), `a secret (${s.slice(0, 6)}…) is in the ${where}`);
    }
    assert.ok(logText.includes('***'), 'the quoted key was replaced');
  });
});
