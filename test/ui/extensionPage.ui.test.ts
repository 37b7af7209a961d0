// The extension's page in the Extensions view (its packaged README). VS Code renders it in a webview
// with `img-src https: data:`, and 1.103 and later drop data: images (microsoft/vscode-vsce#1196):
// the packaged README names each picture by the https URL of the repository's file, as vsce
// writes it (issue 29, item 2). The test maps each URL back to a path and checks the file is in
// git, answers those URLs from the checkout (this machine has no network; nothing else is
// answered), and checks each picture is drawn and its alt text says what it shows.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { closeAfter, openVsixWorkbench, out, poll, root, type Workbench } from './helpers';

const images = require('../../scripts/readme-images.js') as { repositoryPathOfImage: (src: string, repositoryUrl: string | undefined) => string | undefined; vsceImageBase: (repositoryUrl: string | undefined) => string | undefined };
const repositoryUrl = (JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { repository: { url: string } }).repository.url;
const tracked = new Set(spawnSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8' }).stdout.split('\0').filter(Boolean));

describe('UI: the extension page in the Extensions view (VSIX installed): https images of the repository', function () {
  this.timeout(180_000);
  let wb: Workbench;
  const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-ui-page-'));
  const blocked: string[] = [];
  const served: string[] = [];

  before(async () => {
    wb = await openVsixWorkbench({ settings: { 'workbench.startupEditor': 'none', 'extensions.autoCheckUpdates': false }, workspace, viewport: { width: 1280, height: 900 } });
    const base = images.vsceImageBase(repositoryUrl);
    await wb.context.route('**/*', (route) => {
      const url = route.request().url();
      if (/^https?:\/\/(127\.0\.0\.1|localhost)[:/]/.test(url) || !/^https?:/.test(url)) return route.continue();
      // The repository's files, as GitHub would answer them (only files git tracks).
      const file = base && url.startsWith(`${base}/`) ? images.repositoryPathOfImage(url, repositoryUrl) : undefined;
      if (file && tracked.has(file)) {
        served.push(file);
        return route.fulfill({ status: 200, contentType: 'image/png', body: fs.readFileSync(path.join(root, file)) });
      }
      blocked.push(url);
      return route.abort('internetdisconnected');
    });
  });
  closeAfter(() => wb, () => fs.rmSync(workspace, { recursive: true, force: true }));

  it("names every image by the https URL of a file in the repository's git, draws it, and says what it shows", async () => {
    const page = wb.page;
    await wb.runCommand('Extensions: Show Enabled Extensions', 60_000);
    const row = page.locator('.extensions-viewlet .monaco-list-row', { hasText: 'svc for VS Code' }).first();
    await row.waitFor({ state: 'visible', timeout: 60_000 });
    await row.click();
    await page.locator('.extension-editor').waitFor({ state: 'visible', timeout: 30_000 });
    const readme = page.frameLocator('iframe.webview.ready').last().frameLocator('#active-frame');
    await readme.locator('h1, h2').first().waitFor({ state: 'visible', timeout: 60_000 });
    const imgs = readme.locator('img');
    type Seen = { src: string; alt: string; width: number; complete: boolean };
    const look = (): Promise<Seen[]> =>
      imgs.evaluateAll((els) =>
        els.map((el) => {
          const i = el as unknown as { naturalWidth: number; complete: boolean; getAttribute(n: string): string | null };
          return { src: i.getAttribute('src') ?? '', alt: i.getAttribute('alt') ?? '', width: i.naturalWidth, complete: i.complete };
        }),
      );
    const loaded = (s: Seen[]) => s.length >= 2 && s.every((i) => i.complete);
    // Not loaded in 30 s: the assertions below say which picture is missing.
    const seen = await poll("the README's pictures to load", look, loaded, 30_000).catch(look);
    await wb.screenshot(out('extension-page.png'));
    const short = seen.map((i) => ({ ...i, src: i.src.slice(0, 100) }));
    assert.ok(seen.length >= 2, `the README's pictures are on the page: ${JSON.stringify(short)}`);
    for (const i of seen) {
      assert.doesNotMatch(i.src, /^data:/i, 'no data: image (VS Code 1.103 and later drop them)');
      const file = images.repositoryPathOfImage(i.src, repositoryUrl);
      assert.ok(file, `${i.src.slice(0, 100)} is an https URL of a file of ${repositoryUrl}`);
      assert.ok(tracked.has(file), `${file} is in git`);
      assert.ok(i.alt.trim().split(/\s+/).length >= 6 && !/\.png$/i.test(i.alt), `the alt text says what ${file} shows: "${i.alt}"`);
    }
    assert.deepEqual(seen.filter((i) => !(i.width > 0)).map((i) => i.src), [], `every image drawn from its repository URL (served: ${served.join(', ') || 'none'}; blocked: ${blocked.join(', ') || 'none'})`);
  });
});
