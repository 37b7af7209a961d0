// Shared pieces of the Playwright UI tests: the packaged VSIX, evidence when a test fails, and the
// few user gestures more than one test needs.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';

import { openWorkbench, type OpenWorkbenchOptions, type Workbench } from '../host/ui/workbench';
export type { Workbench };

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
  await wb.page.waitForTimeout(300); // let webviews pick up the new colours
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
