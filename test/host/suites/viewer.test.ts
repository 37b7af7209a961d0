// The trajectory viewer in a real host: `vscode.openWith` on every fixture shape (the official
// client's files included) gives a custom editor tab of the viewer's type, and the bubbles its
// webview reports having rendered match the file, read here independently with JSON.parse.
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import { webviewHtml } from '../../../src/ui/webview';
import { looksLikeTrajectories } from '../../../src/viewer/provider';
import { api, EXTENSION_ID, waitFor } from './helpers';
import { Prompts } from './prompts';
import { openInViewer as open, serverHooks, uploadGroupOfAgent7b, VIEW_TYPE } from './setups';

const FIXTURES = path.resolve(__dirname, '../../../test/fixtures/viewer');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-viewer-'));

type O = Record<string, unknown>;

/** A fixture copied to a temporary folder (tests may change it), keeping its relative path. */
function copy(rel: string): vscode.Uri {
  const to = path.join(dir, rel);
  fs.mkdirSync(path.dirname(to), { recursive: true });
  fs.copyFileSync(path.join(FIXTURES, rel), to);
  return vscode.Uri.file(to);
}

/** The groups of a file as the producers wrote them (independent of the viewer's reader). */
function groupsOf(file: string): O[] {
  const text = fs.readFileSync(file, 'utf8');
  if (file.endsWith('.jsonl')) {
    return text
      .split('\n')
      .filter((l) => l.trim())
      .map((l) => {
        try {
          const v = JSON.parse(l) as O;
          return Array.isArray(v.trajectories) ? v : { trajectories: [v] };
        } catch {
          return { trajectories: [] };
        }
      });
  }
  const v = JSON.parse(text) as unknown;
  if (Array.isArray(v)) return v as O[];
  const o = v as O;
  return Array.isArray(o.trajectory_groups) ? (o.trajectory_groups as O[]) : [o];
}

/** What a bubble should say: the message's role and its content's text. */
function expected(item: O): { role: string; text: string; trainable: boolean } {
  const trainable = !('role' in item);
  const msg = (trainable ? item.message : item) as O;
  const c = msg.content;
  const text = typeof c === 'string' ? c : Array.isArray(c) ? c.map((p) => String((p as { text?: string }).text ?? '')).join('\n') : '';
  return { role: String(msg.role), text, trainable };
}

/** Markdown renders to text without its syntax: compare the rest, whitespace aside. */
const words = (s: string) => s.replace(/[*_`|#>[\]()!-]|\s/g, '');

async function closeAll(): Promise<void> {
  await vscode.commands.executeCommand('workbench.action.closeAllEditors');
}

describe('trajectory viewer', function () {
  this.timeout(60_000);
  afterEach(closeAll);
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  const shapes = [
    'art-model-dump.trajectories.jsonl',
    '.art/weather/models/agent-7b/trajectories/train/0001.jsonl',
    'request.trajectories.json',
    'array.json',
    'single-group.json',
    'mixed.jsonl',
  ];
  for (const rel of shapes) {
    it(`opens ${rel} as a custom editor whose bubbles match the file`, async () => {
      const uri = copy(rel);
      const session = await open(uri);
      const tab = vscode.window.tabGroups.activeTabGroup.activeTab;
      assert.ok(tab?.input instanceof vscode.TabInputCustom, `the tab is a custom editor (${tab?.label})`);
      assert.strictEqual(tab.input.viewType, VIEW_TYPE);
      assert.strictEqual(tab.input.uri.toString(), uri.toString());

      const groups = groupsOf(uri.fsPath);
      await session.whenIndexed();
      assert.strictEqual(session.index!.groups, groups.length, 'one group per group of the file');
      const report = session.lastRendered!;
      assert.strictEqual(report.group, 0);
      assert.strictEqual(report.trajectory, 0);
      const items = ((groups[0]!.trajectories as O[])[0]!.messages_and_choices as O[]).map(expected);
      assert.deepStrictEqual(
        report.bubbles.map((b) => [b.role, b.trainable]),
        items.map((e) => [e.role, e.trainable]),
        'one bubble per message, same roles, choices marked trainable',
      );
      report.bubbles.forEach((b, i) => {
        const e = items[i]!;
        // An image is never loaded: it shows as "[image: alt] address".
        if (e.role === 'assistant') assert.strictEqual(words(b.text.replace(/\[image: /g, '[')), words(e.text), `message ${i + 1}`);
        else assert.strictEqual(b.text, e.text, `message ${i + 1}`);
      });
    });
  }

  it('moves to any group and trajectory, and reports what the file holds there', async () => {
    const uri = copy('art-model-dump.trajectories.jsonl');
    const session = await open(uri);
    const groups = groupsOf(uri.fsPath);
    session.select(2, 2);
    await waitFor('group 3, trajectory 3', () => session.lastRendered?.group === 2 && session.lastRendered.trajectory === 2);
    const items = ((groups[2]!.trajectories as O[])[2]!.messages_and_choices as O[]).map(expected);
    assert.deepStrictEqual(session.lastRendered!.bubbles.map((b) => b.role), items.map((e) => e.role));
    assert.strictEqual(session.index!.row(1).stats.zeroVariance, true, 'group 2 gives no learning signal');
    assert.strictEqual(session.index!.row(1).stats.exceptions, 1);
  });

  it('offers "Open in Trajectory Viewer" on JSON files that hold trajectories, and opens them from the command', async () => {
    const uri = copy('array.json');
    const other = path.join(dir, 'settings.json');
    fs.writeFileSync(other, '{"editor.tabSize": 2}\n');
    assert.strictEqual(looksLikeTrajectories(await vscode.workspace.openTextDocument(uri)), true);
    assert.strictEqual(looksLikeTrajectories(await vscode.workspace.openTextDocument(vscode.Uri.file(other))), false);
    await vscode.window.showTextDocument(uri);
    await vscode.commands.executeCommand('svc.openTrajectoryViewer');
    await waitFor('the viewer of the active file', async () => (await api()).viewer.sessionsFor(uri).length === 1);
    const tab = vscode.window.tabGroups.activeTabGroup.activeTab;
    assert.ok(tab?.input instanceof vscode.TabInputCustom && tab.input.viewType === VIEW_TYPE);
  });

  it('serves the webview under a strict CSP: its bundle only, by nonce, nothing inline without it', () => {
    const ext = vscode.extensions.getExtension(EXTENSION_ID)!;
    const webview = { cspSource: 'https://webview.test', asWebviewUri: (u: vscode.Uri) => u } as unknown as vscode.Webview;
    const html = webviewHtml(webview, ext.extensionUri, { entry: 'viewer', title: '<img src=x onerror=alert(1)>' });
    const csp = /http-equiv="Content-Security-Policy" content="([^"]+)"/.exec(html)![1]!;
    const nonce = /script-src 'nonce-([^']+)'/.exec(csp)![1]!;
    assert.match(csp, /^default-src 'none'; /);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|\*|http:/);
    const scripts = [...html.matchAll(/<script([^>]*)>/g)].map((m) => m[1]!);
    assert.ok(scripts.length === 1 && scripts[0]!.includes(`nonce="${nonce}"`), 'one script, under the nonce');
    assert.ok(html.includes(`<style nonce="${nonce}">`), 'the stylesheet, under the nonce');
    assert.ok(!html.includes('<img'), 'the title is escaped');
    assert.notStrictEqual(nonce, /script-src 'nonce-([^']+)'/.exec(webviewHtml(webview, ext.extensionUri, { entry: 'viewer', title: 't' }))![1], 'a fresh nonce each time');
  });

  it('shows the validation problems of the file on their groups', async () => {
    const session = await open(copy('mixed.jsonl'));
    await waitFor('validation', () => !session.validating && session.problemsOf(3).length > 0, 20_000);
    assert.match(session.problemsOf(3).map((p) => p.message).join('\n'), /reward/);
    assert.ok(session.problemsOf(3).every((p) => p.line === 5), 'line 5 holds group 4');
    assert.ok(session.problemsOf(2).length > 0, 'the invalid JSON on line 4 is a problem of group 3');
    assert.match(session.index!.row(2).invalid ?? '', /Invalid JSON/);
  });

  it('follows edits of the document live, before they are saved', async () => {
    const uri = copy('single-group.json');
    const session = await open(uri);
    assert.strictEqual(session.index!.row(0).stats.max, 1);
    const renderedBefore = session.lastRendered!.at;
    const doc = await vscode.workspace.openTextDocument(uri);
    const at = doc.getText().indexOf('"reward": 1');
    assert.ok(at > 0);
    const edit = new vscode.WorkspaceEdit();
    edit.replace(uri, new vscode.Range(doc.positionAt(at), doc.positionAt(at + '"reward": 1'.length)), '"reward": 7');
    assert.ok(await vscode.workspace.applyEdit(edit));
    assert.ok(doc.isDirty);
    await waitFor('the view to follow the edit', () => session.index?.done === true && session.index.row(0).stats.max === 7, 10_000);
    await waitFor('the webview to render the new version', () => session.lastRendered!.at > renderedBefore && session.lastRendered!.trajectory === 0);
    await vscode.commands.executeCommand('workbench.action.files.revert');
  });

  it('shows exchange trajectories (current ART) as conversations: request, then response, each exchange with model, duration and tokens', async () => {
    const uri = copy('art-exchanges.trajectories.jsonl');
    const session = await open(uri);
    await session.whenIndexed();
    const groups = groupsOf(uri.fsPath);
    assert.strictEqual(session.index!.groups, groups.length);
    // Read independently: trajectory 1 of group 1 is a Chat Completions agent loop of two requests;
    // the second repeats the first request and the call, so only the tool result and the answer are new.
    const [first, second] = ((groups[0]!.trajectories as O[])[0]!.exchanges as O).chat_completions as O[];
    const choice = (x: O) => ((x.response as O).choices as O[])[0]!;
    const messages = (x: O) => (x.request as O).messages as O[];
    const items = [...messages(first!), choice(first!), ...messages(second!).slice(messages(first!).length + 1), choice(second!)].map(expected);
    let report = session.lastRendered!;
    assert.deepStrictEqual(report.bubbles.map((b) => [b.role, b.trainable]), items.map((e) => [e.role, e.trainable]));
    report.bubbles.forEach((b, i) => {
      if (items[i]!.role === 'assistant') assert.strictEqual(words(b.text), words(items[i]!.text), `message ${i + 1}`);
      else assert.strictEqual(b.text, items[i]!.text, `message ${i + 1}`);
    });
    const usage = (x: O) => (x.response as O).usage as O;
    assert.deepStrictEqual(report.exchanges, [first, second].map((x, i) => `Exchange ${i + 1} · Chat Completions · ${String(x!.model)} · 2.00 s · ${String(usage(x!).prompt_tokens)} in · ${String(usage(x!).completion_tokens)} out · ${String(usage(x!).total_tokens)} tokens`));
    assert.strictEqual(report.totals, '2 exchanges · 4.00 s in requests · 100 in · 40 out · 140 tokens');

    // The Anthropic loop: content blocks, a tool_result answering a tool_use.
    session.select(0, 2);
    await waitFor('group 1, trajectory 3', () => session.lastRendered?.group === 0 && session.lastRendered.trajectory === 2);
    report = session.lastRendered!;
    assert.deepStrictEqual(report.bubbles.map((b) => b.role), ['system', 'user', 'assistant', 'tool', 'assistant']);
    assert.strictEqual(report.bubbles[3]!.text, '18 °C, clear');
    assert.match(report.exchanges![0]!, /^Exchange 1 · Anthropic Messages · claude-sonnet-4-5 · 2\.00 s · 438 in \(128 cached\) · 96 out · 534 tokens$/);

    // A compact group with only an exception (no `trajectories`): an empty group, not an error.
    session.select(3);
    await waitFor('group 4', () => session.lastRendered?.group === 3);
    assert.strictEqual(session.lastRendered!.trajectory, undefined);
    assert.strictEqual(session.index!.row(3).invalid, undefined);
    assert.strictEqual(session.index!.row(3).stats.exceptions, 1);

    // An exchange's message is revealed where it is in the file: the tool result of trajectory 1
    // sits in the second request's messages.
    await session.reveal({ group: 0, trajectory: 0, path: ['exchanges', 'chat_completions', 1, 'request', 'messages', 3] });
    await waitFor('a text editor of the file', () => vscode.window.activeTextEditor?.document.uri.toString() === uri.toString());
    const editor = vscode.window.activeTextEditor!;
    const pos = editor.selection.active;
    assert.strictEqual(pos.line, 0);
    assert.ok(editor.document.lineAt(0).text.slice(pos.character).startsWith('{"role":"tool","tool_call_id":"call_z1"'), editor.document.lineAt(0).text.slice(pos.character, pos.character + 60));
  });

  it('shows a group of only exceptions in the main pane: each type, message and traceback, open and as text', async () => {
    // Written with JSON.stringify, as the client's JSONL step files are one JSON object per line.
    const file = path.join(dir, 'exceptions-only.trajectories.jsonl');
    const exceptions = [
      { type: "<class 'TimeoutError'>", message: 'rollout timed out', traceback: 'Traceback (most recent call last):\n  File "rollout.py", line 12, in run\nTimeoutError: rollout timed out\n' },
      { type: "<class 'ValueError'>", message: 'bad <img src=x onerror="alert(1)"> & <b>bold</b>', traceback: 'Traceback (most recent call last):\n  <script>alert(2)</script>\nValueError: bad\n' },
    ];
    const lines = [{ trajectories: [{ messages_and_choices: [{ role: 'user', content: 'hello' }], reward: 1 }] }, { exceptions }];
    fs.writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    const uri = vscode.Uri.file(file);
    const session = await open(uri);
    await session.whenIndexed();
    session.select(1);
    await waitFor('group 2', () => session.lastRendered?.group === 1);
    const report = session.lastRendered!;
    assert.strictEqual(report.trajectory, undefined);
    // Only what is rendered counts (innerText leaves out a closed disclosure's body).
    const pane = report.pane ?? '';
    assert.match(pane, /This group has no trajectories: its rollouts raised 2 exceptions\./);
    for (const x of exceptions) {
      assert.ok(pane.includes(`${x.type}: ${x.message}`), `type and message of ${x.type} in ${JSON.stringify(pane)}`);
      for (const line of x.traceback.trim().split('\n')) assert.ok(pane.includes(line), `traceback line ${JSON.stringify(line)} in ${JSON.stringify(pane)}`);
    }
    // Markup in a message stays text: were it parsed, the tags would not be in the text.
    assert.ok(pane.includes('<img src=x onerror="alert(1)">') && pane.includes('<script>alert(2)</script>'));
  });

  it('reveals a message at its exact line and column in the text editor', async () => {
    const uri = copy('request.trajectories.json');
    const session = await open(uri);
    await session.reveal({ group: 2, trajectory: 1, message: 3 });
    await waitFor('a text editor of the file', () => vscode.window.activeTextEditor?.document.uri.toString() === uri.toString());
    const editor = vscode.window.activeTextEditor!;
    const pos = editor.selection.active;
    const line = editor.document.lineAt(pos.line).text;
    assert.strictEqual(line.slice(pos.character).trim(), '{', 'the selection sits on the message object');
    assert.strictEqual(editor.document.lineAt(pos.line + 1).text.trim(), '"role": "tool",');
    const group = JSON.parse(editor.document.getText()).trajectory_groups[2];
    assert.strictEqual(group.trajectories[1].messages_and_choices[3].role, 'tool');
  });

  it('searches every message of the file', async () => {
    const session = await open(copy('art-model-dump.trajectories.jsonl'));
    const hits = await session.search('humidity');
    // The full-variant trajectories (group 1 #1, group 3 #3) ask for humidity in a function call and get it back.
    assert.deepStrictEqual(
      hits.map((h) => [h.group, h.trajectory, h.message]),
      [
        [0, 0, 5],
        [0, 0, 6],
        [2, 2, 5],
        [2, 2, 6],
      ],
    );
    assert.deepStrictEqual(await session.search('no such words anywhere'), []);
  });

  it('compares two trajectories as transcripts in the diff editor', async () => {
    const session = await open(copy('art-model-dump.trajectories.jsonl'));
    await session.compare({ group: 0, trajectory: 0 }, { group: 0, trajectory: 1 });
    await waitFor('a diff tab', () => vscode.window.tabGroups.activeTabGroup.activeTab?.input instanceof vscode.TabInputTextDiff);
    const input = vscode.window.tabGroups.activeTabGroup.activeTab!.input as vscode.TabInputTextDiff;
    const left = (await vscode.workspace.openTextDocument(input.original)).getText();
    const right = (await vscode.workspace.openTextDocument(input.modified)).getText();
    assert.match(left, /^# art-model-dump\.trajectories\.jsonl · group 1 · trajectory 1/);
    assert.match(left, /reward: 0\.9/);
    assert.match(right, /reward: 0\.2/);
    assert.match(left, /## 4\. tool result of search_docs \(call_0_b\)/);
  });

  it('Compare with… → Another group… lists the other groups with their size and mean reward, then that group\'s trajectories', async () => {
    const session = await open(copy('art-model-dump.trajectories.jsonl'));
    const prompts = new Prompts().script({ pick: 'Another group…' }, { pick: 'Group 3', title: /Compare with a trajectory of group/ }, { pick: 'Trajectory 2' });
    try {
      await session.compare({ group: 0, trajectory: 0 });
      prompts.assertDone();
      const groups = prompts.shown[1]!;
      assert.strictEqual(groups.kind, 'quickPick');
      assert.deepStrictEqual(groups.items, ['Group 2', 'Group 3']);
      assert.deepStrictEqual(groups.descriptions, ['2 trajectories · mean reward 1', '3 trajectories · mean reward 0.25']);
      assert.ok(!prompts.shown.some((p) => p.kind === 'inputBox'), 'no group number to type');
    } finally {
      prompts.dispose();
    }
    await waitFor('a diff tab', () => vscode.window.tabGroups.activeTabGroup.activeTab?.input instanceof vscode.TabInputTextDiff);
    const input = vscode.window.tabGroups.activeTabGroup.activeTab!.input as vscode.TabInputTextDiff;
    assert.match((await vscode.workspace.openTextDocument(input.modified)).getText(), /^# art-model-dump\.trajectories\.jsonl · group 3 · trajectory 2/);
  });

  describe('uploads', () => {
    const s = serverHooks({ prompts: true });

    it('"Upload this group…" sends just that group, as written in the file', async () => {
      const uri = copy('array.json');
      const session = await open(uri);
      s.prompts.script({ type: 'viewer-model' }, { pick: 'train' });
      const report = await session.uploadGroup(0);
      assert.strictEqual(report?.status, 'done');
      s.prompts.assertDone();
      assert.strictEqual(s.server.store.logs.length, 1);
      assert.deepStrictEqual(s.server.store.logs[0]!.body.trajectory_groups, [groupsOf(uri.fsPath)[0]]);
      assert.strictEqual(s.server.store.logs[0]!.body.split, 'train');
    });

    it('"Upload this group…" of an official-client step file proposes its model and sends the line unchanged', async () => {
      const uri = copy('.art/weather/models/agent-7b/trajectories/train/0001.jsonl');
      const session = await open(uri);
      await waitFor('validation', () => !session.validating, 20_000);
      assert.deepStrictEqual(session.problemsOf(1), [], 'the official client\'s group validates clean');
      await uploadGroupOfAgent7b(s, session, 1);
      const line = fs.readFileSync(uri.fsPath, 'utf8').split('\n')[1]!;
      assert.deepStrictEqual(s.server.store.logs[0]!.body.trajectory_groups, [JSON.parse(line)], 'exactly the file\'s second group, unknown fields and nulls included');
    });

    it('refuses to upload a group with problems and sends nothing', async () => {
      const session = await open(copy('mixed.jsonl'));
      await waitFor('validation', () => !session.validating && session.problemsOf(3).length > 0, 20_000);
      s.prompts.answer(/group 4 .* nothing was sent/, () => undefined);
      assert.strictEqual(await session.uploadGroup(3), undefined);
      assert.ok(s.prompts.messages('error').some((m) => /group 4 \(line 5\) has \d+ problem/.test(m.title)));
      assert.strictEqual(s.server.store.logs.length, 0);
    });
  });
});
