// Shared pieces of the Playwright UI tests: the packaged VSIX, evidence when a test fails, and the
// few user gestures more than one test needs.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';

import { openWorkbench, type OpenWorkbenchOptions, type Workbench } from '../host/ui/workbench';
export type { Workbench };
type Locator = ReturnType<Workbench['page']['locator']>;

export const root = path.resolve(__dirname, '..', '..');
/** Where screenshots go (the README's come from here). */
export const out = (name: string) => path.join('test-results', 'ui', name);

/** The VSIX the test command packaged; the UI tests install what users get. */
export function packagedVsix(): string {
  const vsix = path.join(root, 'dist-vsix', 'svc-vscode.vsix');
  assert.ok(fs.existsSync(vsix), 'package the VSIX first (scripts/check-package.js)');
  return vsix;
}

async function texts(wb: Workbench, selector: string): Promise<string[]> {
  // Without the text of <style> elements: 1.139's quick input keeps its list styles inside the widget.
  const all: string[] = await wb.page
    .locator(selector)
    .evaluateAll((els) =>
      els.map((e) => {
        const el = e as unknown as { innerText: string; querySelectorAll(s: string): Iterable<{ textContent: string | null }> };
        let text = el.innerText;
        for (const style of el.querySelectorAll('style')) if (style.textContent) text = text.replace(style.textContent, '');
        return text;
      }),
    )
    .catch(() => []);
  return all.map((t) => t.replace(/\s+/g, ' ').trim()).filter(Boolean);
}

/** The texts of the error notifications on screen. */
export async function errorToasts(wb: Workbench): Promise<string[]> {
  return texts(wb, '.notifications-toasts .notification-toast:has(.codicon-error)');
}

/**
 * For an afterEach hook: when the test failed, saves a screenshot and prints what was on screen
 * (tabs, quick input, toasts, sidebar rows), so a CI failure can be read from its log.
 */
export async function recordFailure(wb: Workbench | undefined, test: Mocha.Test | undefined): Promise<void> {
  if (test?.state !== 'failed' || !wb) return;
  const slug = (test.title || 'test').replace(/[^\w]+/g, '-').slice(0, 60);
  await wb.screenshot(out(`failed-${slug}.png`)).catch(() => undefined);
  console.log('  [ui] tabs:', JSON.stringify(await texts(wb, '.tabs-container .tab')));
  console.log('  [ui] quick input:', JSON.stringify(await texts(wb, '.quick-input-widget')));
  console.log('  [ui] notifications:', JSON.stringify(await texts(wb, '.notifications-toasts .notification-toast')));
  console.log('  [ui] sidebar rows:', JSON.stringify((await texts(wb, '.part.sidebar .monaco-list-row')).slice(0, 8)));
}

/** Opens a workspace file through Quick Open (Ctrl+P), as a user would, and waits for its tab. */
export async function quickOpen(wb: Workbench, name: string, timeout = 20_000): Promise<void> {
  await wb.page.keyboard.press('Control+P');
  const input = wb.page.locator('.quick-input-widget .quick-input-box input');
  await input.waitFor({ state: 'visible' });
  await input.fill(name);
  await wb.page.locator('.quick-input-widget .monaco-list-row', { hasText: name }).first().waitFor({ state: 'visible', timeout });
  await wb.page.keyboard.press('Enter');
  await wb.page.locator('.tab', { hasText: name }).waitFor({ state: 'visible', timeout });
}

/** Switches the color theme through **Preferences: Color Theme**, as a user does ("Light Modern", "Dark Modern"). */
export async function setColorTheme(wb: Workbench, label: string, timeout = 20_000): Promise<void> {
  await wb.runCommand('Preferences: Color Theme');
  const input = wb.page.locator('.quick-input-widget .quick-input-box input');
  await input.waitFor({ state: 'visible', timeout });
  await input.fill(label);
  const row = wb.page
    .locator('.quick-input-widget .monaco-list-row')
    .filter({ has: wb.page.locator('.label-name', { hasText: new RegExp(`^${label}$`) }) })
    .first();
  await row.waitFor({ state: 'visible', timeout });
  await row.click();
  await wb.page.locator('.quick-input-widget').waitFor({ state: 'hidden', timeout });
  const light = /light/i.test(label);
  // The workbench root carries the theme's type: `vs` (light) or `vs-dark`.
  await wb.page.waitForFunction(`document.querySelector('.monaco-workbench')?.classList.contains(${JSON.stringify(light ? 'vs' : 'vs-dark')})`, undefined, { timeout });
  // Every webview page open takes the theme (its body's class), then draws a frame in it.
  const want = light ? 'vscode-light' : 'vscode-dark';
  await poll(`the webviews to take ${label}`, () => webviewThemes(wb), (themes) => themes.every((t) => t === want), timeout);
  await animationFrames(wb);
}

/** The theme class (vscode-light, vscode-dark, vscode-high-contrast…) of each webview page's body. */
async function webviewThemes(wb: Workbench): Promise<string[]> {
  const classes = await Promise.all(wb.page.frames().map((f) => f.evaluate(`document.body ? document.body.className : ''`).catch(() => '') as Promise<string>));
  return classes.map((c) => /\bvscode-(light|dark|high-contrast-light|high-contrast)\b/.exec(c)?.[0]).filter((t): t is string => !!t);
}

/** Two animation frames in the workbench and in every webview page: what a change scheduled has been drawn. */
export async function animationFrames(wb: Workbench): Promise<void> {
  const twoFrames = `new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve(true))))`;
  await Promise.all(wb.page.frames().map((f) => f.evaluate(twoFrames).catch(() => undefined)));
}

/**
 * Polls `get` until `ok` holds of its value (every 50 ms), and returns the value; fails naming
 * `what` and the last value after `timeout` ms. The UI tests' wait on a condition, never a sleep.
 */
export async function poll<T>(what: string, get: () => Promise<T>, ok: (value: T) => boolean, timeout = 20_000): Promise<T> {
  const deadline = Date.now() + timeout;
  for (;;) {
    const value = await get();
    if (ok(value)) return value;
    if (Date.now() > deadline) assert.fail(`waited ${timeout} ms for ${what}; last: ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Waits until the animations of `locator` and its children (a toast sliding in) have finished. */
export async function animationsDone(locator: Locator): Promise<void> {
  await locator.evaluate(`(el) => Promise.all(el.getAnimations({ subtree: true }).map((a) => a.finished.catch(() => undefined)))`);
}

/**
 * The sidebar has settled: no progress bar running, and then no change to its DOM for 20 drawn
 * frames in a row (a load re-renders the rows when it ends, after a round trip to the extension
 * host; a click in that moment meets VS Code's "Actual command not found", the rows' commands
 * being replaced). Fails after `timeout` ms of a sidebar that keeps changing.
 */
export async function sidebarSettled(wb: Workbench, timeout = 20_000): Promise<void> {
  const settled = await wb.page.evaluate(`new Promise((resolve) => {
    const root = document.querySelector('.part.sidebar');
    if (!root) return resolve(false);
    let quiet = 0;
    const changes = new MutationObserver(() => (quiet = 0));
    changes.observe(root, { subtree: true, childList: true, attributes: true, characterData: true });
    const end = (ok) => (changes.disconnect(), resolve(ok));
    const deadline = setTimeout(() => end(false), ${timeout});
    const frame = () => {
      quiet = root.querySelector('.monaco-progress-container.active') ? 0 : quiet + 1;
      if (quiet >= 20) (clearTimeout(deadline), end(true));
      else requestAnimationFrame(frame);
    };
    requestAnimationFrame(frame);
  })`);
  assert.ok(settled, `the sidebar kept changing (or showed progress) for ${timeout} ms`);
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The explorer's row of a file or folder, by its exact name. */
export function explorerRow(wb: Workbench, name: string): Locator {
  return wb.page.locator('.part.sidebar .explorer-folders-view .monaco-list-row', { hasText: new RegExp(`^${escapeRegExp(name)}$`) }).first();
}

/**
 * Opens the explorer's folders one below the other (`.art`, `demo`, `models`). The tree may redraw
 * under a click while the workspace is still being read: each folder is clicked until it says it
 * is open (each click given 5 s to show it), five clicks at most.
 */
export async function expandExplorerFolders(wb: Workbench, names: string[]): Promise<void> {
  for (const name of names) {
    const row = explorerRow(wb, name);
    await row.waitFor({ state: 'visible', timeout: 60_000 });
    for (let i = 0; (await row.getAttribute('aria-expanded')) !== 'true'; i++) {
      assert.ok(i < 5, `the explorer folder ${name} did not open after 5 clicks`);
      await row.click();
      await wb.page
        .waitForFunction(`[...document.querySelectorAll('.part.sidebar .explorer-folders-view .monaco-list-row[aria-expanded="true"]')].some((r) => r.innerText.trim() === ${JSON.stringify(name)})`, undefined, { timeout: 5_000 })
        .catch(() => undefined);
    }
  }
}

/**
 * Picks `label` in the context menu that is open: clicks it and waits for the menu to close. A
 * menu ignores a mouse-up that comes right after it opened (so the click that opened it cannot
 * also pick an item): a click it swallowed leaves it open, and is made again (three at most).
 */
export async function pickMenuItem(wb: Workbench, label: string): Promise<void> {
  const menu = wb.page.locator('.context-view .monaco-menu');
  const item = menu.locator('.action-item', { hasText: new RegExp(`^\\s*${escapeRegExp(label)}\\s*$`) }).first();
  await item.waitFor({ state: 'visible', timeout: 10_000 });
  for (let attempt = 1; ; attempt++) {
    await item.click();
    try {
      await menu.waitFor({ state: 'hidden', timeout: 1_000 });
      return;
    } catch (e) {
      if (attempt === 3) throw new Error(`the menu did not take a click on "${label}" (3 clicks)`, { cause: e });
    }
  }
}

/** Right-clicks the explorer row `name`, picks `label` in its menu and waits for the editor tab `tab`. */
export async function runFromExplorerMenu(wb: Workbench, name: string, label: string, tab: string, timeout = 30_000): Promise<void> {
  await explorerRow(wb, name).click({ button: 'right' });
  await pickMenuItem(wb, label);
  await wb.page.locator('.tab', { hasText: tab }).waitFor({ state: 'visible', timeout });
}

/** A fresh workbench with the packaged VSIX installed, as users get it. */
export function openVsixWorkbench(options: Omit<OpenWorkbenchOptions, 'extension' | 'vsix'>): Promise<Workbench> {
  return openWorkbench({ ...options, extension: 'vsix', vsix: packagedVsix() });
}

/**
 * The end-of-test hooks of a UI suite: evidence after each failed test (recordFailure), and after
 * the suite the workbench closed, then `cleanup` (servers, temp folders).
 */
export function closeAfter(workbench: () => Workbench | undefined, cleanup?: () => unknown): void {
  afterEach(async function () {
    await recordFailure(workbench(), this.currentTest);
  });
  after(async () => {
    await workbench()?.close();
    await cleanup?.();
  });
}
