#!/usr/bin/env node
// Runs the same in-host suites (out/test/host/index.js) in DESKTOP VS Code via @vscode/test-electron.
// Needs either internet (test-electron downloads VS Code into .vscode-test/) or a local VS Code:
//
//   VSCODE_EXECUTABLE_PATH=/path/to/code node scripts/host/run-desktop.js [--grep <re>] [--env K=V] [--no-build]
//
//   VSCODE_TEST_VERSION   version to download when no executable is given (default: the host's,
//                         --host-version / SVC_HOST: 1.100.3, the engines floor, or 1.139.1)
//
// On machines without internet (like the dev VMs) use scripts/host/run-tests.js (code-server);
// this script then fails with an explanation instead of a bare ENOTFOUND.
// Linux without a display: run it under `xvfb-run -a`.
'use strict';

const fs = require('fs');
const os = require('os');
const path = require('path');
const { ROOT } = require('./setup');

// The same arguments and build step as the code-server runner: both run the same suite entry.
const { build, parseArgs, seedHostileWorkspace, RESTRICTED_SETTINGS } = require('./run-tests');

/** Network failures as test-electron surfaces them (its own messages wrap the Node error codes). */
function looksOffline(e) {
  const s = `${e && e.code} ${e && e.message} ${e && e.cause && e.cause.code}`;
  return /ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH|getaddrinfo|socket hang up|update\.code\.visualstudio\.com/i.test(s);
}

async function main() {
  const t0 = Date.now();
  const args = parseArgs(process.argv.slice(2));
  const executable = process.env.VSCODE_EXECUTABLE_PATH;
  if (executable && !fs.existsSync(executable)) {
    throw new Error(`VSCODE_EXECUTABLE_PATH=${executable} does not exist`);
  }
  if (process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY) {
    console.warn('[desktop-tests] warning: no DISPLAY; desktop VS Code needs one (try `xvfb-run -a ...`)');
  }

  if (args.build) build();
  if (!fs.existsSync(args.entry)) throw new Error(`${args.entry} missing`);

  const { runTests } = require('@vscode/test-electron');
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-desktop-'));
  const workspace = path.join(tmp, 'workspace');
  fs.mkdirSync(workspace);
  // Same quiet, offline-friendly user settings as the code-server runs.
  const { DEFAULT_SETTINGS } = require('./run-code-server');
  fs.mkdirSync(path.join(tmp, 'user-data', 'User'), { recursive: true });
  // --restricted: workspace trust on and a hostile .vscode/settings.json, as with code-server.
  const restrictedEnv = args.restricted ? await seedHostileWorkspace(workspace) : {};
  fs.writeFileSync(
    path.join(tmp, 'user-data', 'User', 'settings.json'),
    JSON.stringify({ ...DEFAULT_SETTINGS, ...args.host.settings, ...(args.restricted ? RESTRICTED_SETTINGS : {}), ...args.settings }, null, 2),
  );
  const launchArgs = [
    workspace,
    '--disable-extensions', // only the extension under development
    ...(args.restricted ? [] : ['--disable-workspace-trust']),
    '--skip-welcome',
    '--skip-release-notes',
    `--user-data-dir=${path.join(tmp, 'user-data')}`,
    `--extensions-dir=${path.join(tmp, 'extensions')}`,
  ];
  // Electron refuses to run as root with the sandbox on (containers, CI).
  if (process.getuid && process.getuid() === 0) launchArgs.push('--no-sandbox');

  try {
    const code = await runTests({
      // --host-version / SVC_HOST pick the desktop VS Code to download too (1.100.3 or 1.139.1).
      ...(executable ? { vscodeExecutablePath: executable } : { version: process.env.VSCODE_TEST_VERSION || args.host.vscode }),
      extensionDevelopmentPath: ROOT,
      extensionTestsPath: args.entry,
      launchArgs,
      extensionTestsEnv: {
        SVC_HOST_TEST: '1',
        SVC_HOST_KIND: 'desktop',
        SVC_HOST_WORKSPACE: workspace,
        SVC_HOST_TRUST: 'disabled',
        SVC_HOST_VERSION: args.host.id,
        SVC_HOST_VSCODE: args.host.vscode,
        ...restrictedEnv,
        ...(args.grep ? { SVC_HOST_GREP: args.grep } : {}),
        ...args.env,
      },
    });
    console.log(`[desktop-tests] exit ${code} in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    return code;
  } catch (e) {
    // runTests rejects with TestRunFailedError when VS Code ran and the suite failed.
    if (e && e.name === 'TestRunFailedError') {
      console.error(`[desktop-tests] suite failed: ${e.message}`);
      return typeof e.code === 'number' && e.code !== 0 ? e.code : 1;
    }
    if (!executable && looksOffline(e)) {
      throw new Error(
        `could not download VS Code (${e.message}).\n` +
          'This machine has no route to update.code.visualstudio.com. Either point VSCODE_EXECUTABLE_PATH at a\n' +
          'local VS Code binary, or run the same suites offline in code-server: node scripts/host/run-tests.js',
      );
    }
    throw e;
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true, maxRetries: 3 });
  }
}

if (require.main === module) {
  main().then(
    (code) => process.exit(code),
    (e) => {
      console.error(`\n[desktop-tests] ERROR: ${e.message || e}`);
      process.exit(2);
    },
  );
}
