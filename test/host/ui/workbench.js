// Playwright helpers for UI checks against a real VS Code workbench (code-server + Debian Chromium).
// Not a mocha-in-host suite: this drives the browser from outside, like a user would.
//
//   const { openWorkbench } = require('./test/host/ui/workbench');
//   const wb = await openWorkbench({ extension: 'vsix' });   // or 'dev' (extensionDevelopmentPath)
//   await wb.clickActivity('Explorer');                       // activity-bar container by title
//   await wb.runCommand('Extensions: Show Enabled Extensions');  // command palette, by title
//   await wb.screenshot('test-results/ui/workbench.png');
//   await wb.close();
//
// Plain CommonJS so scripts/host/run-ui.js (and a later TS UI test via workbench.d.ts) can use it
// without a build step. Selectors work on VS Code 1.100's and 1.139's workbench DOM. The host is
// SVC_HOST ('1.100' | '1.139', default 1.100; `opts.host` overrides); `wb.hostSpec` says which.
'use strict';

const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');
const { ensureHost, ROOT, HOST_DIR } = require('../../../scripts/host/setup');
const { startCodeServer, installExtension, addDevelopmentOptions } = require('../../../scripts/host/run-code-server');
const { hostSpec } = require('../../../scripts/host/paths');
const { CHROMIUM_ARGS } = require('../../../scripts/host/run-tests');

const EXTENSION_ID = 'svc.svc-vscode';

/**
 * Builds the VSIX the way users get it: `vsce package` runs `vscode:prepublish` (production
 * esbuild) and applies .vscodeignore. --no-dependencies: everything is bundled into dist/.
 * @returns {string} path of the .vsix
 */
function packageVsix(out = path.join(HOST_DIR, 'ui', 'svc-vscode.vsix')) {
  fs.mkdirSync(path.dirname(out), { recursive: true });
  const vsce = path.join(ROOT, 'node_modules', '@vscode', 'vsce', 'vsce');
  const r = spawnSync(process.execPath, [vsce, 'package', '--no-dependencies', '--out', out], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  if (r.status !== 0 || !fs.existsSync(out)) {
    throw new Error(`vsce package failed (exit ${r.status}):\n${r.stdout}${r.stderr}`);
  }
  return out;
}

/**
 * Starts code-server with the extension, opens the workbench in headless Chromium and waits until
 * it has rendered.
 * @param {object} [opts]
 * @param {'vsix'|'dev'} [opts.extension]  'vsix': package + install (what users get, default);
 *                                         'dev': load the repo as extensionDevelopmentPath (dist/ as built)
 * @param {string} [opts.vsix]             use this VSIX instead of packaging one
 * @param {string} [opts.workspace]        folder to open (default: empty temp folder)
 * @param {Record<string, unknown>} [opts.settings]  user settings (see run-code-server.js)
 * @param {Record<string, string>} [opts.env]        environment for code-server / extension host
 * @param {{ width: number, height: number }} [opts.viewport]
 * @param {string} [opts.host]                       '1.100' | '1.139' (default SVC_HOST, else 1.100)
 * @param {string[]} [opts.extraVsix]                 more VSIX files to install (test helper extensions)
 */
async function openWorkbench(opts = {}) {
  const mode = opts.extension || 'vsix';
  const spec = hostSpec(opts.host);
  const { chromiumPath } = await ensureHost({ host: spec });
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-ui-'));
  let server;
  let context;
  try {
    let payload = [['skipWelcome', 'true']];
    const extensionsDir = path.join(tmp, 'extensions');
    if (mode === 'vsix') {
      installExtension({ vsix: opts.vsix || packageVsix(), extensionsDir, host: spec });
    } else if (mode !== 'dev') {
      throw new Error(`extension must be 'vsix' or 'dev', got ${mode}`);
    }
    // Helper extensions a test needs beside ours (e.g. one that calls vscode.lm.invokeTool).
    for (const vsix of opts.extraVsix || []) installExtension({ vsix, extensionsDir, host: spec });
    server = await startCodeServer({
      workspace: opts.workspace,
      extensionsDir,
      settings: opts.settings,
      env: opts.env,
      host: spec,
    });
    if (mode === 'dev') payload.push(['extensionDevelopmentPath', server.remoteUri(ROOT)]);

    const { chromium } = require('playwright-core');
    context = await chromium.launchPersistentContext(path.join(tmp, 'chromium-profile'), {
      executablePath: chromiumPath,
      headless: true,
      args: CHROMIUM_ARGS,
      handleSIGINT: false, // so close() (via the caller's handler / finally) stops code-server too
      viewport: opts.viewport || { width: 1400, height: 900 },
    });
    if (mode === 'dev') await addDevelopmentOptions(context, server, { extensionDevelopmentPath: ROOT });
    const page = context.pages()[0] || (await context.newPage());
    await page.goto(server.workbenchUrl({ folder: opts.workspace || server.workspace, payload }), {
      waitUntil: 'domcontentloaded',
    });
    const wb = makeWorkbench({ page, context, server, tmp });
    await wb.waitForReady();
    return wb;
  } catch (e) {
    if (context) await context.close().catch(() => {});
    if (server) await server.stop();
    fs.rmSync(tmp, { recursive: true, force: true });
    throw e;
  }
}

function makeWorkbench({ page, context, server, tmp }) {
  const wb = {
    page,
    context,
    server,
    /** The host this workbench runs: { id: '1.100' | '1.139', vscode, codeServer, ... }. */
    hostSpec: server.hostSpec,

    /** Workbench rendered: activity bar and status bar present, extension host connected. */
    async waitForReady(timeout = 60_000) {
      await page.locator('.monaco-workbench .part.activitybar').waitFor({ state: 'visible', timeout });
      await page.locator('.monaco-workbench .part.statusbar').waitFor({ state: 'visible', timeout });
      // The remote indicator reads "code-server" once the remote connection is up.
      await page.locator('#status\\.host').waitFor({ state: 'visible', timeout }).catch(() => {});
    },

    /** Waits until the status bar no longer shows "Activating Extensions..." (after a click that activates ours). */
    async waitForActivation(timeout = 30_000) {
      await page.waitForTimeout(200); // the progress item shows up shortly after the triggering action
      await page
        .locator('.part.statusbar .statusbar-item', { hasText: 'Activating Extensions' })
        .first()
        .waitFor({ state: 'hidden', timeout });
    },

    /**
     * Opens the command palette (F1) and runs the command whose label is exactly `title`
     * (as shown in the palette, e.g. "View: Toggle Minimap" / "Extensions: Show Enabled Extensions").
     */
    async runCommand(title, timeout = 15_000) {
      // The palette lists the commands registered when it opens; a workbench contribution that
      // registers its commands late (the Extensions view's, while the workbench restores) shows
      // up only on a later open. So each try waits a few seconds, then closes and opens again.
      const input = page.locator('.quick-input-widget .quick-input-box input');
      // Exact label match, so "Foo" does not run "Foo: Bar" that happens to sort first.
      const row = page
        .locator('.quick-input-widget .quick-input-list .monaco-list-row')
        .filter({ has: page.locator('.label-name', { hasText: new RegExp(`^${escapeRe(title)}$`) }) })
        .first();
      const deadline = Date.now() + timeout;
      for (;;) {
        await page.keyboard.press('F1');
        await input.waitFor({ state: 'visible', timeout });
        await input.fill(`>${title}`);
        const found = await row.waitFor({ state: 'visible', timeout: Math.min(5_000, Math.max(1, deadline - Date.now())) }).then(() => true, () => false);
        if (found) break;
        const seen = await page.locator('.quick-input-widget .monaco-list-row .label-name').allInnerTexts();
        await page.keyboard.press('Escape');
        await page.locator('.quick-input-widget').waitFor({ state: 'hidden', timeout: 5_000 }).catch(() => {});
        if (Date.now() >= deadline) throw new Error(`command "${title}" not in the palette; it showed: ${JSON.stringify(seen.slice(0, 10))}`);
      }
      await row.click();
      await page.locator('.quick-input-widget').waitFor({ state: 'hidden', timeout }).catch(() => {});
    },

    /**
     * Shows the activity-bar view container titled `title` ("Explorer", or ours once contributed).
     * Clicking an already-active container would hide the side bar, so that case is left alone.
     */
    async clickActivity(title, timeout = 30_000) {
      const items = page.locator('.part.activitybar .action-item [role="tab"], .part.activitybar .action-item a.action-label');
      // Extension containers appear only once the extension host has registered them, after the
      // workbench itself has rendered: poll for the title instead of failing on the first look.
      const deadline = Date.now() + timeout;
      let labels = [];
      let i = -1;
      for (;;) {
        labels = await items.evaluateAll((els) => els.map((e) => e.getAttribute('aria-label') || ''));
        // aria-label is "Title" or "Title (Ctrl+Shift+E)" when there is a keybinding.
        i = labels.findIndex((l) => l === title || l.startsWith(`${title} (`));
        if (i >= 0 || Date.now() > deadline) break;
        await page.waitForTimeout(250);
      }
      if (i < 0) throw new Error(`no activity-bar item "${title}"; present: ${JSON.stringify(labels)}`);
      const item = items.nth(i);
      const active = await item.evaluate(
        (e) => e.closest('.action-item').classList.contains('checked') || e.getAttribute('aria-selected') === 'true',
      );
      const sidebarVisible = await page.locator('.part.sidebar').isVisible();
      if (!(active && sidebarVisible)) await item.click();
      await page.locator('.part.sidebar').waitFor({ state: 'visible', timeout });
    },

    /** Saves a PNG of the whole workbench to `file` (folders created). */
    async screenshot(file) {
      const abs = path.resolve(ROOT, file);
      fs.mkdirSync(path.dirname(abs), { recursive: true });
      await page.screenshot({ path: abs });
      return abs;
    },

    /** Closes the browser and stops code-server (its whole process group). */
    async close() {
      await context.close().catch(() => {});
      await server.stop();
      fs.rmSync(tmp, { recursive: true, force: true, maxRetries: 3 });
    },
  };
  return wb;
}

function escapeRe(s) {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

module.exports = { openWorkbench, packageVsix, EXTENSION_ID };
