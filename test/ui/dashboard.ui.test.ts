// The training dashboard in the real workbench: opened from the Checkpoints tree's inline button
// on the demo run, its charts drawn on canvas, the best checkpoint starred at the right step, and
// the diff of two selected rows. Saves test-results/ui/dashboard.png and dashboard-diff.png (the
// README's screenshots).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { startReferenceServer, type ReferenceServer } from '../server';
import { closeAfter, errorToasts, openVsixWorkbench, out, poll, root, type Workbench } from './helpers';

const MODEL = 'demo-model-7b';

interface DemoCheckpoint {
  id: string;
  step: number;
  metrics: Record<string, number>;
}

describe('UI: the training dashboard (VSIX installed)', function () {
  this.timeout(180_000);
  let server: ReferenceServer;
  let wb: Workbench;
  const fixture = path.join(root, 'test/fixtures/demo.json');
  const run: DemoCheckpoint[] = JSON.parse(fs.readFileSync(fixture, 'utf8')).models[MODEL].checkpoints;
  const withVal = run.filter((c) => c.metrics['val/reward'] !== undefined);
  /** The expected star: the highest val/reward, the earliest step on a tie. */
  const best = withVal.reduce((a, b) => (b.metrics['val/reward']! > a.metrics['val/reward']! ? b : a));
  const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-ui-dashboard-'));
  // The webview's page, inside the workbench's webview iframe.
  const frame = () => wb.page.frameLocator('iframe.webview.ready').frameLocator('iframe#active-frame');

  before(async () => {
    server = await startReferenceServer({ fixture });
    wb = await openVsixWorkbench({
      settings: {
        'svc.baseUrl': server.url,
        'svc.project': 'demo-entity/chatbot',
        'svc.models': [MODEL, 'demo-model-70b'],
        'workbench.colorTheme': 'Default Dark Modern',
      },
      env: { SVC_API_KEY: 'demo-key' },
      workspace,
      viewport: { width: 1600, height: 1000 },
    });
  });
  // A failure leaves evidence in the CI log and a screenshot.
  closeAfter(() => wb, () => server?.close());

  it('opens from the inline button of a model in the Checkpoints view and draws the charts', async () => {
    await wb.page.locator('.part.activitybar a.action-label[aria-label="svc"]').waitFor({ state: 'visible', timeout: 60_000 });
    await wb.clickActivity('svc');
    const row = wb.page.locator('.part.sidebar .monaco-list-row', { hasText: MODEL }).first();
    await row.waitFor({ state: 'visible', timeout: 60_000 });
    await row.hover();
    await row.locator('.action-label[aria-label="Open Training Dashboard"]').click();
    await wb.page.locator('.tab', { hasText: `Training: ${MODEL}` }).waitFor({ state: 'visible', timeout: 30_000 });
    const page = frame();
    await page.locator('.status', { hasText: `${run.length} checkpoints` }).waitFor({ state: 'visible', timeout: 60_000 });
    const captions = await page.locator('.chart-card figcaption').allInnerTexts();
    assert.ok(['train/reward', 'val/reward', 'loss/train', 'loss/kl_div'].every((m) => captions.includes(m)), captions.join(', '));
    // Every chart's canvas has pixels drawn on it (lines, axes, grid).
    const drawn: number[] = await page.locator('.chart-card canvas').evaluateAll((canvases: { width: number; height: number; getContext(kind: '2d'): { getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray } } | null }[]) =>
      canvases.map((c) => {
        const data = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
        let painted = 0;
        for (let i = 3; i < data.length; i += 4) if (data[i]! > 0) painted++;
        return painted / (c.width * c.height);
      }),
    );
    assert.equal(drawn.length, captions.length);
    assert.ok(drawn.every((share) => share > 0.01), `painted share per canvas: ${drawn.map((d) => d.toFixed(3)).join(', ')}`);
    assert.deepEqual(await errorToasts(wb), [], 'no error notification');
  });

  it('stars the best checkpoint by val/reward on its chart, at its step, and in the table', async () => {
    const page = frame();
    const star = page.locator('.chart-card[data-metric="val/reward"] .best-star');
    await star.waitFor({ state: 'visible', timeout: 20_000 });
    assert.equal(await star.getAttribute('data-step'), String(best.step));
    assert.equal(await star.getAttribute('data-checkpoint'), best.id);
    // Where it sits: its x along the plot area is the step's share of the step range.
    const { left, width } = await star.evaluate((el: { style: { left: string }; parentElement: { clientWidth: number } | null }) => ({ left: parseFloat(el.style.left), width: el.parentElement!.clientWidth }));
    const first = run[0]!.step;
    const last = run[run.length - 1]!.step;
    const expected = ((best.step - first) / (last - first)) * width;
    assert.ok(Math.abs(left - expected) < 3, `star at x=${left.toFixed(1)} px, step ${best.step} is at ${expected.toFixed(1)} px`);
    assert.equal(await page.locator('.chart-card .best-star:not([hidden])').count(), 1, 'one star, on the chosen metric');
    assert.match(await page.locator('.best-summary').innerText(), new RegExp(`Best by val/reward \\(highest\\): step ${best.step}`));
    await wb.page.mouse.move(5, 500); // no hover tooltip in the picture
    await wb.screenshot(out('dashboard.png'));
  });

  it('shows value, Δ and % for two selected rows', async () => {
    const page = frame();
    // Sort the table by val/reward (descending): the two best evaluations come first.
    await page.locator('.grid-head button.sort', { hasText: /^val\/reward/ }).click();
    const rows = page.locator('.grid-body .row');
    await rows.first().waitFor({ state: 'visible' });
    const sorted = [...withVal].sort((a, b) => b.metrics['val/reward']! - a.metrics['val/reward']! || a.step - b.step);
    const [x, y] = [sorted[0]!, sorted[1]!];
    assert.equal(await rows.first().getAttribute('data-step'), String(x.step));
    assert.equal(await rows.first().locator('.cell.star').innerText(), '★');
    await page.locator(`.grid-body .row[data-step="${x.step}"] input[type=checkbox]`).check();
    await page.locator(`.grid-body .row[data-step="${y.step}"] input[type=checkbox]`).check();
    const [a, b] = x.step < y.step ? [x, y] : [y, x];
    await page.locator('.diff h2', { hasText: `Diff: step ${a.step} → step ${b.step}` }).waitFor({ state: 'visible', timeout: 10_000 });
    for (const metric of ['val/reward', 'loss/train', 'train/reward']) {
      const cell = page.locator(`.diff-table tr[data-metric="${metric}"] td.delta`);
      const delta = Number(await cell.getAttribute('data-delta'));
      const want = b.metrics[metric]! - a.metrics[metric]!;
      assert.ok(Math.abs(delta - want) < 1e-9, `${metric}: Δ ${delta}, expected ${want}`);
      const shown = await cell.innerText();
      assert.equal(Number(shown), Number(want.toPrecision(4)), `${metric}: shown as ${shown}`);
    }
    const pct = await page.locator('.diff-table tr[data-metric="val/reward"] td').nth(3).innerText();
    const wantPct = ((b.metrics['val/reward']! - a.metrics['val/reward']!) / Math.abs(a.metrics['val/reward']!)) * 100;
    assert.equal(pct, `${wantPct > 0 ? '+' : ''}${Number(wantPct.toFixed(2))}%`);
    await page.locator('.diff').scrollIntoViewIfNeeded();
    await wb.page.mouse.move(5, 500);
    await wb.screenshot(out('dashboard-diff.png'));
    assert.deepEqual(await errorToasts(wb), [], 'no error notification');
  });

  it('table: a sort keeps the selected row in view, or goes back to the top; each column has one number format', async () => {
    const page = frame();
    const grid = page.locator('.grid');
    const scrollTop = () => grid.evaluate((el: { scrollTop: number }) => el.scrollTop);
    const toBottom = () => grid.evaluate((el: { scrollTop: number; scrollHeight: number }) => void (el.scrollTop = el.scrollHeight));
    // Two rows are selected (the diff above): sort by step, scrolled to the bottom; the later selected row is in view.
    await toBottom();
    assert.ok((await scrollTop()) > 1000, 'scrolled down');
    await page.locator('.grid-head button.sort', { hasText: /^step/ }).click();
    const selected = page.locator('.grid-body .row.selected').last();
    await selected.waitFor({ state: 'visible', timeout: 10_000 });
    const inView = await selected.evaluate((row: { getBoundingClientRect(): { top: number; bottom: number }; closest(s: string): { getBoundingClientRect(): { top: number; bottom: number } } | null }) => {
      const r = row.getBoundingClientRect();
      const g = row.closest('.grid')!.getBoundingClientRect();
      return r.top >= g.top && r.bottom <= g.bottom;
    });
    assert.ok(inView, 'the selected row is in view after the sort');
    // Nothing selected: a new sort starts at the top.
    // (Rows are drawn again after each click: find each by its step.)
    const steps = await page.locator('.grid-body .row.selected').evaluateAll((rows: { getAttribute(n: string): string | null }[]) => rows.map((r) => r.getAttribute('data-step')!));
    assert.equal(steps.length, 2, 'the two rows of the diff');
    for (const step of steps) {
      await page.locator(`.grid-body .row.selected[data-step="${step}"] input[type=checkbox]`).click();
      await page.locator(`.grid-body .row.selected[data-step="${step}"]`).waitFor({ state: 'detached', timeout: 10_000 });
    }
    await toBottom();
    assert.ok((await scrollTop()) > 1000, 'scrolled down again');
    await page.locator('.grid-head button.sort', { hasText: /^loss\/train/ }).click();
    await poll('the table back at the top after the sort', scrollTop, (top) => top === 0, 10_000);
    // One format per column: all fixed with the same decimals, or all exponent.
    const columns: string[][] = await page.locator('.grid-body .row').evaluateAll((rows: { querySelectorAll(s: string): ArrayLike<{ textContent: string | null }> }[]) => {
      const cols: string[][] = [];
      for (const r of rows) Array.from(r.querySelectorAll('.cell.num:not(.step)')).forEach((c, i) => (cols[i] ??= []).push(c.textContent ?? ''));
      return cols;
    });
    assert.ok(columns.length >= 3, `metric columns: ${columns.length}`);
    for (const col of columns) {
      const styles = new Set(col.filter((t) => t !== '').map((t) => (/e[+-]\d+$/.test(t) ? 'exp' : `fixed${t.split('.')[1]?.length ?? 0}`)));
      assert.ok(styles.size <= 1, `one format per column: ${[...styles].join(', ')} in ${col.slice(0, 6).join(' | ')}`);
    }
  });

  it('follows a theme change: high contrast redraws the charts in its own colours', async () => {
    const page = frame();
    const border: string = await page.locator('body').evaluate((body: any) => body.ownerDocument.defaultView.getComputedStyle(body).getPropertyValue('--vscode-contrastBorder').trim());
    await wb.runCommand('Preferences: Color Theme');
    const input = wb.page.locator('.quick-input-widget .quick-input-box input');
    await input.fill('Dark High Contrast');
    await wb.page.locator('.quick-input-widget .monaco-list-row', { hasText: 'Dark High Contrast' }).first().waitFor({ state: 'visible' });
    await wb.page.keyboard.press('Enter');
    await page.locator('body.vscode-high-contrast').waitFor({ state: 'attached', timeout: 20_000 });
    const contrast: string = await page.locator('body').evaluate((body: any) => body.ownerDocument.defaultView.getComputedStyle(body).getPropertyValue('--vscode-contrastBorder').trim());
    assert.notEqual(contrast, border, 'the theme sets a contrast border');
    // The grid lines of every chart are drawn in the theme's contrast border colour.
    const hex = contrast.replace('#', '');
    const rgb = [0, 2, 4].map((i) => parseInt(hex.slice(i, i + 2), 16));
    // The charts are drawn again in the frames after the theme's class lands: poll their pixels.
    const pixels = (): Promise<number[]> =>
      page.locator('.chart-card canvas').evaluateAll((canvases: any[], want: number[]) =>
        canvases.map((c) => {
          const data = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
          let hits = 0;
          for (let i = 0; i < data.length; i += 4) if (data[i] === want[0] && data[i + 1] === want[1] && data[i + 2] === want[2]) hits++;
          return hits;
        }), rgb);
    const shares = await poll(`the charts' grid lines in ${contrast}`, pixels, (n) => n.length > 0 && n.every((x) => x > 50), 10_000);
    assert.ok(shares.every((n) => n > 50), `pixels in ${contrast} per chart: ${shares.join(', ')}`);
    await wb.screenshot(out('dashboard-high-contrast.png'));
  });
});
