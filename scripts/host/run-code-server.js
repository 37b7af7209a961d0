#!/usr/bin/env node
// Starts code-server (a real VS Code server + Node extension host) on a free loopback port: VS Code
// 1.100.3 or 1.139.1 (scripts/host/paths.js; `host` below, default SVC_HOST, else 1.100).
// Used by run-tests.js (in-host mocha suites), run-ui.js (Playwright UI checks) and the demo.
//
// Module API (all paths absolute):
//   const { startCodeServer } = require('./scripts/host/run-code-server');
//   const server = await startCodeServer({
//     workspace,        // folder opened in the workbench (default: a fresh empty temp folder)
//     extensionsDir,    // default: temp; e.g. where a VSIX was installed (see installExtension)
//     userDataDir,      // default: temp; settings go to <userDataDir>/User/settings.json
//     settings,         // object merged over DEFAULT_SETTINGS and any existing settings.json
//     env,              // extra environment for code-server and so for the extension host
//     port,             // default: a free port picked on 127.0.0.1
//     onOutput,         // (line) => void, code-server's stdout/stderr lines (default: kept quietly,
//                       //   printed when start-up fails; SVC_HOST_VERBOSE=1 prints them as they come)
//     startTimeoutMs,   // /healthz wait (default 60 s)
//     workspaceTrust,   // true: workspace trust on (Restricted Mode for an untrusted folder);
//                       //   default off (--disable-workspace-trust), as in every other run
//     host,             // '1.100' | '1.139' or a HostSpec (default SVC_HOST, else 1.100)
//   });
//   server.hostSpec                  the HostSpec it runs (id, vscode, codeServer, devOptionsInConfig, ...)
//   server.url                       'http://127.0.0.1:PORT'
//   server.remoteUri('/abs/path')    'vscode-remote://127.0.0.1:PORT/abs/path'
//   server.workbenchUrl({ folder, payload })   URL of the workbench, payload = [[key, value], ...]
//   await server.stop()              kills code-server's whole process group, removes temp dirs
//   installExtension({ vsix, extensionsDir })  installs a VSIX with code-server's CLI
//
// CLI (manual poking around; Ctrl-C stops it):
//   node scripts/host/run-code-server.js [--port N] [--workspace DIR] [--dev] [--host-version 1.139]
//     --dev  also prints a URL that loads this repo as extensionDevelopmentPath
'use strict';

const fs = require('fs');
const os = require('os');
const net = require('net');
const http = require('http');
const path = require('path');
const { spawn, spawnSync } = require('child_process');
const { ROOT, hostSpec, codeServerEntry, hostNode } = require('./paths');

const HOST = '127.0.0.1';

/** Settings that keep a test/demo window quiet and offline-friendly; callers can override any. */
const DEFAULT_SETTINGS = {
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'workbench.enableExperiments': false,
  'telemetry.telemetryLevel': 'off',
  'update.mode': 'none',
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'extensions.ignoreRecommendations': true,
  'security.workspace.trust.enabled': false,
  'git.enabled': false,
};

/**
 * Every code-server we started and have not stopped: killed (and its temp folders removed) if this
 * process exits without stop(), e.g. process.exit() from a signal handler or an uncaught error.
 */
const live = new Set();
process.on('exit', () => {
  for (const s of live) {
    s.killGroupNow('SIGKILL');
    s.removeTempNow();
  }
});

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, HOST, () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

function httpStatus(url, timeoutMs = 2000) {
  return new Promise((resolve) => {
    const req = http.get(url, { timeout: timeoutMs }, (res) => {
      res.resume();
      resolve(res.statusCode);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(0));
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Is any process left in process group `pgid`? */
function groupAlive(pgid) {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (e) {
    return e.code === 'EPERM';
  }
}

function writeSettings(userDataDir, settings, spec) {
  const file = path.join(userDataDir, 'User', 'settings.json');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  let existing = {};
  if (fs.existsSync(file)) {
    try {
      existing = JSON.parse(fs.readFileSync(file, 'utf8'));
    } catch {
      // settings.json may hold comments (JSONC); we only merge plain JSON and replace otherwise.
      console.warn(`[code-server] ${file} is not plain JSON; replacing it`);
    }
  }
  fs.writeFileSync(file, JSON.stringify({ ...DEFAULT_SETTINGS, ...spec.settings, ...existing, ...settings }, null, 2) + '\n');
}

/**
 * Inherited environment minus variables that make code-server or the extension host think they
 * run inside another VS Code (e.g. when this is launched from a VS Code terminal, code-server sees
 * VSCODE_IPC_HOOK_CLI and hands the folder to that instance instead of starting).
 */
function baseEnv() {
  const env = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (k.startsWith('VSCODE_') || k === 'ELECTRON_RUN_AS_NODE' || k.startsWith('CODE_SERVER_')) continue;
    env[k] = v;
  }
  return env;
}

/**
 * Runs a code-server CLI command (not the server) with throwaway XDG dirs.
 * @returns {{ status: number|null, output: string }}
 */
function resolveSpec(host) {
  return host && typeof host === 'object' ? host : hostSpec(host);
}

function assertInstalled(spec) {
  if (!fs.existsSync(codeServerEntry(spec)) || !fs.existsSync(hostNode(spec))) {
    throw new Error(
      `code-server ${spec.codeServer} (VS Code ${spec.vscode}) is not installed (${codeServerEntry(spec)}); ` +
        `run: node scripts/host/setup.js --host-version ${spec.id}`,
    );
  }
}

function codeServerCli(args, opts = {}) {
  const spec = resolveSpec(opts.host);
  assertInstalled(spec);
  const xdg = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-cs-cli-'));
  try {
    const r = spawnSync(hostNode(spec), [codeServerEntry(spec), ...args], {
      encoding: 'utf8',
      timeout: opts.timeoutMs || 120_000,
      env: { ...baseEnv(), XDG_CONFIG_HOME: path.join(xdg, 'config'), XDG_DATA_HOME: path.join(xdg, 'data') },
    });
    return { status: r.status, output: `${r.stdout || ''}${r.stderr || ''}${r.error ? String(r.error) : ''}` };
  } finally {
    fs.rmSync(xdg, { recursive: true, force: true });
  }
}

/** Installs a VSIX into `extensionsDir` (code-server's CLI; takes under a second). */
function installExtension({ vsix, extensionsDir, host }) {
  fs.mkdirSync(extensionsDir, { recursive: true });
  const r = codeServerCli(['--extensions-dir', extensionsDir, '--force', '--install-extension', path.resolve(vsix)], { host });
  if (r.status !== 0 || !/successfully installed/i.test(r.output)) {
    throw new Error(`installing ${vsix} failed (exit ${r.status}):\n${r.output}`);
  }
  return r.output;
}

/**
 * @param {object} [opts]
 * @param {string} [opts.workspace]
 * @param {string} [opts.extensionsDir]
 * @param {string} [opts.userDataDir]
 * @param {Record<string, unknown>} [opts.settings]
 * @param {Record<string, string>} [opts.env]
 * @param {number} [opts.port]
 * @param {(line: string) => void} [opts.onOutput]
 * @param {number} [opts.startTimeoutMs]
 * @param {boolean} [opts.workspaceTrust]
 * @param {string | import('./paths').HostSpec} [opts.host]
 */
async function startCodeServer(opts = {}) {
  opts = { ...opts, host: resolveSpec(opts.host) };
  assertInstalled(opts.host);
  // freePort() closes its probe before code-server binds, so another process can take the port in
  // between; retry a picked port, but not one the caller asked for.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(opts, opts.port || (await freePort()));
    } catch (e) {
      if (opts.port || attempt >= 3 || !/EADDRINUSE/.test(e.message)) throw e;
    }
  }
}

async function startOnce(opts, port) {
  const spec = opts.host;
  // One temp root for everything we create, removed by stop(). Caller-given dirs are kept.
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-code-server-'));
  const workspace = path.resolve(opts.workspace || path.join(tmp, 'workspace'));
  const extensionsDir = path.resolve(opts.extensionsDir || path.join(tmp, 'extensions'));
  const userDataDir = path.resolve(opts.userDataDir || path.join(tmp, 'user-data'));
  for (const d of [workspace, extensionsDir, userDataDir]) fs.mkdirSync(d, { recursive: true });
  writeSettings(userDataDir, opts.settings || {}, spec);

  const url = `http://${HOST}:${port}`;
  const args = [
    codeServerEntry(spec),
    '--auth', 'none',
    '--bind-addr', `${HOST}:${port}`,
    '--disable-telemetry',
    '--disable-update-check',
    ...(opts.workspaceTrust ? [] : ['--disable-workspace-trust']),
    '--disable-getting-started-override',
    '--ignore-last-opened',
    '--extensions-dir', extensionsDir,
    '--user-data-dir', userDataDir,
    workspace,
  ];
  // XDG dirs: otherwise code-server writes ~/.config/code-server/config.yaml and logs to ~/.local.
  const env = {
    ...baseEnv(),
    XDG_CONFIG_HOME: path.join(tmp, 'xdg-config'),
    XDG_DATA_HOME: path.join(tmp, 'xdg-data'),
    // No marketplace: code-server defaults to open-vsx.org, unreachable offline, and the workbench
    // logs an ENOTFOUND stack for every gallery query. An empty gallery config disables those.
    // (A caller or the user's environment can still set EXTENSIONS_GALLERY.)
    EXTENSIONS_GALLERY: process.env.EXTENSIONS_GALLERY || '{}',
    // Which VS Code the suites (and the extension under test) run in: '1.139' / '1.139.1'.
    SVC_HOST: spec.id,
    SVC_HOST_VERSION: spec.id,
    SVC_HOST_VSCODE: spec.vscode,
    ...(opts.env || {}),
  };

  const verbose = process.env.SVC_HOST_VERBOSE === '1';
  const recent = []; // last lines, shown when start-up fails
  const onLine = (line) => {
    recent.push(line);
    if (recent.length > 200) recent.shift();
    if (opts.onOutput) opts.onOutput(line);
    else if (verbose) console.log(`[code-server] ${line}`);
  };

  // detached: the child becomes leader of its own process group (setsid), so stop() can signal
  // code-server together with its extension host, file watcher and pty host in one kill(-pgid).
  const child = spawn(hostNode(spec), args, { env, cwd: workspace, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const pgid = child.pid;
  for (const stream of [child.stdout, child.stderr]) {
    let buf = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk) => {
      buf += chunk;
      let i;
      while ((i = buf.indexOf('\n')) >= 0) {
        onLine(buf.slice(0, i));
        buf = buf.slice(i + 1);
      }
    });
  }
  let exited = null;
  const exitPromise = new Promise((resolve) => child.on('exit', (code, signal) => resolve((exited = { code, signal }))));

  let stopping = null;
  const server = {
    url,
    port,
    host: HOST,
    hostSpec: spec,
    pid: child.pid,
    workspace,
    extensionsDir,
    userDataDir,
    /** Last lines code-server printed. */
    output: () => recent.join('\n'),
    /** vscode-remote URI of a path on this machine, as the workbench's payload expects. */
    remoteUri: (absPath) => `vscode-remote://${HOST}:${port}${path.resolve(absPath).split(path.sep).join('/')}`,
    /**
     * Workbench URL. `payload` is VS Code's list of [key, value] pairs, e.g.
     * [['extensionDevelopmentPath', server.remoteUri(repo)], ['skipWelcome', 'true']].
     */
    workbenchUrl: ({ folder = workspace, payload } = {}) => {
      const q = new URLSearchParams({ folder });
      if (payload) q.set('payload', JSON.stringify(payload));
      return `${url}/?${q}`;
    },
    killGroupNow(signal) {
      try {
        process.kill(-pgid, signal);
      } catch {
        /* already gone */
      }
    },
    removeTempNow() {
      fs.rmSync(tmp, { recursive: true, force: true, maxRetries: 3 });
    },
    /** Stops code-server and every process it started; removes the temp folders we created. */
    stop() {
      if (!stopping) {
        stopping = (async () => {
          server.killGroupNow('SIGTERM');
          // The leader exiting is not enough: a file watcher once outlived it. Wait for the group.
          for (let i = 0; i < 50 && groupAlive(pgid); i++) await sleep(100);
          if (groupAlive(pgid)) {
            server.killGroupNow('SIGKILL');
            for (let i = 0; i < 20 && groupAlive(pgid); i++) await sleep(100);
          }
          live.delete(server);
          server.removeTempNow();
        })();
      }
      return stopping;
    },
  };
  live.add(server);

  // Wait for /healthz (about a second), failing fast if code-server exits.
  const deadline = Date.now() + (opts.startTimeoutMs || 60_000);
  for (;;) {
    if (exited) {
      await server.stop();
      throw new Error(
        `code-server exited during start-up (code ${exited.code}, signal ${exited.signal}). Output:\n${server.output()}`,
      );
    }
    if ((await httpStatus(`${url}/healthz`)) === 200) break;
    if (Date.now() > deadline) {
      await server.stop();
      throw new Error(`code-server did not answer ${url}/healthz in time. Output:\n${server.output()}`);
    }
    await Promise.race([sleep(200), exitPromise]);
  }
  return server;
}

/**
 * Loads the extension under development (and a tests entry) in every workbench page of `context`
 * (a Playwright BrowserContext), the way the host needs it. VS Code 1.100 reads them from the URL
 * payload (server.workbenchUrl({ payload })); a release workbench of 1.139 ignores the payload's
 * extensionDevelopmentPath / extensionTestsPath unless code-server runs with
 * --enable-smoke-test-driver, which also drops every notification toast (the suites check toasts).
 * It also reads `developmentOptions.extensions` / `.extensionTestsPath` (URI components) from the
 * data-settings of <meta id="vscode-workbench-web-configuration">: an init script sets them there
 * before the workbench script reads it. The payload is still passed (1.100 uses it, 1.139 ignores it).
 * @param {import('playwright-core').BrowserContext} context
 * @param {{ hostSpec: import('./paths').HostSpec, host: string, port: number }} server
 * @param {{ extensionDevelopmentPath?: string, extensionTestsPath?: string }} paths  absolute local paths
 */
async function addDevelopmentOptions(context, server, { extensionDevelopmentPath, extensionTestsPath }) {
  if (!server.hostSpec.devOptionsInConfig) return;
  const uri = (p) => ({ scheme: 'vscode-remote', authority: `${server.host}:${server.port}`, path: path.resolve(p).split(path.sep).join('/') });
  const dev = {};
  if (extensionDevelopmentPath) dev.extensions = [uri(extensionDevelopmentPath)];
  if (extensionTestsPath) dev.extensionTestsPath = uri(extensionTestsPath);
  await context.addInitScript((options) => {
    /* global window, document, MutationObserver -- runs in the workbench page */
    // Init scripts run in every frame; only the workbench page (the top frame) has the element.
    if (window !== window.top) return;
    const patch = () => {
      const el = document.getElementById('vscode-workbench-web-configuration');
      const raw = el && el.getAttribute('data-settings');
      if (!raw) return false;
      const config = JSON.parse(raw);
      config.developmentOptions = { ...(config.developmentOptions || {}), ...options };
      el.setAttribute('data-settings', JSON.stringify(config));
      return true;
    };
    // The script runs before the document is parsed: catch the element as the parser inserts it.
    // Mutation records are delivered at the microtask checkpoint the parser performs before it runs
    // the next script, so the workbench script reads the patched attribute.
    const observer = new MutationObserver(() => {
      if (patch()) observer.disconnect();
    });
    observer.observe(document, { childList: true, subtree: true });
  }, dev);
}

module.exports = { startCodeServer, installExtension, codeServerCli, addDevelopmentOptions, DEFAULT_SETTINGS, HOST };

if (require.main === module) {
  const argv = process.argv.slice(2);
  const opt = (name) => {
    const i = argv.indexOf(name);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  (async () => {
    const server = await startCodeServer({
      port: opt('--port') ? Number(opt('--port')) : undefined,
      workspace: opt('--workspace'),
      host: opt('--host-version'),
      onOutput: (l) => console.log(`[code-server] ${l}`),
    });
    console.log(`\ncode-server ${server.hostSpec.codeServer} (VS Code ${server.hostSpec.vscode}) ready: ${server.workbenchUrl()}`);
    if (argv.includes('--dev')) {
      const payload = [['extensionDevelopmentPath', server.remoteUri(ROOT)], ['skipWelcome', 'true']];
      console.log(`with this repo as extensionDevelopmentPath: ${server.workbenchUrl({ payload })}`);
    }
    console.log('Ctrl-C to stop');
    const bye = async () => {
      await server.stop();
      process.exit(0);
    };
    process.on('SIGINT', bye);
    process.on('SIGTERM', bye);
  })().catch((e) => {
    console.error(e.message || e);
    process.exit(1);
  });
}
