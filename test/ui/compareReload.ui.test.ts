// Compare Runs survives a window reload: two run folders compared from the explorer, the page
// reloaded (Developer: Reload Window), and the panel is back with both runs drawn.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { closeAfter, errorToasts, expandExplorerFolders, explorerRow, openVsixWorkbench, runFromExplorerMenu, type Workbench } from './helpers';

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
    await expandExplorerFolders(wb, ['.art', 'demo', 'models']);
    // Two run folders selected: a click, then a Ctrl-click (clicking a folder opens it; close it again).
    await explorerRow(wb, 'agent-7b').click();
    await explorerRow(wb, 'agent-8b').click({ modifiers: ['Control'] });
    const tab = wb.page.locator('.tab', { hasText: 'Compare: agent-7b vs agent-8b' });
    await runFromExplorerMenu(wb, 'agent-8b', 'Compare Runs', 'Compare: agent-7b vs agent-8b');
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
