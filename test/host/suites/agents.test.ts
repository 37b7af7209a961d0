import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import { findTool, prepareTool, runTool, TOOLS } from '../../../src/agents/core/tools';
import { languageModelTool } from '../../../src/agents/lmTools';
import { mcpEnvironment } from '../../../src/agents/mcpConfig';
import { dump, EXCEPTION, GROUP, TRAJECTORY } from '../../fixtures/art/producers';
import type { ReferenceServer } from '../../server';
import { api, configure, connect, endSuite, exportsOf, KEY, PROJECT, signIn, signOut, startServer, waitFor } from './helpers';

const TOOL_NAMES = TOOLS.map((t) => t.name);
// In the workspace folder: the read tools read files there without asking (outside it, the
// confirmation would stop vscode.lm.invokeTool).
const workspaceFolder = vscode.workspace.workspaceFolders?.find((f) => f.uri.scheme === 'file')?.uri.fsPath;
const dir = fs.mkdtempSync(path.join(workspaceFolder ?? os.tmpdir(), 'svc-agents-'));

/** The text of a tool's result, as a model receives it. */
async function invoke(name: string, input: object): Promise<string> {
  const cancel = new vscode.CancellationTokenSource();
  try {
    const result = await vscode.lm.invokeTool(name, { input, toolInvocationToken: undefined }, cancel.token);
    return result.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('');
  } finally {
    cancel.dispose();
  }
}

/** Rewards 0.2 and 0.8 with one exception; then a group whose rewards are all 0.5 (ART's dump: every field present). */
function trajectoryFile(): string {
  const file = path.join(dir, '0003.jsonl');
  const t = dump(TRAJECTORY);
  const groups = [
    { ...dump(GROUP), trajectories: [{ ...t, reward: 0.2 }, { ...t, reward: 0.8 }], exceptions: [dump(EXCEPTION)] },
    { ...dump(GROUP), trajectories: [{ ...t, reward: 0.5 }, { ...t, reward: 0.5 }, { ...t, reward: 0.5 }], exceptions: [] },
  ];
  fs.writeFileSync(file, groups.map((g) => JSON.stringify(g)).join('\n') + '\n');
  return file;
}

describe('agent tools (language model tools)', () => {
  let server: ReferenceServer;
  before(async () => {
    server = await startServer();
    // 60 threads of 2 turns, then 3 threads of 5 turns: 63 threads, the three longest known.
    server.seedThreads(PROJECT, 60, { turnsPerThread: 2, threadIdPrefix: 'short-' });
    server.seedThreads(PROJECT, 3, { turnsPerThread: 5, threadIdPrefix: 'long-', start: '2026-02-01T00:00:00Z' });
    // Reward rises to step 200, then stays at 0.9: the best is step 200, the latest 300, a plateau.
    server.addCheckpoints('agent-7b', 30, { stepSize: 10, metrics: (step) => ({ 'train/reward': step <= 200 ? step / 200 - 0.1 : 0.9, 'train/reward_std_dev': step >= 280 ? 0 : 0.2, 'loss/train': 1 - step / 1000 }) });
    await connect(server);
  });
  after(async () => {
    await endSuite(server);
  });

  it('lists every tool of TOOLS in vscode.lm.tools, each with a description and an input schema', async () => {
    await api();
    const ours = vscode.lm.tools.filter((t) => t.name.startsWith('svc_'));
    assert.deepStrictEqual(ours.map((t) => t.name).sort(), [...TOOL_NAMES].sort());
    for (const t of ours) {
      assert.strictEqual(t.description, findTool(t.name)!.description, t.name);
      assert.strictEqual((t.inputSchema as { type?: string }).type, 'object', t.name);
    }
  });

  it('svc_list_threads returns the rows with turns, durations and turn refs, and the total', async () => {
    const text = await invoke('svc_list_threads', { sortBy: 'turn_count', direction: 'desc', limit: 3 });
    assert.match(text, /^63 threads \(project acme\/chatbot, sorted by turn_count desc\)/);
    const rows = text.split('\n').filter((l) => l.startsWith('| long-'));
    assert.strictEqual(rows.length, 3, text);
    for (const row of rows) {
      const cells = row.split('|').map((c) => c.trim());
      assert.strictEqual(cells[2], '5', 'turns');
      assert.strictEqual(cells[3], '500', 'p50 ms');
      assert.match(cells[7]!, /^svc:\/\/\/acme\/chatbot\/call\/long-\d-turn-0$/);
      assert.match(cells[8]!, /^svc:\/\/\/acme\/chatbot\/call\/long-\d-turn-4$/);
    }
    assert.match(text, /Showing first 3 of 63 threads; pass offset 3 for more\./);
    const next = await invoke('svc_list_threads', { sortBy: 'turn_count', direction: 'desc', limit: 100, offset: 60 });
    assert.strictEqual(next.split('\n').filter((l) => l.startsWith('| short-')).length, 3);
    assert.doesNotMatch(next, /Showing/);
  });

  it('svc_list_checkpoints names the best and the latest checkpoint', async () => {
    const text = await invoke('svc_list_checkpoints', { modelId: 'agent-7b', limit: 5 });
    assert.match(text, /^Model "agent-7b": 30 checkpoints, steps 10–300\./);
    assert.match(text, /Latest: step 300 \(train\/reward 0\.9\)/);
    assert.match(text, /Best by train\/reward \(higher is better\): step 200 \(0\.9\)/);
    assert.deepStrictEqual(text.split('\n').filter((l) => /^\| \d/.test(l)).map((l) => l.split('|')[1]!.trim()), ['300', '290', '280', '270', '260']);
    assert.match(text, /Showing first 5 of 30 checkpoints/);
  });

  it('svc_list_checkpoints says which model was not found', async () => {
    assert.match(await invoke('svc_list_checkpoints', { modelId: 'no-such-model' }), /Model "no-such-model" was not found on http:\/\/127\.0\.0\.1:\d+ \(HTTP 404\)/);
  });

  it('svc_summarize_run gives the trend, best and latest, and the reward spread of the run', async () => {
    const text = await invoke('svc_summarize_run', { modelId: 'agent-7b' });
    assert.match(text, /Reward trend \(train\/reward, last 10 values, steps 210–300\): plateau\./);
    assert.match(text, /Best train\/reward: 0\.9 at step 200\. Latest: 0\.9 at step 300\./);
    assert.match(text, /train\/reward_std_dev: .*exactly 0 at 3 of 30 steps/);
  });

  it('svc_summarize_run reads a history.jsonl: steps merged, a vanished metric and a NaN named', async () => {
    const file = path.join(dir, 'history.jsonl');
    const lines: string[] = [];
    for (let step = 1; step <= 12; step++) {
      lines.push(JSON.stringify({ 'train/reward': 0.1 * step, ...(step <= 4 ? { 'train/exception_rate': 0.1 } : {}), step, training_step: step, recorded_at: '2026-11-24T10:00:00' }));
      lines.push(step === 7 ? `{"val/reward": NaN, "step": 7, "recorded_at": "2026-11-24T10:00:01"}` : JSON.stringify({ 'val/reward': 0.05 * step, step, recorded_at: '2026-11-24T10:00:01' }));
    }
    fs.writeFileSync(file, lines.join('\n') + '\n');
    const text = await invoke('svc_summarize_run', { historyFile: file });
    assert.match(text, /24 lines\): 12 steps with metrics, steps 1–12, 3 metrics\./);
    assert.match(text, /Reward trend \(train\/reward, last 10 values, steps 3–12\): improving\./);
    assert.match(text, /train\/exception_rate \(last at step 4, in 4 steps\)/);
    assert.match(text, /Non-finite values \(NaN or infinite\): val\/reward at steps 7\./);
  });

  it('svc_summarize_trajectories gives per group rewards, the zero-variance flag, exceptions and time', async () => {
    const text = await invoke('svc_summarize_trajectories', { file: trajectoryFile() });
    assert.match(text, /JSONL, .*2 groups, 5 trajectories\./);
    assert.match(text, /Validation: no problems/);
    assert.match(text, /Zero-variance groups \(two or more trajectories, all rewards equal: no learning signal; a group of one is not counted, it has no variance to learn from\): 1 of 2\. Groups with exceptions: 1 \(1 exceptions\)\./);
    const rows = text.split('\n').filter((l) => /^\| \d/.test(l)).map((l) => l.split('|').slice(1, -1).map((c) => c.trim()));
    assert.deepStrictEqual(rows[0]!.slice(0, 9), ['0', '1', '2', '0.5', '0.3', '0.2', '0.8', 'no', '1']);
    assert.deepStrictEqual(rows[1]!.slice(0, 9), ['1', '2', '3', '0.5', '0', '0.5', '0.5', 'yes', '0']);
    assert.strictEqual(rows[0]![9], '2.5', 'time: the duration metric summed (1.25 s twice)');
  });

  it('svc_explain_trajectory says why ART does not train on a trajectory, with its advantage and the ART rule', async () => {
    const file = path.resolve(__dirname, '../../../test/fixtures/trainability/step.jsonl');
    const text = await invoke('svc_explain_trajectory', { file, group: 3, trajectory: 0 });
    assert.match(text, /group 3 \(line 4\), trajectory 0 of 2: ART does not train on it: no logprobs\./);
    assert.match(text, /Advantage: reward 1 − group mean 0\.5 = 0\.5; over std 0\.5 \+ 1e-6 \(scale_rewards=True, ART's default\) = 0\.999998\./);
    assert.match(text, /allow_training_without_logprobs/);
    assert.match(text, /OpenPipe\/ART@e8f1ffc3/);
    const summary = await invoke('svc_summarize_trajectories', { file });
    assert.match(summary, /ART training \(its default settings\): Of 17 trajectories, 7 will train;/);
  });

  it('svc_summarize_trajectories lists validation problems with line and column', async () => {
    const file = path.join(dir, 'bad.jsonl');
    fs.writeFileSync(file, `${JSON.stringify({ trajectories: [{ ...dump(TRAJECTORY), reward: 'high' }] })}\n{"trajectories": [}\n`);
    const text = await invoke('svc_summarize_trajectories', { file });
    assert.match(text, /Validation: 2 errors/);
    assert.match(text, /error at line 1, column \d+: .*reward/);
    assert.match(text, /error at line 2, column \d+: Invalid JSON/);
  });

  it("svc_attach_feedback's confirmation names the host, the ref and the content, and nothing is sent before it", async () => {
    const a = await api();
    const ref = `svc:///${PROJECT}/call/long-0-turn-4`;
    const before = server.store.feedback.length;
    const prepared = await prepareTool(a.agentHost, findTool('svc_attach_feedback')!, { ref, note: 'wrong tool picked at turn 4' });
    assert.ok(prepared.confirmation, 'a write confirms first');
    const message = prepared.confirmation.message;
    assert.ok(message.includes(server.url), message);
    assert.ok(message.includes(ref), message);
    assert.ok(message.includes('svc.note.1') && message.includes('"note":"wrong tool picked at turn 4"'), message);
    assert.strictEqual(server.store.feedback.length, before);
  });

  it("svc_upload_trajectories's confirmation names the host, model, split, files, groups and bytes", async () => {
    const a = await api();
    const file = trajectoryFile();
    const prepared = await prepareTool(a.agentHost, findTool('svc_upload_trajectories')!, { files: [file], modelId: 'agent-7b', split: 'train' });
    const message = prepared.confirmation!.message;
    assert.ok(message.includes(server.url), message);
    assert.match(message, /2 trajectory groups \(5 trajectories, [\d.]+ KB\) from 1 files to model agent-7b, split train/);
    assert.ok(message.includes(`${file}: 2 groups, 5 trajectories`), message);
    assert.strictEqual(server.store.logs.length, 0);
  });

  it("svc_upload_trajectories runs the upload job: the file is logged once, the API's onDidFinishUpload hears of it, and the same content again is refused", async () => {
    const a = await api();
    const file = path.join(dir, 'agent-job.jsonl');
    fs.writeFileSync(file, fs.readFileSync(trajectoryFile()));
    const heard: { modelId: string; status: string; groups: number }[] = [];
    const sub = (await exportsOf()).getApi(1).onDidFinishUpload((e) => heard.push({ modelId: e.modelId, status: e.status, groups: e.files.reduce((n, f) => n + f.groupsSent, 0) }));
    try {
      const tool = findTool('svc_upload_trajectories')!;
      const before = server.store.logs.length;
      const r = await runTool(a.agentHost, tool, { files: [file], modelId: 'agent-job', split: 'train' });
      assert.strictEqual(r.isError, false, r.text);
      assert.match(r.text, /: 2 groups, 5 trajectories from 1 files \(what the service logged\)\./);
      assert.strictEqual(server.store.logs.length, before + 1);
      assert.deepStrictEqual(heard, [{ modelId: 'agent-job', status: 'done', groups: 2 }]);
      const again = await runTool(a.agentHost, tool, { files: [file], modelId: 'agent-job', split: 'train' });
      assert.strictEqual(again.isError, true);
      assert.match(again.text, /agent-job\.jsonl \(this content\) was already uploaded to agent-job \(train\) on .* UTC: 2 groups\. Pass allowRepeat: true/);
      assert.strictEqual(server.store.logs.length, before + 1, 'nothing more was sent');
    } finally {
      sub.dispose();
    }
  });

  it('read tools show an invocation message and ask no confirmation', async () => {
    const a = await api();
    for (const t of TOOLS.filter((x) => !x.write)) {
      const prepared = await prepareTool(a.agentHost, t, { modelId: 'agent-7b', file: 'x.jsonl' });
      assert.strictEqual(prepared.confirmation, undefined, t.name);
      assert.ok(prepared.progress, t.name);
    }
  });

  // Issue 28, item 6: the read tools read any absolute path without asking.
  it('a read tool asks before it reads a file outside the workspace folders, naming it; a file inside asks nothing', async () => {
    const a = await api();
    assert.ok(workspaceFolder, 'the host tests open a workspace folder');
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-agents-outside-'));
    const far = path.join(outside, 'history.jsonl');
    fs.writeFileSync(far, '{"train/reward": 0.5, "step": 1}\n');
    const near = path.join(dir, 'near-history.jsonl');
    fs.writeFileSync(near, '{"train/reward": 0.5, "step": 1}\n');
    try {
      const t = findTool('svc_summarize_run')!;
      const asked = await prepareTool(a.agentHost, t, { historyFile: far });
      assert.ok(asked.confirmation, 'a file outside the workspace is confirmed first');
      assert.ok(asked.confirmation.message.includes(fs.realpathSync(far)), asked.confirmation.message);
      assert.match(asked.confirmation.message, /outside the workspace folders/);
      assert.strictEqual((await prepareTool(a.agentHost, t, { historyFile: near })).confirmation, undefined);
      assert.strictEqual((await prepareTool(a.agentHost, t, { historyFile: path.relative(workspaceFolder!, near) })).confirmation, undefined);
      // The language model tool itself: its prepareInvocation returns the confirmation VS Code shows.
      const tool = languageModelTool(a.agentHost, t);
      const prepared = await tool.prepareInvocation!({ input: { historyFile: far } }, new vscode.CancellationTokenSource().token);
      const message = (prepared as vscode.PreparedToolInvocation).confirmationMessages?.message;
      assert.match(typeof message === 'string' ? message : (message?.value ?? ''), /outside the workspace folders/);
    } finally {
      fs.rmSync(outside, { recursive: true, force: true });
    }
  });

  it('says how to sign in when signed out, and asks nothing', async () => {
    const a = await api();
    await signOut();
    await waitFor('signed out', () => a.connection.state === 'signedOut');
    try {
      const text = await invoke('svc_list_checkpoints', { modelId: 'agent-7b' });
      assert.match(text, /Not signed in to http:\/\/127\.0\.0\.1:\d+\. Run the command "svc: Sign In" \(svc\.signIn\)/);
    } finally {
      await signIn();
      await waitFor('signed in', () => a.connection.state === 'signedIn');
    }
  });

  it('answers wrong input with a text naming the field, not an exception', async () => {
    const text = await invoke('svc_list_threads', { limit: 'many' });
    assert.match(text, /svc_list_threads: the input is not valid\.\n- limit: /);
  });

  it('Copy MCP Server Configuration names the key as SVC_API_KEY, never its value', async () => {
    const text = await vscode.commands.executeCommand<string>('svc.copyMcpConfig');
    assert.strictEqual(await vscode.env.clipboard.readText(), text);
    assert.ok(!text.includes(KEY), 'no key on the clipboard');
    assert.ok(text.includes('"SVC_API_KEY": "${env:SVC_API_KEY}"') && text.includes('"SVC_API_KEY": "${SVC_API_KEY}"'), text);
    assert.ok(text.includes(`"SVC_BASE_URL": "${server.url}"`) && text.includes(`"SVC_PROJECT": "${PROJECT}"`), text);
    assert.match(text, /dist[\\/]mcp\.js"/);
  });

  it('the MCP server VS Code starts gets the URLs and the signed-in key in its environment', async () => {
    const a = await api();
    const env = await mcpEnvironment(a.connection, a.log);
    assert.deepStrictEqual(env, { SVC_MCP_CLIENT: 'vscode', SVC_BASE_URL: server.url, SVC_PROJECT: PROJECT, SVC_API_KEY: '', SVC_USERNAME: 'api', SVC_PASSWORD: KEY, SVC_ACCESS_TOKEN: KEY });
  });

  it('sends no key to a model host that needs an approval first: the tool says so, the MCP environment has none', async () => {
    const a = await api();
    const models = await startServer();
    models.addCheckpoints('agent-7b', 2);
    try {
      await configure({ trainingBaseUrl: models.url });
      await waitFor('the model endpoints on the other server', () => a.connection.originOf('training') === new URL(models.url).origin);
      const text = await invoke('svc_list_checkpoints', { modelId: 'agent-7b' });
      assert.match(text, /svc did not send your key to http:\/\/127\.0\.0\.1:\d+: that needs your approval/);
      const env = await mcpEnvironment(a.connection, a.log);
      assert.ok(!Object.values(env).includes(KEY), 'no key for a server that would send it to the other host');
      assert.strictEqual(models.stats.requests.filter((r) => r.authScheme !== 'none').length, 0, 'nothing with a key reached the other host');
    } finally {
      await configure({ trainingBaseUrl: undefined });
      await waitFor('the model endpoints back', () => a.connection.originOf('training') === new URL(server.url).origin);
      await models.close();
    }
  });
});
