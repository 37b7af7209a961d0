#!/usr/bin/env node
// Runs the in-host mocha suites (test/host/index.ts) inside a REAL VS Code extension host, offline:
// code-server (VS Code 1.100.3 on Node 20, or 1.139.1 on Node 24; Node extension host) + Debian
// Chromium driven by playwright-core.
//
//   node scripts/host/run-tests.js [--host-version 1.100|1.139] [--grep <regexp>] [--env KEY=VALUE ...]
//                                  [--setting KEY=JSON ...] [--no-build] [--restricted]
//
//   --host-version  which VS Code (default: SVC_HOST, else 1.100); also `SVC_HOST=1.139`. One host
//                 per run: `npm test` runs this once per host (scripts/test.js).
//   --setting K=V user setting for this run (repeatable; V is JSON, or a plain string), over the
//                 defaults and the host's own (1.139: chat.disableAIFeatures=true, so a chat test
//                 passes --setting chat.disableAIFeatures=false). Also SVC_HOST_SETTINGS='{"k": v}'.
//   --grep        forwarded to mocha (as SVC_HOST_GREP, read by test/host/index.ts)
//   --env K=V     extra variable for the extension host (repeatable). The runner's own environment
//                 is inherited too (minus VSCODE_*), so `FOO=1 node scripts/host/run-tests.js` works.
//   --no-build    skip `node esbuild.js --tests` (the caller just built)
//   --restricted  Restricted Mode: workspace trust on, and the workspace folder (never trusted) holds
//                 a .vscode/settings.json that points both service URLs at recording servers. Only
//                 the suites written for it run (test/host/index.ts reads SVC_HOST_TRUST).
//
// Environment:
//   SVC_HOST_RUN_TIMEOUT_SEC   overall limit for the suite (default 600)
//   SVC_HOST_VERBOSE=1         also print code-server's output and the browser console
//   SVC_HOST                   the host (as --host-version)
//   SVC_HOST_SETTINGS          JSON object of user settings (as --setting)
//
// The suites see SVC_HOST_VERSION ('1.100' | '1.139') and SVC_HOST_VSCODE ('1.139.1') besides
// SVC_HOST_KIND, SVC_HOST_WORKSPACE and SVC_HOST_TRUST.
//   CHROMIUM_PATH              browser binary (default /usr/bin/chromium)
//
// How it works (the mechanism VS Code's own web integration tests use): the workbench URL carries a
// `payload` with extensionDevelopmentPath (this repo) and extensionTestsPath (the bundled tests
// entry), both as vscode-remote:// URIs on the code-server. (1.139 ignores the payload's two; an
// init script puts them in the workbench configuration's developmentOptions: addDevelopmentOptions
// in run-code-server.js.) The extension host loads the entry and
// awaits run(); the workbench reports its console through window.codeAutomationLog and the result
// through window.codeAutomationExit(code), which we expose on the page before loading it.
//
// Exit code: the suite's (0 pass, 1 fail). Anything that prevents a verdict (build error, no
// Chromium, host did not start, timeout, browser crash) exits 2 with a loud message, never 0.
'use strict';

const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');
const { ensureHost, SetupError, ROOT } = require('./setup');
const { startCodeServer, addDevelopmentOptions } = require('./run-code-server');
const { hostSpec } = require('./paths');

const TESTS_ENTRY = path.join(ROOT, 'out', 'test', 'host', 'index.js');
/** Chromium flags from the offline recipe: no sandbox (root/containers), no GPU, no phoning home. */
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * Workbench log lines that are expected offline and say nothing about the suite. Shown only with
 * SVC_HOST_VERBOSE=1; anything not listed here is printed, so real problems stay visible.
 */
const NOISE = [
  /^Resolving connection token/,
  /^Resolved connection token/,
  /^Creating a socket \(renderer-/,
  /^\[Service Worker\] registered/,
  /^Ignoring fetching additional builtin extensions from gallery/,
  /^Updating additional builtin extensions cache/,
  /^ChatSessionStore: Migrating 0 chat sessions/,
  /ENOTFOUND open-vsx\.org/,
  /vsda\.js/,
  // 1.139: the workbench also offers developmentOptions.extensions to its browser (web worker)
  // extension host, which refuses ours (it has `main`, no `browser`); the Node host loads it.
  /^Error while fetching the extension under development .*is not a web extension/,
];

class HarnessError extends Error {}

/**
 * rm -rf that tolerates a browser still flushing its profile for a moment after close()
 * (seen as ENOTEMPTY when interrupted with Ctrl-C). Never throws: a leftover temp dir is not a
 * test failure.
 */
function removeDir(dir) {
  try {
    fs.rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
  } catch (e) {
    console.error(`[host-tests] could not remove ${dir}: ${e.message}`);
  }
}

function parseArgs(argv) {
  const out = { grep: undefined, env: {}, build: true, entry: TESTS_ENTRY, restricted: false, host: undefined, settings: {} };
  if (process.env.SVC_HOST_SETTINGS) {
    try {
      out.settings = JSON.parse(process.env.SVC_HOST_SETTINGS);
    } catch (e) {
      throw new HarnessError(`SVC_HOST_SETTINGS is not JSON: ${e.message}`);
    }
  }
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--grep' || a === '-g') out.grep = argv[++i];
    else if (a.startsWith('--grep=')) out.grep = a.slice('--grep='.length);
    else if (a === '--env') {
      const kv = argv[++i] || '';
      const eq = kv.indexOf('=');
      if (eq <= 0) throw new HarnessError(`--env expects KEY=VALUE, got "${kv}"`);
      out.env[kv.slice(0, eq)] = kv.slice(eq + 1);
    } else if (a === '--host-version' || a === '--host') out.host = argv[++i];
    else if (a.startsWith('--host-version=')) out.host = a.slice('--host-version='.length);
    else if (a === '--setting') {
      const kv = argv[++i] || '';
      const eq = kv.indexOf('=');
      if (eq <= 0) throw new HarnessError(`--setting expects KEY=VALUE, got "${kv}"`);
      const raw = kv.slice(eq + 1);
      let value;
      try {
        value = JSON.parse(raw);
      } catch {
        value = raw; // a plain string
      }
      out.settings[kv.slice(0, eq)] = value;
    } else if (a === '--no-build') out.build = false;
    else if (a === '--restricted') out.restricted = true;
    // Another test-electron-shaped entry (e.g. out/test/host/bench.js for `npm run bench`).
    else if (a === '--entry') out.entry = path.resolve(argv[++i] || '');
    else throw new HarnessError(`unknown argument: ${a}`);
  }
  if (out.grep === undefined && process.env.SVC_HOST_GREP) out.grep = process.env.SVC_HOST_GREP;
  try {
    out.host = hostSpec(out.host || process.env.SVC_HOST || undefined);
  } catch (e) {
    throw new HarnessError(e.message);
  }
  return out;
}

function build() {
  const t0 = Date.now();
  const r = spawnSync(process.execPath, ['esbuild.js', '--tests'], { cwd: ROOT, stdio: 'inherit' });
  if (r.status !== 0) throw new HarnessError(`'node esbuild.js --tests' failed (exit ${r.status ?? r.signal})`);
  if (!fs.existsSync(TESTS_ENTRY)) throw new HarnessError(`build did not produce ${TESTS_ENTRY}`);
  console.log(`[host-tests] built in ${Date.now() - t0} ms`);
}

/**
 * Opens the workbench with the test payload and resolves to the suite's exit code.
 * @returns {Promise<number>}
 */
async function runInBrowser({ server, chromiumPath, workspace, timeoutMs, verbose, resources, entry }) {
  // Lazily required so a missing devDependency is reported as such, not as a stack trace at load.
  const { chromium } = require('playwright-core');
  // Removed by main()'s cleanup, after the browser has fully closed.
  const profile = (resources.profile = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-chromium-')));
  const browserLog = []; // last browser console lines, shown if we fail without a verdict
  let context;
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath: chromiumPath,
      headless: true,
      args: CHROMIUM_ARGS,
      // Playwright's own handlers kill the browser and process.exit() at once, before we have
      // stopped code-server and removed temp folders; main() handles the signals instead.
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
    });
    resources.context = context;
    const page = context.pages()[0] || (await context.newPage());

    let settle;
    const verdict = new Promise((resolve, reject) => (settle = { resolve, reject }));
    verdict.catch(() => {}); // rejected by 'close' during our own cleanup too: not an unhandled rejection

    // Must be exposed before page.goto: the workbench checks for them while it runs.
    await page.exposeFunction('codeAutomationLog', (level, message) => {
      const text = Array.isArray(message) ? message.join(' ') : String(message);
      if (!verbose && NOISE.some((re) => re.test(text))) return;
      for (const line of text.split('\n')) {
        (level === 'error' ? process.stderr : process.stdout).write(`${line}\n`);
      }
    });
    await page.exposeFunction('codeAutomationExit', (code) => {
      const n = Number(code);
      settle.resolve(Number.isInteger(n) ? n : 1); // anything odd counts as a failure, never as 0
    });

    page.on('console', (msg) => {
      const line = `[browser ${msg.type()}] ${msg.text()}`;
      browserLog.push(line);
      if (browserLog.length > 100) browserLog.shift();
      if (verbose) console.log(line);
    });
    page.on('crash', () => settle.reject(new HarnessError('the workbench page crashed')));
    context.on('close', () => settle.reject(new HarnessError('the browser closed before the suite finished')));

    const payload = [
      ['extensionDevelopmentPath', server.remoteUri(ROOT)],
      ['extensionTestsPath', server.remoteUri(entry)],
      ['skipWelcome', 'true'],
    ];
    await addDevelopmentOptions(context, server, { extensionDevelopmentPath: ROOT, extensionTestsPath: entry });
    const url = server.workbenchUrl({ folder: workspace, payload });
    if (verbose) console.log(`[host-tests] opening ${url}`);
    const response = await page.goto(url, { waitUntil: 'domcontentloaded', timeout: 60_000 });
    if (!response || !response.ok()) {
      throw new HarnessError(`workbench answered HTTP ${response ? response.status() : 'nothing'} for ${url}`);
    }

    let timer;
    const timeout = new Promise((_, reject) => {
      timer = setTimeout(
        () => reject(new HarnessError(`no result from the extension host within ${timeoutMs / 1000} s`)),
        timeoutMs,
      );
    });
    try {
      return await Promise.race([verdict, timeout]);
    } finally {
      clearTimeout(timer);
    }
  } catch (e) {
    if (browserLog.length && !verbose && !resources.interrupted) {
      console.error('[host-tests] last browser console lines:\n' + browserLog.slice(-40).join('\n'));
    }
    throw e;
  } finally {
    if (context) await context.close().catch(() => {});
  }
}

/** A free loopback port (the suite binds it inside the extension host). */
function freePort() {
  const net = require('net');
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/** User settings of a Restricted Mode run: trust on, no start-up dialog, the folder never trusted. */
const RESTRICTED_SETTINGS = {
  'security.workspace.trust.enabled': true,
  'security.workspace.trust.startupPrompt': 'never',
  'security.workspace.trust.emptyWindow': false,
};

/**
 * A repository as a stranger could ship it: its .vscode/settings.json sends both service URLs to
 * servers the suite starts on these ports and records. Written before the workbench opens.
 */
async function seedHostileWorkspace(workspace) {
  const ports = [await freePort(), await freePort()];
  const settings = {
    'svc.baseUrl': `http://127.0.0.1:${ports[0]}`,
    'svc.trainingBaseUrl': `http://127.0.0.1:${ports[1]}`,
    'svc.project': 'acme/chatbot',
    'svc.models': ['m-restricted'],
  };
  fs.mkdirSync(path.join(workspace, '.vscode'));
  fs.writeFileSync(path.join(workspace, '.vscode', 'settings.json'), JSON.stringify(settings, null, 2) + '\n');
  return { SVC_HOST_TRUST: 'restricted', SVC_RECORDER_PORTS: ports.join(',') };
}

async function main() {
  const t0 = Date.now();
  const args = parseArgs(process.argv.slice(2));
  const verbose = process.env.SVC_HOST_VERBOSE === '1';
  const timeoutMs = (Number(process.env.SVC_HOST_RUN_TIMEOUT_SEC) || 600) * 1000;

  const spec = args.host;
  // Everything this process starts (code-server, the UI helpers) and the suites agree on the host.
  process.env.SVC_HOST = spec.id;
  console.log(`[host-tests] VS Code ${spec.vscode} (code-server ${spec.codeServer}, Node ${spec.nodeVersion || process.versions.node})`);
  const { chromiumPath } = await ensureHost({ host: spec });
  if (args.build) build();
  else if (!fs.existsSync(TESTS_ENTRY)) throw new HarnessError(`${TESTS_ENTRY} missing; run without --no-build`);
  if (!fs.existsSync(args.entry)) throw new HarnessError(`${args.entry} missing`);

  const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-host-workspace-'));
  const env = {
    SVC_HOST_TEST: '1', // suites can tell they run under a harness
    SVC_HOST_KIND: 'code-server',
    SVC_HOST_WORKSPACE: workspace,
    SVC_HOST_TRUST: 'disabled',
    ...(args.restricted ? await seedHostileWorkspace(workspace) : {}),
    ...(args.grep ? { SVC_HOST_GREP: args.grep } : {}),
    ...args.env,
  };
  // Restricted Mode: trust on, no start-up dialog (nobody answers it, and an unanswered dialog
  // leaves the folder untrusted anyway), the folder never trusted.
  const trust = args.restricted ? { workspaceTrust: true } : {};
  const settings = { ...(args.restricted ? RESTRICTED_SETTINGS : {}), ...args.settings };

  let server;
  let interrupted = false;
  // The browser (once launched) and its profile folder, so a signal handler can clean them up too.
  const resources = { context: undefined, profile: undefined, interrupted: false };
  // Runs once, whether reached from the finally below or from a signal handler (or both at once).
  let cleaning;
  const cleanup = () =>
    (cleaning ??= (async () => {
      if (resources.context) await resources.context.close().catch(() => {});
      if (resources.profile) removeDir(resources.profile);
      if (server) await server.stop();
      removeDir(workspace);
    })());
  // Ctrl-C / CI cancellation: still stop the code-server process group.
  for (const sig of ['SIGINT', 'SIGTERM']) {
    process.once(sig, () => {
      console.error(`[host-tests] ${sig}: stopping`);
      interrupted = resources.interrupted = true;
      cleanup().finally(() => process.exit(130));
    });
  }

  let code;
  try {
    const tStart = Date.now();
    server = await startCodeServer({ workspace, env, settings, host: spec, ...trust });
    console.log(`[host-tests] code-server ${server.url} ready in ${Date.now() - tStart} ms`);
    code = await runInBrowser({ server, chromiumPath, workspace, timeoutMs, verbose, resources, entry: args.entry });
  } catch (e) {
    if (interrupted) return new Promise(() => {}); // the signal handler exits once cleaned up
    if (server && !verbose) console.error('[host-tests] last code-server output:\n' + server.output().split('\n').slice(-40).join('\n'));
    throw e;
  } finally {
    await cleanup();
  }
  if (interrupted) return new Promise(() => {}); // the signal handler exits with 130
  const secs = ((Date.now() - t0) / 1000).toFixed(1);
  console.log(`[host-tests] ${code === 0 ? 'PASSED' : 'FAILED'} (exit ${code}) on VS Code ${spec.vscode} in ${secs} s wall time`);
  return code;
}

if (require.main === module) {
  main().then(
    (code) => process.exit(code),
    (e) => {
      console.error(`\n[host-tests] HARNESS ERROR: ${e instanceof HarnessError || e instanceof SetupError ? e.message : e.stack || e}`);
      console.error('[host-tests] the suite did not produce a result; failing.');
      process.exit(2);
    },
  );
}

module.exports = { CHROMIUM_ARGS, TESTS_ENTRY, RESTRICTED_SETTINGS, build, parseArgs, seedHostileWorkspace };
