// The trajectory viewer as a user meets it: a `*.trajectories.jsonl` file opened from Quick Open
// opens in the viewer (the VSIX installed), the keys move between trajectories and groups, tool
// calls show their paired results, a group without learning signal is flagged, a message is
// revealed in the text editor, markup in a message stays text, and the state survives hiding the
// tab. Screenshots in a dark and a light theme go to test-results/ui/ (the README's come from here).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { findNodeAtLocation, parseTree } from 'jsonc-parser';
import { closeAfter, errorToasts, openVsixWorkbench, out, poll, quickOpen, root, setColorTheme, type Workbench } from './helpers';

const FILE = 'art-model-dump.trajectories.jsonl';
/** Current ART: compact groups and exchange trajectories (an agent loop per API first). */
const EXCHANGES = 'art-exchanges.trajectories.jsonl';
/** Two trajectories whose turns have logprobs: OpenAI's logprobs.content, ART's compact_logprobs. */
const STRIP = 'strip.trajectories.jsonl';
/** The demo's rich file (scripts/demo-rich-trajectories.js). */
const { richGroups, RICH_FILE: RICH } = require('../../scripts/demo-rich-trajectories.js') as { richGroups: () => unknown[]; RICH_FILE: string };

describe('UI: the trajectory viewer', function () {
  this.timeout(180_000);
  let wb: Workbench;
  const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-ui-viewer-'));
  for (const f of [FILE, EXCHANGES]) fs.copyFileSync(path.join(root, 'test/fixtures/viewer', f), path.join(workspace, f));
  fs.writeFileSync(path.join(workspace, RICH), richGroups().map((g: unknown) => JSON.stringify(g)).join('\n') + '\n');
  fs.writeFileSync(path.join(workspace, 'notes.md'), '# Notes\n');
  // Token strips with known logprobs (Python's json, test/fixtures/tokenizer/make.py).
  fs.copyFileSync(path.join(root, 'test/fixtures/tokenizer/strip.jsonl'), path.join(workspace, STRIP));

  // The viewer's document, inside the webview's two iframes.
  const view = () => wb.page.frameLocator('iframe.webview.ready').last().frameLocator('#active-frame');
  const title = () => view().locator('#traj-title');

  before(async () => {
    wb = await openVsixWorkbench({
      settings: { 'workbench.colorTheme': 'Default Dark Modern', 'workbench.startupEditor': 'none' },
      workspace,
      viewport: { width: 1440, height: 900 },
    });
  });
  closeAfter(() => wb, () => fs.rmSync(workspace, { recursive: true, force: true }));

  it('opens a *.trajectories.jsonl file in the viewer and moves with j/k and [ ]', async () => {
    await quickOpen(wb, FILE, 60_000);
    await view().locator('.bubble').first().waitFor({ state: 'visible', timeout: 60_000 });
    await title().filter({ hasText: /^Trajectory 1 of 3/ }).waitFor();
    // Group 1, trajectory 1: system, user, tool-calling choice, two tool results, a function call
    // and its result, the final answer.
    assert.equal(await view().locator('.trajectory > .bubbles > .bubble').count(), 8);
    assert.equal(await view().locator('.trajectory > .bubbles > .bubble.trainable').count(), 3);

    await view().locator('.conversation').click({ position: { x: 5, y: 5 } });
    await wb.page.keyboard.press('j');
    await title().filter({ hasText: /^Trajectory 2 of 3/ }).waitFor();
    assert.equal(await view().locator('.trajectory > .bubbles > .bubble').count(), 6);
    await wb.page.keyboard.press('k');
    await title().filter({ hasText: /^Trajectory 1 of 3/ }).waitFor();

    await wb.page.keyboard.press(']');
    await view().locator('.group-info h2', { hasText: /^Group 2/ }).waitFor();
    await view().locator('.group-info .banner.zero-variance').waitFor();
    assert.match(await view().locator('.group-info .banner.zero-variance').innerText(), /No learning signal: every trajectory has the same reward \(1\)/);
    assert.equal(await view().locator('#groups .vrow.selected .zero-variance').count(), 1, 'the group row has the badge');
    assert.equal(await view().locator('#groups .vrow:not(.selected) .zero-variance').count(), 0, 'and only that row');
    await wb.page.keyboard.press('[');
    await view().locator('.group-info h2', { hasText: /^Group 1/ }).waitFor();
    await title().filter({ hasText: /^Trajectory 1 of 3/ }).waitFor();
  });

  it('pairs each tool call with its result by id, and renders a <script> in a message as text', async () => {
    // Message 3 calls get_weather (call_0_a) then search_docs (call_0_b); the results come in the
    // other order, as messages 4 (search_docs) and 5 (get_weather).
    const weather = view().locator('#m-2-call-0');
    assert.equal(await weather.locator('.tc-name').innerText(), 'get_weather');
    assert.match(await weather.locator('.tc-result .pair-link').innerText(), /result in message 5/);
    assert.match(await weather.locator('.tc-preview').innerText(), /"temp_c":18/);
    assert.match(await view().locator('#m-2-call-1 .tc-result .pair-link').innerText(), /result in message 4/);
    assert.match(await view().locator('#m-3 .pair-link').innerText(), /result of search_docs \(call_0_b\), called in message 3/);

    const answer = view().locator('#m-7 .content.md');
    assert.match(await answer.innerText(), /<script>alert\("x"\)<\/script>/);
    assert.equal(await view().locator('.conversation script, .conversation img').count(), 0, 'no element came from the text');
    assert.equal(await answer.locator('strong', { hasText: 'Paris' }).count(), 1, 'markdown is rendered');
    assert.equal(await answer.locator('table').count(), 1);
    assert.deepEqual(await errorToasts(wb), []);
    // More room for the screenshot.
    await wb.runCommand('View: Toggle Primary Side Bar Visibility');
    await view().locator('#m-2').scrollIntoViewIfNeeded();
    await wb.screenshot(out('viewer-dark.png'));
  });

  it('reveals a message in the text editor at its line and column', async () => {
    const line = fs.readFileSync(path.join(workspace, FILE), 'utf8').split('\n')[0]!;
    const node = findNodeAtLocation(parseTree(line)!, ['trajectories', 0, 'messages_and_choices', 3])!;
    await view().locator('#m-3 button.reveal').click();
    const status = wb.page.locator('.statusbar-item', { hasText: `Ln 1, Col ${node.offset + 1}` });
    await status.first().waitFor({ state: 'visible', timeout: 30_000 });
    assert.ok(await wb.page.locator('.tab', { hasText: FILE }).count() >= 2, 'the text editor opened beside the viewer');
  });

  it('keeps its selection when the tab is hidden and shown again', async () => {
    await wb.runCommand('View: Close All Editors');
    await quickOpen(wb, FILE, 60_000);
    await title().filter({ hasText: /^Trajectory 1 of 3/ }).waitFor({ timeout: 60_000 });
    await view().locator('.conversation').click({ position: { x: 5, y: 5 } });
    await wb.page.keyboard.press(']');
    await wb.page.keyboard.press(']');
    await view().locator('.group-info h2', { hasText: /^Group 3/ }).waitFor();
    await wb.page.keyboard.press('j');
    await title().filter({ hasText: /^Trajectory 2 of 3/ }).waitFor();
    // Another editor in the same group hides the viewer; its tab brings it back.
    await quickOpen(wb, 'notes.md');
    await wb.page.locator('.tab', { hasText: FILE }).click();
    await view().locator('.group-info h2', { hasText: /^Group 3/ }).waitFor({ timeout: 30_000 });
    await title().filter({ hasText: /^Trajectory 2 of 3/ }).waitFor();
  });

  it('searches every message with /, shows the first hit on the first Enter with the word marked, and the next on the next Enter', async () => {
    await view().locator('.conversation').click({ position: { x: 5, y: 5 } });
    await wb.page.keyboard.press('/');
    await wb.page.keyboard.type('humidity');
    await wb.page.keyboard.press('Enter');
    const rows = view().locator('.results .hit-row');
    await view().locator('.search-status', { hasText: /^4 hits$/ }).waitFor({ timeout: 30_000 });
    assert.equal(await rows.count(), 4);
    assert.match(await rows.nth(2).innerText(), /Group 3 · #3 · message 6/);
    // One Enter ran the search and shows the first hit, the word marked in its message.
    await view().locator('#hit-0.current').waitFor({ timeout: 30_000 });
    const mark = view().locator('.bubble.hit mark.search-hit').first();
    await mark.waitFor({ timeout: 30_000 });
    assert.equal((await mark.innerText()).toLowerCase(), 'humidity');
    // The next Enter goes to the next hit.
    await wb.page.keyboard.press('Enter');
    await view().locator('.group-info h2', { hasText: /^Group 1/ }).waitFor();
    await title().filter({ hasText: /^Trajectory 1 of 3/ }).waitFor();
    await view().locator('#m-6.hit').waitFor();
    await view().locator('#m-6.hit mark.search-hit').first().waitFor();
    await wb.page.keyboard.press('Escape');
  });

  it('follows the light theme', async () => {
    await wb.runCommand('Preferences: Color Theme');
    const input = wb.page.locator('.quick-input-widget .quick-input-box input');
    await input.fill('Light Modern');
    await wb.page.locator('.quick-input-widget .monaco-list-row', { hasText: 'Light Modern' }).first().waitFor();
    await wb.page.keyboard.press('Enter');
    await wb.page.locator('.monaco-workbench.vs:not(.vs-dark)').waitFor({ timeout: 30_000 });
    await view().locator('body.vscode-light').waitFor({ timeout: 30_000 });
    // Runs in the page (this project has no DOM types).
    type Win = { getComputedStyle(e: unknown): { backgroundColor: string } };
    const background = await view().locator('body').evaluate((b: unknown) => (globalThis as unknown as Win).getComputedStyle(b).backgroundColor);
    assert.equal(background, 'rgb(255, 255, 255)', 'the viewer takes the theme\'s editor background');
    await view().locator('.conversation').click({ position: { x: 5, y: 5 } });
    await wb.page.keyboard.press('[');
    await wb.page.keyboard.press('[');
    await title().filter({ hasText: /^Trajectory 1 of 3/ }).waitFor();
    await wb.screenshot(out('viewer-light.png'));
  });

  it('shows an exchange trajectory as a conversation, each request with its model, duration and tokens', async () => {
    await setColorTheme(wb, 'Dark Modern');
    await wb.runCommand('View: Close All Editors');
    await quickOpen(wb, EXCHANGES, 60_000);
    await title().filter({ hasText: /^Trajectory 1 of 4/ }).waitFor({ timeout: 60_000 });
    await view().locator('.conversation').click({ position: { x: 5, y: 5 } });
    // Trajectory 2: a Responses API loop (reasoning, a function call, its output, the answer).
    await wb.page.keyboard.press('j');
    await title().filter({ hasText: /^Trajectory 2 of 4/ }).waitFor();
    const heads = view().locator('.exchange > .exchange-head');
    await heads.first().waitFor();
    assert.deepEqual(await heads.allInnerTexts(), [
      'Exchange 1 · Responses · gpt-4.1-mini · 2.00 s · 230 in · 57 out (21 reasoning) · 287 tokens',
      'Exchange 2 · Responses · gpt-4.1-mini · 2.00 s · 260 in · 12 out · 272 tokens',
    ]);
    assert.match(await view().locator('.traj-head .totals').innerText(), /^2 exchanges · 4\.00 s in requests · 490 in · 69 out \(21 reasoning\) · 559 tokens$/);
    assert.match(await view().locator('#m-2-call-0 .tc-result .pair-link').innerText(), /result in message 4/);
    assert.equal(await view().locator('.exchange .bubble.trainable').count(), 2);
    assert.deepEqual(await errorToasts(wb), []);
    await view().locator('#m-2 details.reasoning summary').click();
    await wb.screenshot(out('viewer-exchanges.png'));
  });

  it('opens a newly selected trajectory at its top, wherever the last one was scrolled to', async () => {
    await wb.runCommand('View: Close All Editors');
    await wb.page.setViewportSize({ width: 1440, height: 480 });
    try {
      await quickOpen(wb, RICH, 60_000);
      await title().filter({ hasText: /^Trajectory 1 of 6/ }).waitFor({ timeout: 60_000 });
      const conversation = view().locator('.conversation');
      await conversation.click({ position: { x: 5, y: 5 } });
      // Runs in the page (this project has no DOM types).
      type El = { scrollTop: number; scrollHeight: number; clientHeight: number };
      const bottom = await conversation.evaluate((e: unknown) => {
        const el = e as El;
        el.scrollTop = el.scrollHeight;
        return el.scrollTop;
      });
      assert.ok(bottom > 100, `the conversation scrolls (scrollTop ${bottom})`);
      await wb.page.keyboard.press('j');
      await title().filter({ hasText: /^Trajectory 2 of 6/ }).waitFor();
      // The next trajectory's conversation starts at its top.
      await poll('the conversation at its top', () => conversation.evaluate((e: unknown) => (e as El).scrollTop), (top) => top === 0, 10_000);
      // The toolbar's button keeps its label on one line at 1440 px.
      const upload = view().locator('header.bar button', { hasText: 'Upload this file…' });
      type Box = { height: number } | null;
      const box = (await upload.boundingBox()) as Box;
      const line = await upload.evaluate((e: unknown) => parseFloat((globalThis as unknown as { getComputedStyle(e: unknown): { lineHeight: string } }).getComputedStyle(e).lineHeight) || 20);
      assert.ok(box && box.height < line * 2, `one line: ${box?.height}px`);
    } finally {
      await wb.page.setViewportSize({ width: 1440, height: 900 });
    }
  });
  it('opens the least likely turn from the Logprobs panel in one click, and colours each token as the strip\'s scale says for its probability', async () => {
    await quickOpen(wb, STRIP, 60_000);
    await title().filter({ hasText: /^Trajectory 1 of 2/ }).waitFor({ timeout: 60_000 });
    await view().locator('.conversation').click({ position: { x: 5, y: 5 } });
    await wb.page.keyboard.press('j');
    await title().filter({ hasText: /^Trajectory 2 of 2/ }).waitFor();
    // The panel by its key; the least likely turn is trajectory 1's answer (a token at logprob -3;
    // trajectory 2's lowest is -2.5).
    await wb.page.keyboard.press('l');
    const first = view().locator('.logprobs-pane .worst-turn').first();
    await first.waitFor({ state: 'visible', timeout: 30_000 });
    assert.equal(await first.innerText(), 'Group 1, trajectory 1, message 2');
    assert.equal(await view().locator('.logprobs-pane svg.hist').count(), 2);
    await first.click();
    await title().filter({ hasText: /^Trajectory 1 of 2/ }).waitFor();
    const toks = view().locator('#m-1 .token-view.open .tok');
    await toks.nth(3).waitFor({ state: 'visible' });
    assert.deepEqual(await toks.allInnerTexts(), ['The', ' answer', ' is', ' 4']);

    // The fixture's logprobs: -0.01 (p 0.990), -0.2 (p 0.819), -3 (p 0.0498), -0.05 (p 0.951). Each
    // token's computed background is that of the scale's key for its probability, read from the page.
    // No DOM types in this project: the page's getComputedStyle is reached through the element's window.
    type Styled = { ownerDocument: { defaultView: { getComputedStyle(e: unknown): { backgroundColor: string } } } };
    const background = (l: ReturnType<ReturnType<typeof view>['locator']>) => l.evaluate((el: Styled) => el.ownerDocument.defaultView.getComputedStyle(el).backgroundColor);
    const key = (label: string) => background(view().locator('#m-1 .tok-key', { hasText: label }).first());
    const keys = { under001: await key('p < 0.01'), to01: await key('0.01–0.1'), to05: await key('0.1–0.5'), to09: await key('0.5–0.9'), over09: await key('≥ 0.9') };
    assert.equal(new Set(Object.values(keys)).size, 5, `the five keys differ: ${JSON.stringify(keys)}`);
    assert.notEqual(keys.to01, 'rgba(0, 0, 0, 0)', 'the scale colours p 0.01–0.1');
    assert.equal(await background(toks.nth(2)), keys.to01, '" is" (logprob -3, p 0.0498)');
    assert.equal(await background(toks.nth(1)), keys.to09, '" answer" (logprob -0.2, p 0.819)');
    assert.equal(await background(toks.nth(0)), keys.over09, '"The" (logprob -0.01, p 0.990)');
    assert.equal(await background(toks.nth(3)), keys.over09, '" 4" (logprob -0.05, p 0.951)');
    await wb.screenshot(out('viewer-logprobs.png'));
    await view().locator('.conversation').click({ position: { x: 5, y: 5 } });
    await wb.page.keyboard.press('l');
    await view().locator('.logprobs-pane').waitFor({ state: 'hidden' });
  });
});
