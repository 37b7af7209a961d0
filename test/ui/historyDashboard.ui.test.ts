// The training dashboard of a run's history.jsonl as a user meets it: the demo's
// `.art/demo/models/agent-7b/` folder, right-clicked in the explorer, opens the dashboard with no
// service configured; the charts are drawn, the best and latest steps are marked, and the latest
// step's trajectory file opens in the viewer from the line under the charts. Saves
// test-results/ui/dashboard-history.png (the README's screenshot).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { closeAfter, errorToasts, expandExplorerFolders, explorerRow, openVsixWorkbench, out, runFromExplorerMenu, type Workbench } from './helpers';

const { writeArtHistory } = require('../../scripts/demo-art-history.js') as { writeArtHistory: (dir: string) => string };

describe('UI: the training dashboard of a history.jsonl (VSIX installed)', function () {
  this.timeout(180_000);
  let wb: Workbench;
  const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-ui-history-'));
  const history = writeArtHistory(workspace);
  const modelDir = path.join(workspace, path.dirname(history));
  // The latest step's train trajectories, as older ART versions wrote them (JSONL).
  fs.mkdirSync(path.join(modelDir, 'trajectories', 'train'), { recursive: true });
  const group = { trajectories: [{ messages_and_choices: [{ role: 'user', content: 'What is 2 + 2?' }, { finish_reason: 'stop', index: 0, message: { role: 'assistant', content: '4' } }], reward: 1 }] };
  fs.writeFileSync(path.join(modelDir, 'trajectories', 'train', '0050.jsonl'), JSON.stringify(group) + '\n');
  const frame = () => wb.page.frameLocator('iframe.webview.ready').first().frameLocator('iframe#active-frame');

  before(async () => {
    wb = await openVsixWorkbench({
      settings: { 'workbench.colorTheme': 'Default Dark Modern', 'workbench.startupEditor': 'none', 'explorer.compactFolders': false },
      workspace,
      viewport: { width: 1600, height: 1000 },
    });
  });
  closeAfter(() => wb, () => fs.rmSync(workspace, { recursive: true, force: true }));

  it('opens from the model folder in the explorer and draws the run, best and latest steps marked', async () => {
    await wb.waitForReady();
    await wb.clickActivity('Explorer');
    await expandExplorerFolders(wb, ['.art', 'demo', 'models']);
    await explorerRow(wb, 'agent-7b').waitFor({ state: 'visible' });
    await runFromExplorerMenu(wb, 'agent-7b', 'Open Training Dashboard', 'Training: agent-7b (history.jsonl)');
    const page = frame();
    await page.locator('.status', { hasText: '50 steps from .art/demo/models/agent-7b/history.jsonl' }).waitFor({ state: 'visible', timeout: 60_000 });
    assert.match(await page.locator('.status').innerText(), / · watching · last line Nov 19, 10:12:08/);
    const captions = await page.locator('.chart-card figcaption').allInnerTexts();
    assert.ok(['train/reward', 'val/reward', 'loss/train'].every((m) => captions.includes(m)), captions.join(', '));
    await page.locator('.chart-card[data-metric="val/reward"] .best-star').waitFor({ state: 'visible', timeout: 20_000 });
    // The demo's validation peaks at step 40: the star is there, the latest step is 50.
    assert.match(await page.locator('.best-summary').innerText(), /Best by val\/reward \(highest\): step 40, 0\.79/);
    assert.equal(await page.locator('.chart-card[data-metric="val/reward"] .best-star').getAttribute('data-step'), '40');
    assert.match(await page.locator('.latest-summary').innerText(), /Latest: step 50/);
    await wb.page.mouse.move(5, 500);
    await wb.screenshot(out('dashboard-history.png'));
    assert.deepEqual(await errorToasts(wb), [], 'no error notification');
  });

  it('selects a step by a click on a chart: its row, and its step files under the charts', async () => {
    const page = frame();
    // The star sits on step 40's point of val/reward: a click there picks step 40.
    // (The star lets the pointer through to the plot: click at its place, as a user does.)
    const star = page.locator('.chart-card[data-metric="val/reward"] .best-star');
    await star.scrollIntoViewIfNeeded();
    const box = (await star.boundingBox())!;
    await wb.page.mouse.move(box.x + box.width / 2 - 1, box.y + box.height / 2);
    await wb.page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
    await page.locator('.step-files .step-link', { hasText: '★ best · selected step 40' }).waitFor({ state: 'visible', timeout: 10_000 });
    assert.equal(await page.locator('.grid-body .row.selected').getAttribute('data-step'), '40');
  });

  it("opens the latest step's train trajectories in the viewer from the line under the charts", async () => {
    const page = frame();
    const link = page.locator('.step-files .step-link', { hasText: 'latest step 50' }).locator('button', { hasText: 'train' });
    await link.click();
    await wb.page.locator('.tab', { hasText: '0050.jsonl' }).waitFor({ state: 'visible', timeout: 30_000 });
    const view = wb.page.frameLocator('iframe.webview.ready').last().frameLocator('#active-frame');
    await view.locator('.bubble').first().waitFor({ state: 'visible', timeout: 30_000 });
    assert.deepEqual(await errorToasts(wb), [], 'no error notification');
  });
});
