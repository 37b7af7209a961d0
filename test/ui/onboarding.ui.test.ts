// The first run of a new user, driven in the real workbench from a blank profile: no settings, no
// credentials. Each welcome view offers the one button that fixes its state; following them in
// order (service URL, sign-in, project, model) ends with thread and checkpoint rows on screen, the
// settings in the user's settings (no .vscode folder in the workspace), and the key in no file.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { startReferenceServer, type ReferenceServer } from '../server';

import { closeAfter, openVsixWorkbench, out, root, setColorTheme, type Workbench } from './helpers';
const KEY = 'demo-key';

describe('UI: first run, from the welcome views to rows (VSIX installed, blank profile)', function () {
  this.timeout(180_000);
  let server: ReferenceServer;
  let wb: Workbench;
  const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-ui-onboarding-'));

  before(async () => {
    server = await startReferenceServer({ fixture: path.join(root, 'test/fixtures/demo.json') });
    wb = await openVsixWorkbench({
      // No Welcome page at startup: VS Code's walkthrough service starts only when the walkthrough opens.
      settings: { 'workbench.colorTheme': 'Default Dark Modern', 'workbench.startupEditor': 'none' },
      // No credentials from the environment: the sign-in must come from the welcome view.
      env: { SVC_API_KEY: '', SVC_USERNAME: '', SVC_PASSWORD: '', SVC_ACCESS_TOKEN: '', NETRC: path.join(workspace, 'no-netrc') },
      workspace,
      viewport: { width: 1280, height: 800 },
    });
  });
  // A failure leaves evidence in the CI log and a screenshot.
  closeAfter(() => wb, () => server?.close());

  it('follows the welcome views: service URL, sign in, project, model; then shows rows', async () => {
    const page = wb.page;
    await page.locator('.part.activitybar a.action-label[aria-label="svc"]').waitFor({ state: 'visible', timeout: 60_000 });
    await wb.clickActivity('svc');
    const sidebar = page.locator('.part.sidebar');
    const threadsPane = sidebar.locator('.pane:has(.title:text-is("Threads"))');
    const checkpointsPane = sidebar.locator('.pane:has(.title:text-is("Checkpoints"))');
    const button = (pane: typeof threadsPane, label: string) => pane.locator('.welcome-view .monaco-button', { hasText: label });
    const input = page.locator('.quick-input-widget .quick-input-box input');
    const message = page.locator('.quick-input-widget .quick-input-message');
    // Where a setting goes: the first item, the user's settings, is the default.
    const userScope = async (setting: string) => {
      await page.locator('.quick-input-widget .quick-input-title', { hasText: `svc: Save ${setting} in…` }).waitFor({ state: 'visible' });
      await page.locator('.quick-input-widget .monaco-list-row.focused', { hasText: 'User settings' }).waitFor({ state: 'visible' });
      await page.keyboard.press('Enter');
    };

    // 1. No service configured.
    await threadsPane.getByText('No svc service is configured.').waitFor({ state: 'visible', timeout: 60_000 });
    // Welcome text reads as text: no literal backticks.
    assert.doesNotMatch(await sidebar.locator('.welcome-view').first().innerText(), /`/);
    await wb.screenshot(out('welcome.png'));
    await setColorTheme(wb, 'Light Modern');
    await wb.screenshot(out('welcome-light.png'));
    await setColorTheme(wb, 'Dark Modern');
    // Nothing to refresh, sort or filter yet: the view title offers none of it.
    const titleAction = (pane: typeof threadsPane, label: string) => pane.locator(`.pane-header .action-label[aria-label^="${label}"]`);
    for (const label of ['Refresh Threads', 'Sort Threads', 'Filter Threads']) assert.equal(await titleAction(threadsPane, label).count(), 0, label);
    for (const label of ['Refresh Checkpoints', 'Add Model', 'Toggle Checkpoint Order']) assert.equal(await titleAction(checkpointsPane, label).count(), 0, label);
    await button(threadsPane, 'Set Service URL').click();
    await input.waitFor({ state: 'visible' });
    await input.fill('ftp://svc.example.com');
    await message.filter({ hasText: 'Use an http or https URL.' }).waitFor({ state: 'visible', timeout: 10_000 });
    await input.fill(server.url);
    await message.filter({ hasText: 'Use an http or https URL.' }).waitFor({ state: 'hidden', timeout: 10_000 });
    await page.keyboard.press('Enter');
    await userScope('svc.baseUrl');

    // 2. Signed out.
    await threadsPane.getByText('Sign in to browse the conversation threads of your project.').waitFor({ state: 'visible', timeout: 30_000 });
    await button(threadsPane, 'Sign In').click();
    await page.locator('.quick-input-widget .monaco-list-row', { hasText: 'Paste an API key' }).waitFor({ state: 'visible' });
    await page.keyboard.press('Enter');
    await page.locator('.quick-input-widget .quick-input-title', { hasText: 'svc: API key' }).waitFor({ state: 'visible' });
    assert.equal(await input.getAttribute('type'), 'password', 'the key is typed into a password box');
    await input.fill(KEY);
    await page.keyboard.press('Enter');

    // 3. No project.
    await threadsPane.getByText('Choose the project whose threads to show.').waitFor({ state: 'visible', timeout: 30_000 });
    await button(threadsPane, 'Select Project').click();
    await input.waitFor({ state: 'visible' });
    await input.fill('demo-entity/chatbot');
    await page.locator('.quick-input-widget .monaco-list-row', { hasText: 'demo-entity/chatbot' }).first().waitFor({ state: 'visible' });
    await page.keyboard.press('Enter');
    await userScope('svc.project');
    await threadsPane.locator('.monaco-list-row[aria-label^="Thread "]').first().waitFor({ state: 'visible', timeout: 30_000 });

    // 4. No models.
    await checkpointsPane.getByText('Add a model to see its checkpoints.').waitFor({ state: 'visible', timeout: 30_000 });
    await button(checkpointsPane, 'Add Model').click();
    await input.waitFor({ state: 'visible' });
    await input.fill('demo-model-7b');
    await page.locator('.quick-input-widget .monaco-list-row', { hasText: 'demo-model-7b' }).first().waitFor({ state: 'visible' });
    await page.keyboard.press('Enter');
    await userScope('svc.models');
    const model = checkpointsPane.locator('.monaco-list-row', { hasText: 'demo-model-7b' });
    await model.waitFor({ state: 'visible', timeout: 30_000 });
    await model.click();
    await checkpointsPane.locator('.monaco-list-row', { hasText: /^step \d+/ }).first().waitFor({ state: 'visible', timeout: 30_000 });
    await page.locator('.statusbar-item', { hasText: 'svc: demo-entity/chatbot' }).first().waitFor({ state: 'visible', timeout: 20_000 });

    // What the service saw: Basic for threads, Bearer for checkpoints, both accepted.
    const threads = server.stats.filter('/threads/stream_query');
    assert.ok(threads.length >= 1 && threads.every((r) => r.authScheme === 'basic' && r.status === 200));
    const checkpoints = server.stats.filter('/v1/preview/models/demo-model-7b/checkpoints');
    assert.ok(checkpoints.length >= 1 && checkpoints.every((r) => r.authScheme === 'bearer' && r.status === 200));

    // The user's settings hold the URL, project and model; the workspace got no .vscode folder,
    // and no file holds the key.
    assert.ok(!fs.existsSync(path.join(workspace, '.vscode')), 'no .vscode folder in the workspace');
    const settings = JSON.parse(fs.readFileSync(path.join(wb.server.userDataDir, 'User', 'settings.json'), 'utf8'));
    assert.equal(settings['svc.baseUrl'], server.url);
    assert.equal(settings['svc.project'], 'demo-entity/chatbot');
    assert.deepEqual(settings['svc.models'], ['demo-model-7b']);
    assert.ok(!JSON.stringify(settings).includes(KEY), 'the user settings hold the key');
    const files = fs.readdirSync(workspace, { recursive: true, withFileTypes: true }).filter((d) => d.isFile());
    for (const f of files) {
      const text = fs.readFileSync(path.join(f.parentPath ?? (f as unknown as { path: string }).path, f.name), 'utf8');
      assert.ok(!text.includes(KEY), `${f.name} holds the key`);
    }
    for (const label of ['Refresh Threads', 'Sort Threads', 'Filter Threads']) assert.equal(await titleAction(threadsPane, label).count(), 1, label);
    for (const label of ['Refresh Checkpoints', 'Add Model', 'Toggle Checkpoint Order']) assert.equal(await titleAction(checkpointsPane, label).count(), 1, label);
    await wb.screenshot(out('onboarded.png'));
  });

  it('opens the walkthrough with its first four steps ticked, set up before it opened', async () => {
    const page = wb.page;
    await wb.runCommand('Welcome: Open Walkthrough...');
    const input = page.locator('.quick-input-widget .quick-input-box input');
    await input.waitFor({ state: 'visible' });
    await input.fill('Get started with svc');
    await page.locator('.quick-input-widget .monaco-list-row', { hasText: 'Get started with svc' }).first().click();
    await page.locator('.getting-started-step', { hasText: 'Set the service URL' }).first().waitFor({ state: 'visible', timeout: 30_000 });
    // Each step's checkbox carries data-done-step-id, and the class `complete` once it is ticked.
    for (const id of ['setBaseUrl', 'signIn', 'selectProject', 'addModel']) {
      await page.locator(`[data-done-step-id$="${id}"].complete`).first().waitFor({ state: 'attached', timeout: 20_000 });
    }
    await wb.screenshot(out('walkthrough.png'));
  });
});
