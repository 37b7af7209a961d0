#!/usr/bin/env node
// `npm run demo`: the extension against a local reference service with demo data, in a real
// VS Code (code-server) in your browser.
//   1. installs code-server and its Debian prerequisites on first use (scripts/host/setup.js);
//   2. packages the extension (production VSIX) and installs it into a fresh extensions folder;
//   3. starts the reference service with test/fixtures/demo.json, and its stand-in web UI pages
//      (/ui/: what svc.webUiUrl opens);
//   4. writes the demo workspace: sample files to try (scripts/demo-workspace.js);
//   5. starts code-server with settings pointing at the service, and no key: you sign in with the demo
//      key as a user does (it goes to SecretStorage, so Sign Out signs you out);
//   6. prints the URL and the sample files, and runs until Ctrl-C, then stops everything and says so.
//
//   node scripts/demo.js [--port 8080] [--service-port 8787] [--check]
//   --check   start everything, verify the workbench and the service answer, then stop (for CI).
'use strict';
const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { httpStatus } = require('./http-status');

const { writeDemoWorkspace, demoSettings } = require('./demo-workspace');

const root = path.resolve(__dirname, '..');
const argv = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : fallback;
};
const port = Number(opt('port', 8080));
const servicePort = Number(opt('service-port', 8787));
const check = argv.includes('--check');
const DEMO_KEY = 'demo-key';

const get = (url) => httpStatus(url, 2000);

function run(cmd, args) {
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (exit ${r.status})`);
}

async function main() {
  console.log('demo: checking code-server and Chromium prerequisites…');
  run(process.execPath, ['scripts/host/setup.js']);
  const { startCodeServer, installExtension } = require('./host/run-code-server');
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-demo-'));
  // The VSIX goes to the demo's own folder: `npm run package` owns dist-vsix/.
  console.log('demo: packaging the extension…');
  const vsix = path.join(tmp, 'svc-vscode.vsix');
  run(process.execPath, ['scripts/check-package.js', '--out', vsix]);
  const extensionsDir = path.join(tmp, 'extensions');
  installExtension({ vsix, extensionsDir });

  const tsx = path.join(root, 'node_modules', '.bin', 'tsx');
  const service = spawn(tsx, ['test/server/cli.ts', '--port', String(servicePort), '--data', 'test/fixtures/demo.json', '--admin', '--web-ui'], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const serviceUrl = await new Promise((resolve, reject) => {
    let out = '';
    service.stdout.on('data', (d) => {
      out += d;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]);
    });
    service.on('exit', (code) => reject(new Error(`the reference service exited (${code}); is port ${servicePort} free?`)));
  });

  const workspace = path.join(tmp, 'workspace');
  const samples = writeDemoWorkspace(workspace, { fixture: path.join(root, 'test', 'fixtures', 'demo.json'), serviceUrl });
  const server = await startCodeServer({
    port,
    workspace,
    extensionsDir,
    // The service URL, project, models and web UI (the service's /ui/ pages): demo-workspace.js.
    settings: demoSettings(serviceUrl),
    // No key from the environment (one there would outlive Sign Out): the user signs in, and the key
    // goes to SecretStorage like any user's.
    env: { SVC_API_KEY: '', SVC_USERNAME: '', SVC_PASSWORD: '', SVC_ACCESS_TOKEN: '' },
  });

  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    service.kill('SIGTERM');
    await server.stop();
    fs.rmSync(tmp, { recursive: true, force: true });
  };
  const stopAndSay = (why) =>
    stop().then(() => {
      console.log(`\ndemo: ${why}: the reference service and VS Code have stopped, and what you sent to the service is gone (it keeps data in memory).`);
      console.log('demo: start them again with `npm run demo`.');
    });
  process.on('SIGINT', () => stopAndSay('Ctrl-C').then(() => process.exit(0)));
  process.on('SIGTERM', () => stopAndSay('stopped').then(() => process.exit(0)));
  process.on('SIGHUP', () => stopAndSay('the terminal closed').then(() => process.exit(0)));
  service.on('exit', (code, signal) => {
    // Ctrl-C reaches the whole process group: the service may see it before this process does.
    if (stopped || signal === 'SIGINT') return;
    console.error(`\ndemo: the reference service exited on its own (${signal ?? `exit code ${code}`}); VS Code cannot reach it any more.`);
    void stop().then(() => {
      console.error('demo: stopped VS Code too. Start everything again with `npm run demo`.');
      process.exit(1);
    });
  });

  const url = server.workbenchUrl({ folder: workspace });
  const width = Math.max(...samples.map((f) => f.name.length));
  console.log('');
  console.log(`demo: reference service  ${serviceUrl}   (API key: ${DEMO_KEY}; its web UI pages under ${serviceUrl}/ui/)`);
  console.log(`demo: VS Code            ${url}`);
  console.log('demo: open the URL above, then the svc icon in the activity bar.');
  console.log(`demo: sign in with Sign In (Threads view) → Paste an API key → ${DEMO_KEY}; svc: Sign Out (palette) signs you out again.`);
  console.log(`demo: sample files in the workspace (${workspace}):`);
  for (const f of samples) console.log(`  ${f.name.padEnd(width)}  ${f.what}`);
  console.log('demo: both run until you press Ctrl-C here (or close this terminal); the service keeps what you send in memory only.');
  console.log('demo: to start them again later: `npm run demo`.');
  if (check) {
    const [workbench, health, webUi] = await Promise.all([get(url), get(`${serviceUrl}/v1/preview/models/demo-model-7b/checkpoints`), get(`${serviceUrl}/ui/demo-entity/chatbot/threads/`)]);
    await stop();
    if (workbench !== 200 || health !== 401 || webUi !== 200) {
      console.error(`demo --check: workbench answered ${workbench}, service answered ${health}, its web UI ${webUi} (expected 200, 401 without a key, 200)`);
      process.exit(1);
    }
    console.log('demo --check: ok');
    process.exit(0);
  }
}

main().catch((e) => {
  console.error(`demo: ${e.message}`);
  process.exit(1);
});
