#!/usr/bin/env node
// The tests: type check, lint, plain-Node unit and contract tests, then the suites inside a real
// VS Code extension host (code-server + Chromium, installed on first run). `npm test` runs both
// halves as `npm run test:unit && npm run test:host` (so CI, which runs `npm test`, runs those two
// README commands as they are written).
//   --unit   only the plain-Node parts (npm run test:unit)
//   --host   only the in-host parts (npm run test:host)
const { spawnSync } = require('node:child_process');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const args = process.argv.slice(2);
const onlyUnit = args.includes('--unit');
const onlyHost = args.includes('--host');
const started = Date.now();

function step(name, cmd, cmdArgs, env = {}) {
  const t0 = Date.now();
  console.log(`\n=== ${name}`);
  const r = spawnSync(cmd, cmdArgs, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });
  const secs = ((Date.now() - t0) / 1000).toFixed(1);
  if (r.status !== 0) {
    console.error(`=== ${name}: FAILED (exit ${r.status ?? r.signal}) after ${secs} s`);
    process.exit(r.status || 1);
  }
  console.log(`=== ${name}: ok in ${secs} s`);
}

const node = process.execPath;
const bin = (name) => path.join(root, 'node_modules', '.bin', name);

if (!onlyHost) {
  step('typecheck', bin('tsc'), ['-p', '.', '--noEmit']);
  step('typecheck (webviews)', bin('tsc'), ['-p', 'src/webview', '--noEmit']);
  step('lint', node, ['scripts/lint.js']);
  // The files are named here, not in test/.mocharc.json: there they would be added to any files
  // given on the command line, so running one file would run them all.
  step('unit and contract tests (plain Node)', bin('mocha'), ['--config', 'test/.mocharc.json', 'test/unit/**/*.test.ts']);
  step('package (VSIX content check)', node, ['scripts/check-package.js']);
}
if (!onlyUnit) {
  step('host prerequisites (code-server, Chromium)', node, ['scripts/host/setup.js']);
  step('in-host suites (code-server)', node, ['scripts/host/run-tests.js']);
  // Workspace trust on, a hostile .vscode/settings.json: what a cloned repository can do to your key.
  step('in-host suite, Restricted Mode (code-server, workspace trust on)', node, ['scripts/host/run-tests.js', '--restricted', '--no-build']);
  // The UI test installs the VSIX the package step built; the in-host step rebuilt dist/ for
  // development, so package again first.
  step('package (for the UI test)', node, ['scripts/check-package.js']);
  step('UI test (Playwright drives the workbench)', bin('mocha'), ['--config', 'test/.mocharc.ui.json']);
}
const what = onlyUnit ? 'unit tests' : onlyHost ? 'in-host tests' : 'tests';
console.log(`\nall ${what} passed in ${((Date.now() - started) / 1000).toFixed(1)} s`);
