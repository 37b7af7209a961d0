// The two VS Code test hosts (scripts/host/paths.js) and how a run picks one (issue 29, item 1).
import assert from 'node:assert/strict';
import * as path from 'node:path';

interface HostSpec {
  id: string;
  vscode: string;
  codeServer: string;
  nodeMajor: number;
  nodeVersion: string | null;
  nodeDir: string | null;
  installDir: string;
  devOptionsInConfig: boolean;
  settings: Record<string, unknown>;
}
const paths = require('../../../scripts/host/paths.js') as {
  HOSTS: Record<string, HostSpec>;
  HOST_DIR: string;
  hostSpec(name?: string): HostSpec;
  selectedHosts(name?: string): HostSpec[];
  hostNode(spec: HostSpec): string;
  codeServerEntry(spec: HostSpec): string;
};
const runTests = require('../../../scripts/host/run-tests.js') as {
  parseArgs(argv: string[]): { host: HostSpec; settings: Record<string, unknown>; grep?: string; restricted: boolean };
};

describe('scripts/host: the VS Code 1.100 and 1.139 test hosts', () => {
  const saved = { SVC_HOST: process.env.SVC_HOST, SVC_HOST_SETTINGS: process.env.SVC_HOST_SETTINGS, SVC_HOST_GREP: process.env.SVC_HOST_GREP };
  beforeEach(() => {
    delete process.env.SVC_HOST;
    delete process.env.SVC_HOST_SETTINGS;
    delete process.env.SVC_HOST_GREP;
  });
  after(() => {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  });

  it('knows a host by its short name, its VS Code version and its code-server version', () => {
    for (const name of ['1.139', '1.139.1', '4.139.1']) assert.equal(paths.hostSpec(name).id, '1.139', name);
    for (const name of ['1.100', '1.100.3', '4.100.3']) assert.equal(paths.hostSpec(name).id, '1.100', name);
    assert.throws(() => paths.hostSpec('1.120'), /unknown VS Code host "1\.120".*1\.100, 1\.139/);
  });

  it('runs 1.100 (the engines floor) when nothing is chosen, and SVC_HOST picks another', () => {
    assert.equal(paths.hostSpec().id, '1.100');
    process.env.SVC_HOST = '1.139';
    assert.equal(paths.hostSpec().id, '1.139');
  });

  it('runs every host in a multi-host command unless SVC_HOST names one', () => {
    assert.deepEqual(paths.selectedHosts(undefined).map((h) => h.id), ['1.100', '1.139']);
    assert.deepEqual(paths.selectedHosts('all').map((h) => h.id), ['1.100', '1.139']);
    assert.deepEqual(paths.selectedHosts('1.139').map((h) => h.id), ['1.139']);
    assert.throws(() => paths.selectedHosts('2.0'), /unknown VS Code host/);
  });

  it('installs each host in its own folder, 1.139 with its own Node 24 from npm and 1.100 on the Node running the scripts', () => {
    const [a, b] = [paths.HOSTS['1.100']!, paths.HOSTS['1.139']!];
    assert.notEqual(a.installDir, b.installDir);
    for (const h of [a, b]) assert.ok(h.installDir.startsWith(paths.HOST_DIR + path.sep), h.installDir);
    assert.equal(paths.hostNode(a), process.execPath);
    assert.equal(b.nodeMajor, 24);
    assert.match(b.nodeVersion ?? '', /^24\.\d+\.\d+$/);
    assert.equal(paths.hostNode(b), path.join(b.nodeDir!, 'bin', 'node'));
    assert.equal(paths.codeServerEntry(b), path.join(b.installDir, 'node_modules', 'code-server', 'out', 'node', 'entry.js'));
    // 1.139 ignores the URL payload's development paths; 1.100 reads them.
    assert.deepEqual([a.devOptionsInConfig, b.devOptionsInConfig], [false, true]);
  });

  it('hides 1.139\'s chat for a run, and a run can turn it back on', () => {
    assert.equal(paths.HOSTS['1.139']!.settings['chat.disableAIFeatures'], true);
    const args = runTests.parseArgs(['--host-version', '1.139', '--setting', 'chat.disableAIFeatures=false', '--setting', 'svc.project=acme/bot', '--setting', 'svc.models=["a","b"]']);
    assert.equal(args.host.id, '1.139');
    assert.deepEqual(args.settings, { 'chat.disableAIFeatures': false, 'svc.project': 'acme/bot', 'svc.models': ['a', 'b'] });
  });

  it('takes the host and the settings of run-tests.js from the environment too, the flags winning', () => {
    process.env.SVC_HOST = '1.139';
    process.env.SVC_HOST_SETTINGS = '{"chat.disableAIFeatures": false, "a": 1}';
    assert.equal(runTests.parseArgs([]).host.id, '1.139');
    assert.deepEqual(runTests.parseArgs(['--setting', 'a=2']).settings, { 'chat.disableAIFeatures': false, a: 2 });
    assert.equal(runTests.parseArgs(['--host-version=1.100']).host.id, '1.100');
    process.env.SVC_HOST_SETTINGS = '{not json';
    assert.throws(() => runTests.parseArgs([]), /SVC_HOST_SETTINGS is not JSON/);
    delete process.env.SVC_HOST_SETTINGS;
    assert.throws(() => runTests.parseArgs(['--host-version', '9']), /unknown VS Code host "9"/);
    assert.throws(() => runTests.parseArgs(['--setting', 'novalue']), /--setting expects KEY=VALUE/);
  });
});
