// The svc MCP server started from VS Code's side (issue 29, item 3), as a user's "Start Server"
// does: VS Code 1.139's MCP service asks the extension's definition provider
// (vscode.lm.registerMcpServerDefinitionProvider, src/boot/agents.ts) for the server, resolves it
// (resolveMcpServerDefinition: the key from SecretStorage goes into the child's environment only),
// starts `node dist/mcp.js`, and lists its tools among vscode.lm.tools (mcp_svc_…). VS Code 1.100
// (engines.vscode) has no such API: there the extension registers nothing and runs as before.
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import { TOOLS } from '../../../src/agents/core/tools';
import { atLeast } from '../../../src/boot/version';
import type { ReferenceServer } from '../../server';
import { api, endSuite, EXTENSION_ID, KEY, signIn, signOut, startWithModel, waitFor } from './helpers';

const TOOL_NAMES = TOOLS.map((t) => t.name);
/** VS Code's id of a server an extension provides: `<extension id, lowercase>/<label>`. */
const SERVER_ID = `${EXTENSION_ID}/svc`;
const hasMcpApi = () => typeof (vscode.lm as { registerMcpServerDefinitionProvider?: unknown }).registerMcpServerDefinitionProvider === 'function' && typeof (vscode as { McpStdioServerDefinition?: unknown }).McpStdioServerDefinition === 'function';

/** The MCP server's tools as VS Code lists them (not our language model tools of the same names). */
const mcpTools = () => vscode.lm.tools.filter((t) => t.name.startsWith('mcp_') && TOOL_NAMES.some((n) => t.name.endsWith(n)));
const mcpTool = (name: string) => mcpTools().find((t) => t.name.endsWith(name))?.name;

async function invoke(name: string, input: object): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${name}: no result within 30 s (a confirmation nobody answers?)`)), 30_000)));
  try {
    const result = await Promise.race([vscode.lm.invokeTool(name, { input, toolInvocationToken: undefined }), timeout]);
    return result.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('');
  } finally {
    clearTimeout(timer);
  }
}

/** Starts (or restarts) the server as "Start Server" does, and waits for its tools. */
async function startMcpServer(): Promise<void> {
  await vscode.commands.executeCommand('workbench.mcp.stopServer', SERVER_ID);
  await vscode.commands.executeCommand('workbench.mcp.startServer', SERVER_ID, { autoTrustChanges: true, waitForLiveTools: true });
  await waitFor(`the MCP server's ${TOOL_NAMES.length} tools in vscode.lm.tools`, () => mcpTools().length === TOOL_NAMES.length, 30_000);
}

describe('MCP from VS Code\'s side: the svc server VS Code starts', function () {
  this.timeout(120_000);
  let server: ReferenceServer;
  before(async () => {
    server = await startWithModel('agent-7b', 3);
  });
  after(async () => {
    if (hasMcpApi()) await vscode.commands.executeCommand('workbench.mcp.stopServer', SERVER_ID);
    await endSuite(server);
  });

  it('1.100 has no released MCP server definition API: the extension registers no server, starting one does nothing, and it runs', async () => {
    if (atLeast(vscode.version, 1, 101)) {
      assert.ok(hasMcpApi(), `VS Code ${vscode.version} has vscode.lm.registerMcpServerDefinitionProvider and McpStdioServerDefinition`);
      return;
    }
    // 1.100 has a proposed function of that name, which refuses an extension without the proposal:
    // src/boot/agents.ts registers only on 1.101 and later.
    const proposed = (vscode.lm as { registerMcpServerDefinitionProvider?: unknown }).registerMcpServerDefinitionProvider;
    assert.ok(proposed === undefined || typeof proposed === 'function');
    if ((await vscode.commands.getCommands(true)).includes('workbench.mcp.startServer')) {
      await vscode.commands.executeCommand('workbench.mcp.startServer', SERVER_ID, { autoTrustChanges: true });
      await new Promise((r) => setTimeout(r, 1000));
    }
    assert.strictEqual(mcpTools().length, 0, 'no MCP server of ours, so no MCP tools');
    assert.strictEqual(vscode.lm.tools.filter((t) => TOOL_NAMES.includes(t.name)).length, TOOL_NAMES.length, 'our language model tools are there');
    assert.ok(vscode.extensions.getExtension(EXTENSION_ID)!.isActive);
  });

  it('1.139: "Start Server" starts it with the stored key in its environment; it lists its tools and a read tool answers from the service', async function () {
    if (!atLeast(vscode.version, 1, 139)) {
      assert.ok(!atLeast(vscode.version, 1, 101), `VS Code ${vscode.version}: this suite knows 1.100 and 1.139`);
      return;
    }
    await api();
    const before = server.stats.requests.length;
    await startMcpServer();
    assert.deepStrictEqual(mcpTools().map((t) => TOOL_NAMES.find((n) => t.name.endsWith(n))).sort(), [...TOOL_NAMES].sort());
    const name = mcpTool('svc_list_checkpoints')!;
    assert.match(name, /^mcp_svc/, name);
    const text = await invoke(name, { modelId: 'agent-7b' });
    assert.match(text, /Model "agent-7b": 3 checkpoints/);
    // The child sent the key it was given (the reference server checks it): its own User-Agent.
    const fromChild = server.stats.requests.slice(before).filter((r) => r.userAgent?.startsWith('svc-mcp/'));
    assert.ok(fromChild.length > 0 && fromChild.every((r) => r.authScheme !== 'none' && r.status === 200), JSON.stringify(fromChild));
    // Only in the child's environment: not in the extension host's, not in any setting.
    assert.ok(!Object.values(process.env).includes(KEY), 'the key is not in the extension host\'s environment');
    assert.ok(!JSON.stringify(vscode.workspace.getConfiguration('mcp')).includes(KEY), 'nor in the mcp settings');
    // The server VS Code started reads under the workspace folders (its --root arguments, kept from
    // provideMcpServerDefinitions through resolveMcpServerDefinition), and refuses a file elsewhere.
    const folder = vscode.workspace.workspaceFolders?.find((f) => f.uri.scheme === 'file')?.uri.fsPath;
    assert.ok(folder, 'the host tests open a workspace folder');
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-mcp-outside-'));
    const near = path.join(folder, `svc-mcp-history-${process.pid}.jsonl`);
    try {
      fs.writeFileSync(path.join(outside, 'history.jsonl'), '{"train/reward": 0.5, "step": 1}\n');
      fs.writeFileSync(near, '{"train/reward": 0.5, "step": 1}\n');
      const run = mcpTool('svc_summarize_run')!;
      const refused = await invoke(run, { historyFile: path.join(outside, 'history.jsonl') });
      assert.ok(refused.includes(`is outside the folders this server reads (${fs.realpathSync(folder)})`), refused);
      const read = await invoke(run, { historyFile: near });
      assert.ok(!/outside the folders/.test(read) && /train\/reward/.test(read), read);
    } finally {
      fs.rmSync(outside, { recursive: true, force: true });
      fs.rmSync(near, { force: true });
    }
  });

  it('1.139: signed out, the server VS Code starts says how to sign in', async () => {
    if (!atLeast(vscode.version, 1, 139)) {
      assert.ok(!atLeast(vscode.version, 1, 101), `VS Code ${vscode.version}: this suite knows 1.100 and 1.139`);
      return;
    }
    const a = await api();
    await signOut();
    await waitFor('signed out', () => a.connection.state === 'signedOut');
    try {
      const before = server.stats.requests.length;
      await startMcpServer();
      const text = await invoke(mcpTool('svc_list_checkpoints')!, { modelId: 'agent-7b' });
      assert.match(text, /No API key for http:\/\/127\.0\.0\.1:\d+\. In VS Code, run "svc: Sign In" \(svc\.signIn\), then restart this server/);
      assert.strictEqual(server.stats.requests.slice(before).filter((r) => r.userAgent?.startsWith('svc-mcp/') && r.authScheme !== 'none').length, 0, 'no key sent');
    } finally {
      await signIn();
      await waitFor('signed in', () => a.connection.state === 'signedIn');
    }
  });
});
