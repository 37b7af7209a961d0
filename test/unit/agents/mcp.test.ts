// The MCP server (src/agents/mcp/main.ts, bundled as dist/mcp.js) driven by the SDK's own client over
// stdio, against the reference service. The server runs from source (tsx), in its own process.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import * as assert from 'node:assert';
import { spawnSync, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { inputSchemaOf, TOOLS } from '../../../src/agents/core/tools';
import { startReferenceServer, type ReferenceServer } from '../../server';

const KEY = 'mcp-test-key-0123456789abcdef';
const PROJECT = 'acme/bot';
const root = path.resolve(__dirname, '../../..');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-mcp-'));

interface Session {
  client: Client;
  transport: StdioClientTransport;
  stderr: () => string;
}

/** Starts the server with exactly `env` (plus PATH and HOME pointing at an empty directory: no real netrc). */
async function start(env: Record<string, string>, args: string[] = []): Promise<Session> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--require', require.resolve('tsx/cjs'), path.join(root, 'src/agents/mcp/main.ts'), ...args],
    env: { PATH: process.env.PATH ?? '', HOME: dir, NETRC: path.join(dir, 'no-netrc'), ...env },
    cwd: root,
    stderr: 'pipe',
  });
  let err = '';
  transport.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  const client = new Client({ name: 'svc-mcp-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, transport, stderr: () => err };
}

async function call(s: Session, name: string, args: Record<string, unknown>): Promise<{ text: string; isError: boolean }> {
  const r = (await s.client.callTool({ name, arguments: args })) as { content: { type: string; text: string }[]; isError?: boolean };
  return { text: r.content.map((c) => c.text).join(''), isError: r.isError === true };
}

describe('MCP server (stdio, the SDK client)', function () {
  // Each session starts a Node process that compiles the server with tsx.
  this.timeout(60_000);
  let server: ReferenceServer;
  let s: Session;
  const env = () => ({ SVC_BASE_URL: server.url, SVC_API_KEY: KEY, SVC_PROJECT: PROJECT });

  before(async () => {
    server = await startReferenceServer({ apiKeys: [{ key: KEY, userId: 'u' }] });
    server.seedThreads(PROJECT, 75, { turnsPerThread: 2 });
    server.addCheckpoints('agent-7b', 12, { metrics: (step) => ({ 'train/reward': step / 100, loss: 1 / step }) });
    // The repository (relative paths) and the temporary folder of the files below.
    s = await start(env(), ['--root', root, '--root', dir]);
  });
  after(async () => {
    await s?.client.close();
    await server?.close();
  });

  it('lists the six tools with the descriptions and input schemas VS Code gets', async () => {
    const { tools } = await s.client.listTools();
    assert.deepStrictEqual(tools.map((t) => t.name), TOOLS.map((t) => t.name));
    for (const t of tools) {
      const ours = TOOLS.find((x) => x.name === t.name)!;
      assert.strictEqual(t.description, ours.description);
      assert.deepStrictEqual(t.inputSchema, inputSchemaOf(ours));
      assert.strictEqual(t.annotations?.readOnlyHint, !ours.write, t.name);
    }
  });

  it('svc_list_threads: the default project, the first page and the total', async () => {
    const r = await call(s, 'svc_list_threads', { limit: 10 });
    assert.strictEqual(r.isError, false, r.text);
    assert.match(r.text, /^75 threads \(project acme\/bot, sorted by last_updated desc\)/);
    assert.strictEqual(r.text.split('\n').filter((l) => l.startsWith('| thread-')).length, 10);
    assert.match(r.text, /\| thread-74 \| 2 \| 500 \| 500 \|/, 'newest first, 2 turns of 500 ms');
    assert.match(r.text, /Showing first 10 of 75 threads; pass offset 10 for more\./);
  });

  it('svc_list_checkpoints and svc_summarize_run read the model endpoints', async () => {
    const list = await call(s, 'svc_list_checkpoints', { modelId: 'agent-7b', order: 'asc', limit: 2 });
    assert.match(list.text, /12 checkpoints, steps 10–120\./);
    assert.match(list.text, /Best by train\/reward \(higher is better\): step 120 \(1\.2\)/);
    assert.deepStrictEqual(list.text.split('\n').filter((l) => /^\| \d/.test(l)).map((l) => l.split('|')[1]!.trim()), ['10', '20']);
    const run = await call(s, 'svc_summarize_run', { modelId: 'agent-7b' });
    assert.match(run.text, /Reward trend \(train\/reward, last 10 values, steps 30–120\): improving\./);
  });

  it('svc_summarize_trajectories reads a file relative to the working directory', async () => {
    const r = await call(s, 'svc_summarize_trajectories', { file: 'test/fixtures/trajectories/groups.jsonl' });
    assert.strictEqual(r.isError, false, r.text);
    assert.match(r.text, /JSONL, .*3 groups, 4 trajectories\./);
  });

  it('svc_summarize_trajectories on a .json file that does not parse names the place and counts no groups', async () => {
    // Two groups with the comma between them missing, as a hand edit leaves it (line 2, column 3).
    const t = (reward: number) => `{"messages_and_choices": [{"role": "user", "content": "hi"}], "reward": ${reward}}`;
    const file = path.join(fs.mkdtempSync(path.join(dir, 'svc-mcp-json-')), 'groups.json');
    fs.writeFileSync(file, `[{"trajectories": [${t(1)}, ${t(0)}]}\n  {"trajectories": [${t(1)}]}]\n`);
    const r = await call(s, 'svc_summarize_trajectories', { file });
    assert.strictEqual(r.isError, false, r.text);
    assert.match(r.text, /: JSON, .*, groups not counted: it is not valid JSON\./);
    assert.doesNotMatch(r.text, /0 groups/);
    assert.match(r.text, /error at line 2, column 3: .*comma expected/i);
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
  });

  // Issue 28, item 6: the read tools read any absolute path.
  it('reads files under its --root folders only: elsewhere, or through a link out of them, refused by name; a device refused', async () => {
    const work = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'svc-mcp-roots-')));
    const inside = path.join(work, 'inside');
    const outside = path.join(work, 'outside');
    fs.mkdirSync(inside);
    fs.mkdirSync(outside);
    const groups = `${JSON.stringify({ trajectories: [{ messages_and_choices: [{ role: 'user', content: 'SECRET-CONTENT' }], reward: 1 }] })}\n`;
    fs.writeFileSync(path.join(inside, 'groups.jsonl'), groups);
    fs.writeFileSync(path.join(outside, 'groups.jsonl'), groups);
    fs.writeFileSync(path.join(outside, 'history.jsonl'), '{"train/reward": 0.5, "step": 1}\n');
    fs.symlinkSync(path.join(outside, 'groups.jsonl'), path.join(inside, 'link.jsonl'));
    fs.symlinkSync('/dev/zero', path.join(inside, 'zero.trajectories.json'));
    const r = await start(env(), ['--root', inside]);
    try {
      const ok = await call(r, 'svc_summarize_trajectories', { file: path.join(inside, 'groups.jsonl') });
      assert.strictEqual(ok.isError, false, ok.text);
      assert.match(ok.text, /1 groups, 1 trajectories/);
      const far = await call(r, 'svc_summarize_trajectories', { file: path.join(outside, 'groups.jsonl') });
      assert.strictEqual(far.isError, true, far.text);
      assert.strictEqual(far.text, `svc_summarize_trajectories failed: ${path.join(outside, 'groups.jsonl')} is outside the folders this server reads (${inside}): not read. Start the MCP server with --root <folder> to let it read files under that folder.`);
      const link = await call(r, 'svc_summarize_trajectories', { file: path.join(inside, 'link.jsonl') });
      assert.strictEqual(link.isError, true, link.text);
      assert.match(link.text, new RegExp(`link\\.jsonl \\(a link to ${outside.replace(/[/\\.]/g, '\\$&')}/groups\\.jsonl\\) is outside the folders this server reads`));
      const relative = await call(r, 'svc_summarize_trajectories', { file: 'test/fixtures/trajectories/groups.jsonl' });
      assert.match(relative.text, /is outside the folders this server reads/);
      const zero = await call(r, 'svc_summarize_trajectories', { file: path.join(inside, 'zero.trajectories.json') });
      assert.strictEqual(zero.isError, true, zero.text);
      assert.match(zero.text, /zero\.trajectories\.json is a character device \(\/dev\/zero\), not a regular file: only regular files are read\./);
      const history = await call(r, 'svc_summarize_run', { historyFile: path.join(outside, 'history.jsonl') });
      assert.match(history.text, /history\.jsonl is outside the folders this server reads/);
      const explain = await call(r, 'svc_explain_trajectory', { file: path.join(outside, 'groups.jsonl'), group: 0, trajectory: 0 });
      assert.strictEqual(explain.isError, true, explain.text);
      assert.match(explain.text, /groups\.jsonl is outside the folders this server reads/);
      for (const t of [far, link, relative, zero, history, explain]) assert.ok(!t.text.includes('SECRET-CONTENT'), t.text);
    } finally {
      await r.client.close();
      fs.rmSync(work, { recursive: true, force: true });
    }
  });

  it('quotes nothing of a file in its errors: a token file read as JSON, JSONL or a history; keys and values not of the format', async () => {
    const token = 'ghp_0123456789abcdefghijklmnopqrstuvwxyzAB';
    const write = (name: string, text: string) => {
      const file = path.join(dir, name);
      fs.writeFileSync(file, text);
      return file;
    };
    const asJson = await call(s, 'svc_summarize_trajectories', { file: write('token.json', `${token}\n`) });
    assert.match(asJson.text, /error at line 1, column 1: Invalid JSON: value expected/);
    const asJsonl = await call(s, 'svc_summarize_trajectories', { file: write('token.jsonl', `${token}\n`) });
    assert.match(asJsonl.text, /error at line 1, column 1: Invalid JSON: value expected/);
    const asHistory = await call(s, 'svc_summarize_run', { historyFile: write('token-history.jsonl', `  ${token}\n`) });
    assert.match(asHistory.text, /Unreadable lines \(1, skipped\): line 1: not JSON: value expected .*, at column 3\./);
    const keyed = await call(s, 'svc_summarize_trajectories', {
      file: write('keyed.jsonl', `${JSON.stringify({ trajectories: [{ messages_and_choices: [{ role: token, content: 'x' }], metrics: { [token]: 'x' }, reward: 1 }] })}\n`),
    });
    assert.match(keyed.text, /trajectories\[0\]\.messages_and_choices\[0\]\.role: expected one of "system", .*, received a string/);
    assert.match(keyed.text, /trajectories\[0\]\.metrics\.<key of 42 characters>: expected/);
    for (const r of [asJson, asJsonl, asHistory, keyed]) assert.ok(!r.text.includes('ghp_'), r.text);
  });

  it('--help names --root; a --root that is not a folder is refused by name', () => {
    const run = (...args: string[]) => spawnSync(process.execPath, ['--require', require.resolve('tsx/cjs'), path.join(root, 'src/agents/mcp/main.ts'), ...args], { encoding: 'utf8', cwd: root });
    const help = run('--help');
    assert.match(help.stdout, /Usage: node dist\/mcp\.js \[--read-only\] \[--root <folder>\]\.\.\./);
    assert.match(help.stdout, /--root <folder> {2}the read tools .* read regular files under this folder only/s);
    const bad = run('--root', path.join(dir, 'no-such-folder'));
    assert.strictEqual(bad.status, 2);
    assert.match(bad.stderr, /svc-mcp: --root .*no-such-folder: .*no-such-folder is not a folder/);
  });

  it('svc_explain_trajectory says why ART does not train on a trajectory, with its advantage', async () => {
    const r = await call(s, 'svc_explain_trajectory', { file: 'test/fixtures/trainability/step.jsonl', group: 0, trajectory: 3 });
    assert.strictEqual(r.isError, false, r.text);
    assert.match(r.text, /trajectory 3 of 4: ART does not train on it: zero advantage\./);
    assert.match(r.text, /Advantage: reward 0\.5 − group mean 0\.5 = 0;/);
    const tools = (await s.client.listTools()).tools;
    const t = tools.find((x) => x.name === 'svc_explain_trajectory')!;
    assert.deepStrictEqual(t.inputSchema, inputSchemaOf(TOOLS.find((x) => x.name === 'svc_explain_trajectory')!));
    assert.strictEqual(t.annotations?.openWorldHint, false, 'it reads a local file only');
  });

  it('svc_attach_feedback writes one feedback row and names it', async () => {
    const ref = `svc:///${PROJECT}/call/thread-03-turn-1`;
    const r = await call(s, 'svc_attach_feedback', { ref, emoji: '👍' });
    assert.strictEqual(r.isError, false, r.text);
    assert.strictEqual(server.store.feedback.length, 1);
    const row = server.store.feedback[0]!;
    assert.strictEqual(row.svc_ref, ref);
    assert.strictEqual(row.feedback_type, 'svc.reaction.1');
    assert.ok(r.text.includes(row.id), r.text);
  });

  it('svc_upload_trajectories logs a file to the model and split, exactly its groups', async () => {
    const file = path.join(dir, '0007.jsonl');
    const group = (i: number) => ({ trajectories: [{ messages_and_choices: [{ role: 'user', content: `q${i}` }], reward: i }] });
    fs.writeFileSync(file, [0, 1, 2].map((i) => JSON.stringify(group(i))).join('\n') + '\n');
    const r = await call(s, 'svc_upload_trajectories', { files: [file], modelId: 'agent-7b', split: 'val' });
    assert.strictEqual(r.isError, false, r.text);
    assert.match(r.text, /Uploaded to model agent-7b, split val, at http:\/\/127\.0\.0\.1:\d+: 3 groups, 3 trajectories from 1 files \(what the service logged\)\./);
    assert.strictEqual(server.store.logs.length, 1);
    assert.strictEqual(server.store.logs[0]!.body.split, 'val');
    assert.strictEqual(server.store.logs[0]!.groupCount, 3);
  });

  it('a service connection killed mid-stream is an error result, and the server keeps answering', async () => {
    server.faults.add({ path: '/threads/stream_query', kind: 'reset-mid-stream', afterRows: 3, times: 20 });
    const r = await call(s, 'svc_list_threads', {});
    server.faults.clear();
    assert.strictEqual(r.isError, true);
    assert.match(r.text, /^svc_list_threads failed: /);
    const again = await call(s, 'svc_list_threads', { limit: 1 });
    assert.strictEqual(again.isError, false, again.text);
  });

  it('--read-only leaves out the two write tools and refuses them by name', async () => {
    const ro = await start(env(), ['--read-only']);
    try {
      const { tools } = await ro.client.listTools();
      assert.deepStrictEqual(tools.map((t) => t.name), TOOLS.filter((t) => !t.write).map((t) => t.name));
      assert.ok(!tools.some((t) => ['svc_attach_feedback', 'svc_upload_trajectories'].includes(t.name)));
      const r = await call(ro, 'svc_upload_trajectories', { files: ['x.jsonl'], modelId: 'm', split: 'train' });
      assert.strictEqual(r.isError, true);
      assert.match(r.text, /started with --read-only/);
    } finally {
      await ro.client.close();
    }
  });

  it('a wrong key is an error result that says how to fix it, not a crash', async () => {
    const bad = await start({ ...env(), SVC_API_KEY: 'wrong-key' });
    try {
      const r = await call(bad, 'svc_list_checkpoints', { modelId: 'agent-7b' });
      assert.strictEqual(r.isError, true);
      assert.match(r.text, /refused the key \(HTTP 401\).*Set SVC_API_KEY/s);
      assert.ok(!r.text.includes('wrong-key') && !bad.stderr().includes('wrong-key'), 'the key is never echoed');
      assert.strictEqual((await bad.client.listTools()).tools.length, TOOLS.length, 'still serving');
    } finally {
      await bad.client.close();
    }
  });

  it('without SVC_BASE_URL or a key, each tool says what to set', async () => {
    const none = await start({});
    try {
      assert.match((await call(none, 'svc_list_threads', { projectId: PROJECT })).text, /set SVC_BASE_URL/);
    } finally {
      await none.client.close();
    }
    const noKey = await start({ SVC_BASE_URL: server.url });
    try {
      assert.match((await call(noKey, 'svc_list_checkpoints', { modelId: 'agent-7b' })).text, /No API key for http:\/\/127\.0\.0\.1:\d+\. Set SVC_API_KEY/);
    } finally {
      await noKey.client.close();
    }
  });

  it('takes the netrc entry of the exact host, never the default entry', async () => {
    const exact = path.join(dir, 'netrc-exact');
    fs.writeFileSync(exact, `machine 127.0.0.1 login user password ${KEY}\n`);
    const fallback = path.join(dir, 'netrc-default');
    fs.writeFileSync(fallback, `machine other.example login user password nope\ndefault login user password ${KEY}\n`);
    const a = await start({ SVC_BASE_URL: server.url, NETRC: exact });
    try {
      assert.strictEqual((await call(a, 'svc_list_checkpoints', { modelId: 'agent-7b' })).isError, false);
    } finally {
      await a.client.close();
    }
    server.stats.clear();
    const b = await start({ SVC_BASE_URL: server.url, NETRC: fallback });
    try {
      const r = await call(b, 'svc_list_checkpoints', { modelId: 'agent-7b' });
      assert.match(r.text, /No key was sent to http:\/\/127\.0\.0\.1:\d+: the "default" entry of your netrc file names no host/);
      assert.strictEqual(server.stats.filter('/v1/preview/models').length, 0, 'no request left');
    } finally {
      await b.client.close();
    }
  });

  it('exits when the client goes away (stdin closed), also in the middle of a call', async () => {
    const k = await start(env());
    const child = (k.transport as unknown as { _process: ChildProcess })._process;
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
    const checkpoints = '/v1/preview/models/agent-7b/checkpoints';
    server.faults.add({ path: checkpoints, kind: 'delay', ms: 30_000 });
    try {
      const before = server.stats.count(checkpoints);
      const pending = k.client.callTool({ name: 'svc_list_checkpoints', arguments: { modelId: 'agent-7b' } }).catch((e: unknown) => e);
      // In the middle of the call: the service has the request and holds it (the delay), unanswered.
      await until(() => server.stats.filter(checkpoints).slice(before).some((r) => r.fault === 'delay' && r.status === 0), 10_000, 'the service to receive the delayed request');
      // The client goes away: its end of stdin closes (no SIGTERM, no SIGKILL: the SDK's close() sends those after 2 s).
      child.stdin!.end();
      const exit = await Promise.race([exited, new Promise<'late'>((r) => setTimeout(() => r('late'), 10_000))]);
      assert.deepStrictEqual(exit, { code: 0, signal: null }, 'the server exits by itself, at once');
      assert.ok((await pending) instanceof Error, 'the call ends with the connection');
      assert.strictEqual(server.stats.filter(checkpoints).slice(before).filter((r) => r.completed).length, 0, 'it left while the request was still unanswered');
      assert.strictEqual(alive(child.pid!), false, 'the server process is gone');
    } finally {
      server.faults.clear();
      await k.client.close();
    }
  });
});

/** Polls `done` every 20 ms; fails naming `what` when it is still false after `ms`. */
async function until(done: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!done()) {
    if (Date.now() > deadline) assert.fail(`waited ${ms} ms for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
