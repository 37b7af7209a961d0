// Proves the in-host harness: we run inside a real extension host (Node APIs available), the
// extension under development is loaded and activates. With SVC_HOST_SELFTEST_FAIL=1 one test
// fails on purpose, to prove the runner turns a failing suite into a non-zero exit code.
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';

const EXTENSION_ID = 'svc.svc-vscode';

describe('smoke: extension host harness', () => {
  it('runs in a Node extension host and prints where', () => {
    const info = {
      appName: vscode.env.appName,
      vscodeVersion: vscode.version,
      uiKind: vscode.UIKind[vscode.env.uiKind],
      remoteName: vscode.env.remoteName ?? '(local)',
      appHost: vscode.env.appHost,
      node: process.version,
      platform: `${process.platform}-${process.arch}`,
      workspaceFolders: (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.toString()),
    };
    console.log(`      host: ${JSON.stringify(info)}`);
    assert.ok(vscode.version, 'vscode.version is empty');
    // The extension needs Node APIs (fs, http, process): the web-worker host would not have them.
    assert.strictEqual(typeof fs.readFileSync, 'function');
    assert.ok(process.versions.node, 'not a Node extension host');
  });

  it(`finds ${EXTENSION_ID} and activates it`, async () => {
    const ext = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(ext, `${EXTENSION_ID} is not loaded; extensions: ${vscode.extensions.all.map((e) => e.id).join(', ')}`);
    await ext.activate();
    assert.strictEqual(ext.isActive, true);
    // extensionDevelopmentPath points at the repo, so the manifest is ours and main is the bundle.
    assert.strictEqual(ext.packageJSON.name, 'svc-vscode');
    assert.ok(fs.existsSync(path.join(ext.extensionPath, 'dist', 'extension.js')), 'dist/extension.js missing');
    console.log(`      extension: ${ext.id}@${ext.packageJSON.version} from ${ext.extensionPath}`);
  });

  it('sees the environment the runner passes through', () => {
    // run-tests.js / run-desktop.js set this, so suites can rely on env pass-through.
    assert.strictEqual(process.env.SVC_HOST_TEST, '1', 'SVC_HOST_TEST not set in the extension host');
  });

  it('applies the user settings the runner pre-seeds', () => {
    // DEFAULT_SETTINGS in scripts/host/run-code-server.js (also written by run-desktop.js).
    assert.strictEqual(vscode.workspace.getConfiguration('workbench').get('startupEditor'), 'none');
  });

  if (process.env.SVC_HOST_SELFTEST_FAIL === '1') {
    it('fails on purpose (SVC_HOST_SELFTEST_FAIL=1)', () => {
      assert.fail('deliberate failure: SVC_HOST_SELFTEST_FAIL=1');
    });
  }
});
