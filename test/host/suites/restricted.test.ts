// Runs only in the Restricted Mode host (scripts/host/run-tests.js --restricted): workspace trust
// on, the folder never trusted, and its .vscode/settings.json (written before the workbench opened,
// as a cloned repository ships it) points svc.baseUrl and svc.trainingBaseUrl at two recording
// servers this suite starts on the ports the runner chose.
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import { callRef } from '../../../src/api/refs';
import type { ReferenceServer } from '../../server';
import { api, KEY, PROJECT, resetSettings, startServer, waitFor } from './helpers';
import { Prompts } from './prompts';

const credentialed = (s: ReferenceServer) => s.stats.requests.filter((r) => r.authScheme !== 'none').length;

describe('Restricted Mode: a workspace cannot redirect your key', function () {
  this.timeout(60_000);
  const ports = (process.env.SVC_RECORDER_PORTS ?? '').split(',').map(Number);
  const recorders: ReferenceServer[] = [];
  let own: ReferenceServer;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-restricted-'));
  const table: { source: string; received: number }[] = [];

  before(async () => {
    assert.strictEqual(ports.length, 2, 'the runner passes SVC_RECORDER_PORTS');
    for (const port of ports) {
      const s = await startServer({ port });
      s.seedThreads(PROJECT, 2);
      s.addCheckpoints('m-restricted', 2);
      recorders.push(s);
    }
    own = await startServer();
    own.seedThreads(PROJECT, 1);
  });
  after(async () => {
    await resetSettings();
    for (const s of [...recorders, own]) await s.close();
    console.log('\n      Credentials received by the recording servers (Restricted Mode, URLs from .vscode/settings.json):');
    console.log('      | credential source | credentials received |');
    console.log('      | --- | --- |');
    for (const r of table) console.log(`      | ${r.source} | ${r.received} |`);
  });

  it('runs untrusted, with the repository settings file in place', () => {
    assert.strictEqual(vscode.workspace.isTrusted, false);
    const file = path.join(vscode.workspace.workspaceFolders![0]!.uri.fsPath, '.vscode', 'settings.json');
    const settings = JSON.parse(fs.readFileSync(file, 'utf8'));
    assert.deepStrictEqual([settings['svc.baseUrl'], settings['svc.trainingBaseUrl']], recorders.map((r) => r.url));
  });

  it('ignores the workspace URLs and says so in both views and the status bar', async () => {
    const a = await api();
    assert.strictEqual(a.connection.config.baseUrl, '', 'svc.baseUrl from the workspace is ignored');
    assert.strictEqual(a.connection.config.trainingBaseUrl, '');
    assert.strictEqual(a.connection.state, 'unconfigured');
    assert.deepStrictEqual(a.connection.config.ignoredWorkspaceSettings, ['svc.baseUrl', 'svc.trainingBaseUrl']);
    assert.strictEqual(a.connection.contextKeys['svc.workspaceSettingsIgnored'], true);
    for (const view of [a.threadsView, a.checkpointsView]) {
      assert.match(view.message ?? '', /^Restricted Mode: this workspace's settings svc\.baseUrl, svc\.trainingBaseUrl are ignored, so no key goes where they point\./);
    }
    assert.match((a.statusBar.item.tooltip as vscode.MarkdownString).value, /Restricted Mode ignores this workspace's svc\.baseUrl, svc\.trainingBaseUrl/);
    // The welcome view for this state names Restricted Mode and offers to manage trust.
    const welcome = vscode.extensions.getExtension('svc.svc-vscode')!.packageJSON.contributes.viewsWelcome as { view: string; contents: string; when: string }[];
    const shown = welcome.filter((w) => w.when === '!svc.hasBaseUrl && svc.workspaceSettingsIgnored');
    assert.deepStrictEqual(shown.map((w) => w.view), ['svc.threads', 'svc.checkpoints']);
    assert.ok(shown.every((w) => /Restricted Mode ignores them/.test(w.contents) && w.contents.includes('command:workbench.trust.manage')));
  });

  const sources: { name: string; set: () => Promise<void> }[] = [
    {
      name: 'SecretStorage',
      set: async () => {
        const a = await api();
        // A key stored for each recording origin (signed in there some other time).
        for (const r of recorders) await a.credentials.store(new URL(r.url).origin, { username: 'api', password: KEY, accessToken: KEY });
      },
    },
    { name: 'SVC_API_KEY', set: async () => void (process.env.SVC_API_KEY = KEY) },
    {
      name: 'netrc exact',
      set: async () => {
        fs.writeFileSync(path.join(dir, 'exact'), `machine 127.0.0.1 login user password ${KEY}\n`);
        process.env.NETRC = path.join(dir, 'exact');
      },
    },
    {
      name: 'netrc default',
      set: async () => {
        fs.writeFileSync(path.join(dir, 'default'), `default login user password ${KEY}\n`);
        process.env.NETRC = path.join(dir, 'default');
      },
    },
  ];

  for (const source of sources) {
    it(`sends the ${source.name} key nowhere the workspace points: views, palette and scripted commands`, async () => {
      const a = await api();
      await source.set();
      a.connection.reload();
      await a.connection.refreshAuth(true);
      for (const r of recorders) r.stats.clear();
      const p = new Prompts().answer(/./, 'Allow');
      try {
        await a.threadsProvider.getChildren();
        await a.checkpointsProvider.getChildren();
        await a.checkpointsProvider.getChildren({ kind: 'model', modelId: 'm-restricted' });
        await vscode.commands.executeCommand('svc.threads.refresh');
        await vscode.commands.executeCommand('svc.checkpoints.refresh', { modelId: 'm-restricted' });
        await Promise.resolve(vscode.commands.executeCommand('svc.attachFeedback', { ref: callRef(PROJECT, 'c1'), kind: 'note', note: 'x' })).catch(() => undefined);
        await Promise.resolve(vscode.commands.executeCommand('svc.signIn', { apiKey: KEY })).catch(() => undefined);
      } finally {
        p.dispose();
      }
      assert.deepStrictEqual(p.modals(), [], 'nothing to ask: nothing is sent there');
      const received = recorders.reduce((n, r) => n + credentialed(r), 0);
      table.push({ source: source.name, received });
      assert.strictEqual(received, 0, 'no Authorization header reached the recording servers');
      assert.strictEqual(recorders.reduce((n, r) => n + r.stats.count(), 0), 0, 'no request at all');
      delete process.env.SVC_API_KEY;
      delete process.env.NETRC;
      for (const r of recorders) await a.credentials.clear(new URL(r.url).origin);
    });
  }

  it('Set Service URL writes the user settings, which take effect (no pick: the workspace cannot take it)', async () => {
    const a = await api();
    const p = new Prompts().script({ type: own.url, title: 'svc: Service base URL' });
    try {
      assert.strictEqual(await vscode.commands.executeCommand('svc.setBaseUrl'), true);
      p.assertDone();
    } finally {
      p.dispose();
    }
    await waitFor('the user URL in use', () => a.connection.config.baseUrl === own.url);
    assert.strictEqual(vscode.workspace.getConfiguration('svc').inspect('baseUrl')!.globalValue, own.url);
    assert.strictEqual(a.connection.config.baseUrlFrom.source, 'user');
    await assert.rejects(
      Promise.resolve(vscode.commands.executeCommand('svc.setBaseUrl', { baseUrl: own.url, scope: 'workspace' })),
      /In Restricted Mode VS Code ignores svc\.baseUrl in workspace settings/,
    );
    // The user's own choice works as before; the recorders still receive nothing.
    await vscode.commands.executeCommand('svc.signIn', { apiKey: KEY });
    await waitFor('signed in', () => a.connection.state === 'signedIn');
    await vscode.commands.executeCommand('svc.threads.refresh');
    assert.strictEqual(a.threads.rows.length, 1);
    assert.ok(credentialed(own) > 0);
    assert.strictEqual(recorders.reduce((n, r) => n + r.stats.count(), 0), 0);
    await a.credentials.clear(new URL(own.url).origin);
  });
});
