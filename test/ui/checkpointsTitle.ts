// The Checkpoints half of the title-button UI test (svc.ui.test.ts runs it after the Threads
// half): with a checkpoint row focused, as after clicking one, every Checkpoints title button does
// what it does without a focused row, and no error notification appears. Also watches the model
// rows' counts ("20+ checkpoints") through Load More and Toggle Order.
import assert from 'node:assert/strict';
import type { ReferenceServer } from '../server';
import { errorToasts, poll, sidebarSettled, type Workbench } from './helpers';

const BIG = 'demo-model-7b';
const OTHER = 'demo-model-70b';

export async function runCheckpointsTitleButtons(wb: Workbench, server: ReferenceServer): Promise<void> {
  const page = wb.page;
  const pane = page.locator('.part.sidebar .pane:has(.title:text-is("Checkpoints"))');
  const modelRow = (id: string) => pane.locator('.monaco-list-row', { hasText: id }).first();
  const stepRows = pane.locator('.monaco-list-row', { hasText: /^step \d+/ });
  const titleButton = (label: string) => pane.locator(`.pane-header .action-label[aria-label^="${label}"]`);
  const description = () => pane.locator('.pane-header .description').innerText();
  const requests = (id: string) => server.stats.count(`/v1/preview/models/${id}/checkpoints`);
  const noErrors = async (after: string) => assert.deepEqual(await errorToasts(wb), [], `no error notification after ${after}`);
  // A load re-renders the rows when it ends: click once the view has settled.
  const settled = () => sidebarSettled(wb);
  /** The description of a model's row, once it reads `want` (the count is re-rendered after each load). */
  const count = async (id: string, want: string) => {
    const d = modelRow(id).locator('.label-description');
    await poll(`the row of ${id} to read "${want}"`, async () => ((await d.innerText().catch(() => '')) || '').trim(), (text) => text === want);
  };
  const expand = async (id: string) => {
    await settled();
    if ((await modelRow(id).getAttribute('aria-expanded')) !== 'true') await modelRow(id).click();
    await count(id, '20+ checkpoints');
  };
  // Clicking a checkpoint row focuses it (and opens the model's training dashboard beside).
  const focusRow = async () => {
    await settled();
    await stepRows.nth(1).click();
    await pane.locator('.monaco-list-row.focused', { hasText: /^step \d+/ }).waitFor({ state: 'visible', timeout: 10_000 });
  };
  const waitUntil = (what: string, predicate: () => boolean) => poll(what, async () => predicate(), (done) => done);

  // The list renders only the rows in view: give the Checkpoints view the sidebar's height (the
  // Threads view collapsed, as a user would) so both models' rows fit with 20 checkpoints open.
  const threadsHeader = page.locator('.part.sidebar .pane:has(.title:text-is("Threads")) .pane-header');
  const threadsOpen = async () => (await threadsHeader.getAttribute('aria-expanded')) === 'true';
  try {
    if (await threadsOpen()) await threadsHeader.click();
    // Expanded from the test before: collapsed, so that the other model's row is in view to expand.
    if ((await modelRow(BIG).getAttribute('aria-expanded')) === 'true') await modelRow(BIG).click();
    await expand(OTHER);
    await expand(BIG);

    // Refresh: reloads every expanded model, not only the focused row's.
    await focusRow();
    const [big, other] = [requests(BIG), requests(OTHER)];
    await titleButton('Refresh Checkpoints').click();
    await waitUntil(`Refresh did not reload ${BIG}`, () => requests(BIG) > big);
    await waitUntil(`Refresh did not reload ${OTHER} (only the focused row's model?)`, () => requests(OTHER) > other);
    await count(BIG, '20+ checkpoints');
    await count(OTHER, '20+ checkpoints');
    await noErrors('Refresh');

    // Add Model…: its prompt (it did nothing with a row focused).
    await focusRow();
    await titleButton('Add Model').click();
    await page.locator('.quick-input-widget .quick-input-title', { hasText: 'svc: Add a model' }).waitFor({ state: 'visible', timeout: 10_000 });
    await page.keyboard.press('Escape');
    await page.locator('.quick-input-widget').waitFor({ state: 'hidden', timeout: 10_000 });
    await noErrors('Add Model');

    // Load More: the model's count follows.
    await settled();
    await pane.locator('.monaco-list-row', { hasText: 'Load more…' }).first().click();
    await count(BIG, '40+ checkpoints');
    await noErrors('Load More');

    // Toggle Order: oldest first, the first page again, and the count says so; then back.
    assert.match(await description(), /newest first/);
    await focusRow();
    await titleButton('Toggle Checkpoint Order').click();
    await page.waitForFunction(`/oldest first/.test(document.querySelector('.part.sidebar')?.textContent ?? '')`, undefined, { timeout: 20_000 });
    await count(BIG, '20+ checkpoints');
    const first = await stepRows.first().locator('.label-name').innerText();
    const second = await stepRows.nth(1).locator('.label-name').innerText();
    assert.ok(Number(first.slice(5)) < Number(second.slice(5)), `oldest first: ${first}, ${second}`);
    await noErrors('Toggle Order');
    await focusRow();
    await titleButton('Toggle Checkpoint Order').click();
    await page.waitForFunction(`/newest first/.test(document.querySelector('.part.sidebar')?.textContent ?? '')`, undefined, { timeout: 20_000 });
    await count(BIG, '20+ checkpoints');
    await count(OTHER, '20+ checkpoints');
    await noErrors('Toggle Order back');
  } finally {
    if (await page.locator('.quick-input-widget').isVisible()) await page.keyboard.press('Escape');
    if (!(await threadsOpen())) await threadsHeader.click();
    await wb.runCommand('Notifications: Clear All Notifications').catch(() => undefined);
    await wb.runCommand('View: Close All Editors').catch(() => undefined);
  }
}
