#!/usr/bin/env node
// The tests: type check, lint, plain-Node unit and contract tests, then the suites inside a real
// VS Code extension host (code-server + Chromium, installed on first run). `npm test` runs both
// halves as `npm run test:unit && npm run test:host` (so CI, which runs `npm test`, runs those two
// README commands as they are written).
//   --unit   only the plain-Node parts (npm run test:unit)
//   --host   only the in-host parts (npm run test:host)
//   --host-version <1.100|1.139>   one host only (also `SVC_HOST=1.139 npm test`)
//
// Two hosts (issue 29; scripts/host/paths.js): VS Code 1.100.3 (the `engines` floor) on Node 20 and
// VS Code 1.139.1 on Node 24. Each host's line runs everything that depends on it: the plain-Node
// mocha suite on its Node (20 is the Node running this script; 24 is the one setup.js unpacks from
// npm into .vscode-test/node-24), the in-host suites (trusted and Restricted Mode) and the UI test.
// The rest (type check, lint, package check) does not depend on the host and runs once.
const { spawnSync } = require('node:child_process');
const path = require('node:path');
const { selectedHosts, hostNode } = require('./host/paths');

const root = path.resolve(__dirname, '..');
const args = process.argv.slice(2);
const onlyUnit = args.includes('--unit');
const onlyHost = args.includes('--host');
const hostArg = args.includes('--host-version') ? args[args.indexOf('--host-version') + 1] : undefined;
const hosts = selectedHosts(hostArg || process.env.SVC_HOST);
const started = Date.now();
/** [name, seconds] of every step, printed at the end: where the time went. */
const times = [];

function step(name, cmd, cmdArgs, env = {}) {
  const t0 = Date.now();
  console.log(`\n=== ${name}`);
  const r = spawnSync(cmd, cmdArgs, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });
  const secs = ((Date.now() - t0) / 1000).toFixed(1);
  times.push([name, secs]);
  if (r.status !== 0) {
    console.error(`=== ${name}: FAILED (exit ${r.status ?? r.signal}) after ${secs} s`);
    summary();
    process.exit(r.status || 1);
  }
  console.log(`=== ${name}: ok in ${secs} s`);
}

function summary() {
  console.log('\ntimes:');
  for (const [name, secs] of times) console.log(`  ${secs.padStart(7)} s  ${name}`);
}

const node = process.execPath;
const bin = (name) => path.join(root, 'node_modules', '.bin', name);
const label = (h) => `VS Code ${h.vscode}`;
/** The environment of a step that runs on a host's Node: that Node first on PATH, for the children too. */
const onNode = (h) => ({ PATH: [path.dirname(hostNode(h)), process.env.PATH].join(path.delimiter) });

if (!onlyHost) {
  step('typecheck', bin('tsc'), ['-p', '.', '--noEmit']);
  step('typecheck (webviews)', bin('tsc'), ['-p', 'src/webview', '--noEmit']);
  step('lint', node, ['scripts/lint.js']);
  for (const h of hosts) {
    // Node 24 comes from npm (setup.js --node-only: a ~50 MB tarball, seconds); Node 20 is ours.
    if (h.nodeDir) step(`Node ${h.nodeVersion} (npm's node-${process.platform}-${process.arch})`, node, ['scripts/host/setup.js', '--node-only', '--host-version', h.id]);
    const version = spawnSync(hostNode(h), ['--version'], { encoding: 'utf8' }).stdout.trim();
    // The files are named here, not in test/.mocharc.json: there they would be added to any files
    // given on the command line, so running one file would run them all.
    step(`unit and contract tests (plain Node ${version})`, hostNode(h), [path.join(root, 'node_modules', 'mocha', 'bin', 'mocha.js'), '--config', 'test/.mocharc.json', 'test/unit/**/*.test.ts'], onNode(h));
  }
  step('package (VSIX content check)', node, ['scripts/check-package.js']);
}
if (!onlyUnit) {
  for (const h of hosts) {
    step(`host prerequisites (${label(h)}: code-server ${h.codeServer}, Chromium)`, node, ['scripts/host/setup.js', '--host-version', h.id]);
  }
  hosts.forEach((h, i) => {
    // Built once (the first host's run); the others reuse out/ and dist/.
    step(`in-host suites (${label(h)})`, node, ['scripts/host/run-tests.js', '--host-version', h.id, ...(i ? ['--no-build'] : [])]);
    // Workspace trust on, a hostile .vscode/settings.json: what a cloned repository can do to your key.
    step(`in-host suite, Restricted Mode (${label(h)}, workspace trust on)`, node, ['scripts/host/run-tests.js', '--host-version', h.id, '--restricted', '--no-build']);
  });
  // The UI test installs the VSIX the package step built; the in-host step rebuilt dist/ for
  // development, so package again first.
  step('package (for the UI test)', node, ['scripts/check-package.js']);
  for (const h of hosts) {
    step(`UI test (${label(h)}; Playwright drives the workbench)`, bin('mocha'), ['--config', 'test/.mocharc.ui.json'], { SVC_HOST: h.id });
  }
}
summary();
const what = onlyUnit ? 'unit tests' : onlyHost ? 'in-host tests' : 'tests';
console.log(`\nall ${what} passed on ${hosts.map(label).join(' and ')} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
