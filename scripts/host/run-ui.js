#!/usr/bin/env node
// Opens the real workbench (code-server + headless Chromium) with the extension and saves
// screenshots; the Playwright helpers live in test/host/ui/workbench.js.
//
//   node scripts/host/run-ui.js [--dev] [--activity <title>] [--command <title>] [--out <dir>] [--host-version 1.139]
//
//   default       package a VSIX (vsce package --no-dependencies) and install it, like a user
//   --dev         load the repo as extensionDevelopmentPath instead (dist/ as last built)
//   --activity    click this activity-bar container before the screenshot
//   --command     run this command-palette entry before the screenshot
//   --out         folder for the PNGs (default test-results/ui)
//   --host-version  VS Code 1.100 or 1.139 (default SVC_HOST, else 1.100)
//
// Writes <out>/workbench.png (workbench after load, plus --activity/--command if given) and, for a
// VSIX, <out>/extensions.png (Enabled Extensions view: shows that the extension is installed).
// Exits non-zero if anything fails (no silent skip).
'use strict';

const path = require('path');
const { spawnSync } = require('child_process');
const { ROOT } = require('./setup');
const { openWorkbench, EXTENSION_ID } = require('../../test/host/ui/workbench');

function parseArgs(argv) {
  const out = { dev: false, activity: undefined, command: undefined, out: 'test-results/ui' };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--dev') out.dev = true;
    else if (a === '--activity') out.activity = argv[++i];
    else if (a === '--command') out.command = argv[++i];
    else if (a === '--out') out.out = argv[++i];
    else if (a === '--host-version') process.env.SVC_HOST = argv[++i];
    else throw new Error(`unknown argument: ${a}`);
  }
  return out;
}

async function main() {
  const t0 = Date.now();
  const args = parseArgs(process.argv.slice(2));
  if (args.dev) {
    // Dev mode loads dist/ from the repo: build it first (VSIX mode builds via vscode:prepublish).
    const r = spawnSync(process.execPath, ['esbuild.js'], { cwd: ROOT, stdio: 'inherit' });
    if (r.status !== 0) throw new Error('node esbuild.js failed');
  }
  const wb = await openWorkbench({ extension: args.dev ? 'dev' : 'vsix' });
  try {
    console.log(`[ui] workbench ready at ${wb.server.url} after ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    await wb.clickActivity(args.activity || 'Explorer');
    if (args.command) await wb.runCommand(args.command);
    await wb.waitForActivation();
    // Park the mouse over the empty editor area: a hover tooltip on the clicked item would show.
    const vp = wb.page.viewportSize();
    if (vp) await wb.page.mouse.move(vp.width - 20, vp.height / 2);
    await wb.page.waitForTimeout(500); // let animations settle
    console.log(`[ui] saved ${await wb.screenshot(path.join(args.out, 'workbench.png'))}`);

    if (args.dev) {
      // Development extensions are not listed in the Extensions view; the window title says it.
      const title = await wb.page.title();
      if (!title.includes('[Extension Development Host]')) throw new Error(`not a development host: "${title}"`);
      console.log(`[ui] window title: ${title}`);
    } else {
      // Prove the VSIX is installed, through the UI: the Enabled Extensions list shows it.
      await wb.runCommand('Extensions: Show Enabled Extensions');
      const entry = wb.page.locator('.extensions-viewlet .monaco-list-row', { hasText: 'svc for VS Code' }).first();
      await entry.waitFor({ state: 'visible', timeout: 20_000 }).catch(() => {
        throw new Error(`${EXTENSION_ID} ("svc for VS Code") not in the Enabled Extensions view`);
      });
      console.log(`[ui] saved ${await wb.screenshot(path.join(args.out, 'extensions.png'))}`);
    }
  } finally {
    await wb.close();
  }
  console.log(`[ui] done in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}

main().catch((e) => {
  console.error(`[ui] ERROR: ${e.message || e}`);
  process.exit(1);
});
