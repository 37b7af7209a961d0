// The extension's page in the Extensions view (its packaged README), with no network: every image
// it names must load. VS Code renders that page in a webview with `img-src https: data:` and no
// base URL, so a relative path never loads and an https one needs the network (issue 21, item 5).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { closeAfter, openVsixWorkbench, out, type Workbench } from './helpers';

describe('UI: the extension page in the Extensions view, offline (VSIX installed)', function () {
  this.timeout(180_000);
  let wb: Workbench;
  const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-ui-page-'));
  const blocked: string[] = [];

  before(async () => {
    wb = await openVsixWorkbench({ settings: { 'workbench.startupEditor': 'none', 'extensions.autoCheckUpdates': false }, workspace, viewport: { width: 1280, height: 900 } });
    // Offline: only the local code-server answers; anything else fails as with no network.
    await wb.context.route('**/*', (route) => {
      const url = route.request().url();
      if (/^https?:\/\/(127\.0\.0\.1|localhost)[:/]/.test(url) || !/^https?:/.test(url)) return route.continue();
      blocked.push(url);
      return route.abort('internetdisconnected');
    });
  });
  closeAfter(() => wb, () => fs.rmSync(workspace, { recursive: true, force: true }));

  it('shows every image of the README, from inside the VSIX', async () => {
    const page = wb.page;
    await wb.runCommand('Extensions: Show Enabled Extensions', 60_000);
    const row = page.locator('.extensions-viewlet .monaco-list-row', { hasText: 'svc for VS Code' }).first();
    await row.waitFor({ state: 'visible', timeout: 60_000 });
    await row.click();
    await page.locator('.extension-editor').waitFor({ state: 'visible', timeout: 30_000 });
    const readme = page.frameLocator('iframe.webview.ready').last().frameLocator('#active-frame');
    await readme.locator('h1, h2').first().waitFor({ state: 'visible', timeout: 60_000 });
    const images = readme.locator('img');
    let seen: { src: string; width: number; complete: boolean }[] = [];
    const deadline = Date.now() + 30_000;
    do {
      seen = await images.evaluateAll((els) => els.map((i) => ({ src: (i as unknown as { naturalWidth: number; complete: boolean; getAttribute(n: string): string | null }).getAttribute('src')?.slice(0, 60) ?? '', width: (i as unknown as { naturalWidth: number; complete: boolean; getAttribute(n: string): string | null }).naturalWidth, complete: (i as unknown as { naturalWidth: number; complete: boolean; getAttribute(n: string): string | null }).complete })));
      if (seen.length >= 2 && seen.every((i) => i.complete)) break;
      await page.waitForTimeout(500);
    } while (Date.now() < deadline);
    await wb.screenshot(out('extension-page.png'));
    assert.ok(seen.length >= 2, `the README's pictures are on the page: ${JSON.stringify(seen)}`);
    assert.deepEqual(seen.filter((i) => !(i.width > 0)), [], `every image loaded offline (blocked: ${blocked.join(', ') || 'none'})`);
  });
});
