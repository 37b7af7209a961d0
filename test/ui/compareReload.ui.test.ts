// Compare Runs survives a window reload: two run folders compared from the explorer, the page
// reloaded (Developer: Reload Window), and the panel is back with both runs drawn.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { closeAfter, errorToasts, openVsixWorkbench, type Workbench } from './helpers';

const { writeArtHistory } = require('../../scripts/demo-art-history.js') as { writeArtHistory: (dir: string) => string };

describe('UI: Compare Runs after a window reload (VSIX installed)', function () {
  this.timeout(240_000);
  let wb: Workbench;
  const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-ui-compare-'));
  const history = writeArtHistory(workspace);
  const modelDir = path.join(workspace, path.dirname(history));
  fs.cpSync(modelDir, path.join(path.dirname(modelDir), 'agent-8b'), { recursive: true });
  const legend = () => wb.page.frameLocator('iframe.webview.ready').last().frameLocator('iframe#active-frame').locator('.run-legend .run-label');

  before(async () => {
    wb = await openVsixWorkbench({
      settings: { 'workbench.startupEditor': 'none', 'explorer.compactFolders': false },
      workspace,
      viewport: { width: 1400, height: 900 },
    });
  });
  closeAfter(() => wb, () => fs.rmSync(workspace, { recursive: true, force: true }));

  it('comes back with both runs after the window reloads', async () => {
    await wb.waitForReady();
    await wb.clickActivity('Explorer');
    const row = (name: string) => wb.page.locator('.part.sidebar .explorer-folders-view .monaco-list-row', { hasText: new RegExp(`^${name.replace('.', '\\.')}$`) }).first();
    for (const name of ['.art', 'demo', 'models']) {
      await row(name).waitFor({ state: 'visible', timeout: 60_000 });
      for (let i = 0; i < 5 && (await row(name).getAttribute('aria-expanded')) !== 'true'; i++) {
        await row(name).click();
        await wb.page.waitForTimeout(500);
      }
    }
    // Two run folders selected: a click, then a Ctrl-click (clicking a folder opens it; close it again).
    await row('agent-7b').click();
    await row('agent-8b').click({ modifiers: ['Control'] });
    const tab = wb.page.locator('.tab', { hasText: 'Compare: agent-7b vs agent-8b' });
    for (let attempt = 1; ; attempt++) {
      await row('agent-8b').click({ button: 'right' });
      const item = wb.page.locator('.context-view .monaco-menu .action-item', { hasText: /^\s*Compare Runs\s*$/ }).first();
      await item.waitFor({ state: 'visible', timeout: 10_000 });
      await wb.page.waitForTimeout(400);
      await item.click();
      try {
        await tab.waitFor({ state: 'visible', timeout: 30_000 });
        break;
      } catch (e) {
        if (attempt === 2) throw e;
        if (await wb.page.locator('.context-view .monaco-menu').isVisible()) await wb.page.keyboard.press('Escape');
      }
    }
    await legend().first().waitFor({ state: 'visible', timeout: 60_000 });
    assert.deepEqual(await legend().allInnerTexts(), ['agent-7b (history.jsonl)', 'agent-8b (history.jsonl)']);

    // Developer: Reload Window shuts the workbench down as a user's reload does (its state saved), then loads it again.
    await Promise.all([wb.page.waitForEvent('load', { timeout: 60_000 }), wb.runCommand('Developer: Reload Window')]);
    await wb.waitForReady();
    await tab.waitFor({ state: 'visible', timeout: 60_000 });
    // The restored panel draws its runs again (an empty kept panel would have no legend).
    await legend().first().waitFor({ state: 'visible', timeout: 60_000 });
    assert.deepEqual(await legend().allInnerTexts(), ['agent-7b (history.jsonl)', 'agent-8b (history.jsonl)']);
    assert.deepEqual(await errorToasts(wb), [], 'no error notification');
  });
});
