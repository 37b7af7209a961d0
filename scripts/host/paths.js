// Where the offline VS Code host lives: setup.js installs it there, run-code-server.js starts it
// from there. A module of its own so that neither of those two needs the other for the paths.
const path = require('path');

const CODE_SERVER_VERSION = '4.100.3';
const ROOT = path.resolve(__dirname, '..', '..');
const HOST_DIR = path.join(ROOT, '.vscode-test');
const INSTALL_DIR = path.join(HOST_DIR, 'code-server');
const CODE_SERVER_PKG = path.join(INSTALL_DIR, 'node_modules', 'code-server');
// We start code-server as `node <entry>` with our own Node rather than through its bin shim, so
// the Node that built the native modules is the one that loads them.
const CODE_SERVER_ENTRY = path.join(CODE_SERVER_PKG, 'out', 'node', 'entry.js');
const CHROMIUM_PATH = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

module.exports = { CODE_SERVER_VERSION, ROOT, HOST_DIR, INSTALL_DIR, CODE_SERVER_PKG, CODE_SERVER_ENTRY, CHROMIUM_PATH };
