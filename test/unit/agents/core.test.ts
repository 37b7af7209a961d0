// The agents' core in plain Node: what package.json declares matches the tools, the run health
// logic, the history.jsonl reader, the MCP snippet and the MCP server's key rules.
import * as assert from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseHistory, readHistoryFile } from '../../../src/agents/core/history';
import { mcpConfigSnippets } from '../../../src/agents/core/mcpSnippet';
import { summarizePoints, trendOf, vanished } from '../../../src/agents/core/run';
import type { ToolHost } from '../../../src/agents/core/host';
import { findTool, inputSchemaOf, prepareTool, runTool, TOOLS } from '../../../src/agents/core/tools';
import { EnvHost } from '../../../src/agents/mcp/host';
import { atLeast } from '../../../src/boot/version';
import { startReferenceServer } from '../../server';

const root = path.resolve(__dirname, '../../..');
const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));

describe('agents: package.json declares the tools the code runs', () => {
  it('lists each tool with its modelDescription and input schema, in order', () => {
    const declared = manifest.contributes.languageModelTools as { name: string; modelDescription: string; inputSchema: unknown; displayName: string }[];
    assert.deepStrictEqual(declared.map((t) => t.name), TOOLS.map((t) => t.name));
    for (const t of TOOLS) {
      const d = declared.find((x) => x.name === t.name)!;
      assert.strictEqual(d.modelDescription, t.description, t.name);
      assert.strictEqual(d.displayName, t.title, t.name);
      assert.deepStrictEqual(d.inputSchema, inputSchemaOf(t), `${t.name}: run npx tsx scripts/agents-manifest.ts`);
    }
  });

  it('declares the MCP server definition provider and the Copy MCP Server Configuration command', () => {
    assert.deepStrictEqual(manifest.contributes.mcpServerDefinitionProviders, [{ id: 'svc.mcp', label: 'svc' }]);
    assert.ok(manifest.contributes.commands.some((c: { command: string }) => c.command === 'svc.copyMcpConfig'));
  });

  it('registers the MCP provider from VS Code 1.101 on only', () => {
    assert.strictEqual(atLeast('1.100.3', 1, 101), false);
    assert.strictEqual(atLeast('1.101.0', 1, 101), true);
    assert.strictEqual(atLeast('1.105.0-insider', 1, 101), true);
    assert.strictEqual(atLeast('2.0.0', 1, 101), true);
  });
});

describe('agents: run health', () => {
  const line = (n: number, f: (i: number) => number) => Array.from({ length: n }, (_, i) => ({ step: i + 1, v: f(i) }));

  it('calls a rise beyond the noise improving, a flat line a plateau and a drop falling', () => {
    assert.strictEqual(trendOf(line(10, (i) => 0.5 + 0.02 * i), true)!.trend, 'improving');
    assert.strictEqual(trendOf(line(10, (i) => 0.5 + 0.02 * i), false)!.trend, 'falling', 'a rising loss');
    assert.strictEqual(trendOf(line(10, () => 0.7), true)!.trend, 'plateau');
    assert.strictEqual(trendOf(line(10, (i) => 0.7 + (i % 2 ? 0.05 : -0.05)), true)!.trend, 'plateau', 'noise around a level');
    assert.strictEqual(trendOf(line(10, (i) => 0.9 - 0.03 * i), true)!.trend, 'falling');
    assert.strictEqual(trendOf(line(2, (i) => i), true), undefined, 'too few points');
  });

  it('fits only the last 10 points', () => {
    const t = trendOf(line(30, (i) => (i < 20 ? i / 20 : 1)), true)!;
    assert.strictEqual(t.trend, 'plateau');
    assert.deepStrictEqual([t.from, t.to, t.n], [21, 30, 10]);
  });

  it('names a metric that stopped, but not one logged every few steps', () => {
    const points = Array.from({ length: 20 }, (_, i) => ({
      step: i + 1,
      metrics: { r: i, ...(i < 5 ? { gone: 1 } : {}), ...((i + 1) % 4 === 0 ? { val: 1 } : {}) },
    }));
    assert.deepStrictEqual(vanished(points).map((v) => v.metric), ['gone']);
  });

  it('states the figures in plain sentences', () => {
    const text = summarizePoints(
      Array.from({ length: 12 }, (_, i) => ({ step: (i + 1) * 10, metrics: { 'train/reward': i / 10, 'train/reward_std_dev': i > 9 ? 0 : 0.1, 'train/exception_rate': 0.01, loss: i === 5 ? null : 1 } })),
      'Run x',
    );
    assert.match(text, /^Run x: 12 steps with metrics, steps 10–120, 4 metrics\./);
    assert.match(text, /Reward trend \(train\/reward, last 10 values, steps 30–120\): improving\. From 0\.2 to 1\.1/);
    assert.match(text, /Best train\/reward: 1\.1 at step 120\./);
    assert.match(text, /train\/reward_std_dev: .*exactly 0 at 2 of 12 steps/);
    assert.match(text, /Non-finite values \(NaN or infinite\): loss at steps 60\./);
    assert.doesNotMatch(text, /should|recommend|try /i, 'numbers, not advice');
  });
});

describe('agents: history.jsonl reader', () => {
  it('merges the lines of one step, skips the reserved keys and reads bare NaN and Infinity as non-finite', () => {
    const h = parseHistory(
      [
        '{"train/reward": 0.5, "step": 1, "training_step": 1, "recorded_at": "2026-11-24T10:00:00"}',
        '{"val/reward": 0.4, "step": 1, "recorded_at": "2026-11-24T10:00:05"}',
        '',
        '{"train/reward": NaN, "loss/train": Infinity, "step": 2}',
        '{"train/reward": -Infinity, "note": "NaN", "step": 3}',
        'not json',
        '{"train/reward": 1}',
      ].join('\r\n'),
    );
    // structuredClone: the metrics are null-prototype records (metric names are data).
    assert.deepStrictEqual(structuredClone(h.points), [
      { step: 1, metrics: { 'train/reward': 0.5, 'val/reward': 0.4 } },
      { step: 2, metrics: { 'train/reward': null, 'loss/train': null } },
      { step: 3, metrics: { 'train/reward': null } },
    ]);
    assert.deepStrictEqual(h.problems.map((p) => p.line), [6, 7]);
    assert.strictEqual(h.lines, 6);
  });

  it('takes training_step when step is absent, and orders by step', () => {
    const h = parseHistory('{"r": 2, "training_step": 5}\n{"r": 1, "training_step": 2}\n');
    assert.deepStrictEqual(h.points.map((p) => p.step), [2, 5]);
  });

  it('names a line over the limit by its number and reads the lines around it (a last line without its end too)', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-agents-history-'));
    const file = path.join(dir, 'history.jsonl');
    fs.writeFileSync(file, `{"train/reward": 0.1, "step": 1}\n{"train/reward": "${'x'.repeat(4000)}"}\n{"train/reward": 0.2, "step": 2}\n{"train/reward": 0.3, "step": 3}`);
    try {
      const h = await readHistoryFile(file, { maxLineBytes: 1024 });
      assert.deepStrictEqual(h.points.map((p) => p.step), [1, 2, 3]);
      assert.deepStrictEqual(h.problems, [{ line: 2, reason: 'longer than 1 KiB: not read (a history line holds one log call)' }]);
      assert.strictEqual(h.lines, 4);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('agents: MCP configuration snippet', () => {
  it('names the key by SVC_API_KEY for VS Code, Claude Code and Cursor, and holds no key', () => {
    const text = mcpConfigSnippets({ serverPath: '/ext/dist/mcp.js', baseUrl: 'https://svc.example.com', project: 'acme/bot' });
    const blocks = text.split('\n## ').slice(1).map((b) => JSON.parse(b.slice(b.indexOf('\n') + 1)));
    assert.strictEqual(blocks.length, 3);
    const [vscodeCfg, claude, cursor] = blocks;
    assert.deepStrictEqual(vscodeCfg.servers.svc.args, ['/ext/dist/mcp.js', '--root', '${workspaceFolder}']);
    assert.strictEqual(vscodeCfg.servers.svc.env.SVC_API_KEY, '${env:SVC_API_KEY}');
    assert.strictEqual(claude.mcpServers.svc.env.SVC_API_KEY, '${SVC_API_KEY}');
    assert.strictEqual(cursor.mcpServers.svc.env.SVC_API_KEY, '${env:SVC_API_KEY}');
    for (const b of blocks) assert.strictEqual((b.servers ?? b.mcpServers).svc.env.SVC_BASE_URL, 'https://svc.example.com');
  });
});

describe('agents: the MCP server sends a key only where it was given for', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-envhost-'));
  const netrc = (text: string) => {
    const file = path.join(dir, `netrc-${Math.random()}`);
    fs.writeFileSync(file, text);
    return file;
  };
  const host = (env: Record<string, string>) => new EnvHost({ env, cwd: dir, userAgent: 't' });

  it('uses SVC_API_KEY for both origins', async () => {
    const h = host({ SVC_BASE_URL: 'https://a.example', SVC_TRAINING_BASE_URL: 'https://b.example', SVC_API_KEY: 'k' });
    assert.strictEqual(await h.keyProblem('trace'), undefined);
    assert.strictEqual(await h.keyProblem('training'), undefined);
  });

  it("never lends the trace host's netrc key to another model host", async () => {
    const h = host({ SVC_BASE_URL: 'https://a.example', SVC_TRAINING_BASE_URL: 'https://b.example', NETRC: netrc('machine a.example login user password k\n') });
    assert.strictEqual(await h.keyProblem('trace'), undefined);
    assert.match((await h.keyProblem('training'))!, /No key was sent to https:\/\/b\.example: that key belongs to https:\/\/a\.example/);
  });

  it('never uses the netrc default entry', async () => {
    const h = host({ SVC_BASE_URL: 'https://a.example', NETRC: netrc('default login user password k\n') });
    assert.match((await h.keyProblem('trace'))!, /"default" entry of your netrc file names no host/);
  });

  it('tells a user of a terminal to set SVC_API_KEY, and a VS Code user (SVC_MCP_CLIENT=vscode) to sign in there and restart the server', async () => {
    const netrcFile = netrc('');
    assert.match((await host({ SVC_BASE_URL: 'https://a.example', NETRC: netrcFile }).keyProblem('trace'))!, /^No API key for https:\/\/a\.example\. Set SVC_API_KEY in the environment of the MCP server/);
    const vscode = host({ SVC_BASE_URL: 'https://a.example', NETRC: netrcFile, SVC_MCP_CLIENT: 'vscode' });
    const problem = (await vscode.keyProblem('trace'))!;
    assert.match(problem, /^No API key for https:\/\/a\.example\. In VS Code, run "svc: Sign In" \(svc\.signIn\), then restart this server \("MCP: List Servers", svc, Restart Server\)\.$/);
    assert.strictEqual(vscode.signInHint, problem.slice('No API key for https://a.example. '.length));
  });

  it('says what to set without a URL, and refuses a URL with credentials in it', () => {
    assert.match(JSON.stringify(host({}).client()), /set SVC_BASE_URL/);
    assert.match(JSON.stringify(host({ SVC_BASE_URL: 'https://u:p@a.example' }).client()), /SVC_BASE_URL is not usable/);
  });
});

// Issue 28, item 7: a server that echoes the key (a 401 body) or the Authorization header (a 500
// body) reached the tool text unredacted. Tool texts are redacted as the log is.
describe('agents: a key echoed by the service never reaches a tool result', () => {
  const KEY = 'echo-test-key-0123456789abcdef';
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  const forms = (user: string) => [KEY, b64(`api:${KEY}`), b64(`${user}:${KEY}`), `Bearer ${KEY}`];

  for (const [label, env, user] of [
    ['SVC_API_KEY', { SVC_API_KEY: KEY }, 'api'],
    ['SVC_PASSWORD with SVC_USERNAME', { SVC_PASSWORD: KEY, SVC_USERNAME: 'alice' }, 'alice'],
  ] as const) {
    it(`redacts the key, its Basic header values and the bearer token (${label})`, async () => {
      const server = await startReferenceServer({ apiKeys: [{ key: KEY, userId: 'u' }] });
      const host = new EnvHost({ env: { SVC_BASE_URL: server.url, NETRC: '/nonexistent', ...env }, cwd: os.tmpdir(), userAgent: 't' });
      try {
        const echo = `you sent ${forms(user).join(' and ')}`;
        server.faults.add({ kind: 'status', status: 401, body: { detail: `invalid key ${echo}` } });
        const refused = await runTool(host, findTool('svc_list_checkpoints')!, { modelId: 'm' });
        server.faults.add({ kind: 'status', status: 500, body: { message: `bad header Basic ${echo}` }, times: 20 });
        const failed = await runTool(host, findTool('svc_summarize_run')!, { modelId: 'm' });
        for (const r of [refused, failed]) {
          assert.strictEqual(r.isError, true, r.text);
          assert.match(r.text, /\*\*\*/, r.text);
          for (const f of forms(user)) assert.ok(!r.text.includes(f.replace('Bearer ', '')), `${f} in: ${r.text}`);
        }
        assert.match(refused.text, /refused the key \(HTTP 401\)/);
      } finally {
        await host.close();
        await server.close();
      }
    });
  }
});

// Issue 28, item 6, the VS Code side: a read outside the workspace folders is confirmed first (the
// language model tool's prepareInvocation), and the run reads only what the confirmation named.
describe('agents: a read outside the workspace folders is confirmed first', () => {
  const work = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'svc-agents-roots-')));
  const inside = path.join(work, 'workspace');
  const outside = path.join(work, 'elsewhere');
  fs.mkdirSync(inside);
  fs.mkdirSync(outside);
  const groups = `${JSON.stringify({ trajectories: [{ messages_and_choices: [{ role: 'user', content: 'hi' }], reward: 1 }] })}\n`;
  fs.writeFileSync(path.join(inside, 'groups.jsonl'), groups);
  fs.writeFileSync(path.join(outside, 'groups.jsonl'), groups);
  fs.symlinkSync(path.join(outside, 'groups.jsonl'), path.join(inside, 'link.jsonl'));
  after(() => fs.rmSync(work, { recursive: true, force: true }));
  /** What ConnectionHost answers for one workspace folder: relative paths in it, reads confirmed outside it. */
  const host: ToolHost = {
    client: () => ({ problem: 'no service' }),
    keyProblem: async () => undefined,
    origin: () => undefined,
    defaultProject: () => undefined,
    resolvePath: (f) => path.resolve(inside, f),
    readRoots: () => [inside],
    outsideRoots: 'confirm',
    feedbackCreator: () => undefined,
    signInHint: '',
    redact: (t) => t,
  };
  const summarize = findTool('svc_summarize_trajectories')!;

  it('asks nothing for a file in the workspace, and reads it', async () => {
    const prepared = await prepareTool(host, summarize, { file: 'groups.jsonl' });
    assert.strictEqual(prepared.confirmation, undefined);
    const r = await runTool(host, summarize, { file: 'groups.jsonl' });
    assert.strictEqual(r.isError, false, r.text);
  });

  it('names a file outside (and where a link leads) in the confirmation; unconfirmed, the run refuses it by name', async () => {
    const far = path.join(outside, 'groups.jsonl');
    const prepared = await prepareTool(host, summarize, { file: far });
    assert.strictEqual(prepared.confirmation?.title, 'Summarize a trajectory file: read a file outside the workspace?');
    assert.strictEqual(prepared.confirmation?.message, `svc_summarize_trajectories will read ${far}, outside the workspace folders (${inside}). What it reads (figures, names and problems in the file) goes to the language model.`);
    assert.deepStrictEqual(prepared.outside, [far]);
    const link = await prepareTool(host, summarize, { file: 'link.jsonl' });
    assert.match(link.confirmation!.message, new RegExp(`will read ${path.join(inside, 'link.jsonl').replace(/[/.]/g, '\\$&')} \\(a link to ${far.replace(/[/.]/g, '\\$&')}\\)`));
    const refused = await runTool(host, summarize, { file: far });
    assert.strictEqual(refused.isError, true);
    assert.strictEqual(refused.text, `svc_summarize_trajectories failed: ${far} is outside the workspace folders (${inside}): not read without the user's confirmation.`);
    const history = await runTool(host, findTool('svc_summarize_run')!, { historyFile: far });
    assert.match(history.text, /is outside the workspace folders/);
  });

  it('once confirmed, reads exactly the real paths the confirmation named', async () => {
    const prepared = await prepareTool(host, summarize, { file: 'link.jsonl' });
    const allowOutside = (p: string) => prepared.outside!.includes(p);
    const r = await runTool(host, summarize, { file: 'link.jsonl' }, undefined, { allowOutside });
    assert.strictEqual(r.isError, false, r.text);
    assert.match(r.text, /1 groups, 1 trajectories/);
  });
});
