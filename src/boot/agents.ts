/**
 * At activation: a stand-in for each language model tool of package.json, and the MCP server
 * definition provider (VS Code 1.101 and later). Both are feature-detected, so VS Code 1.100 runs
 * the extension without them. The stand-ins load the core on their first call and pass it on;
 * the provider names `node dist/mcp.js` without loading anything, and asks the core for the
 * connection's URLs and key only when VS Code starts the server. Imports nothing but `vscode`.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { AgentsCore } from '../agents/lmTools';
import type { Load } from './standIns';
import { Pending } from './standIns';
import { MCP_PROVIDER } from '../common/ids';
import { atLeast } from './version';

interface Manifest {
  contributes?: { languageModelTools?: { name: string }[] };
}

/** The part of the 1.101 MCP API used here (@types/vscode is 1.100). */
interface McpStdioServerDefinition {
  label: string;
  command: string;
  args: string[];
  env: Record<string, string | number | null>;
  version?: string;
}
interface McpApi {
  registerMcpServerDefinitionProvider(
    id: string,
    provider: {
      onDidChangeMcpServerDefinitions?: vscode.Event<void>;
      provideMcpServerDefinitions(token: vscode.CancellationToken): vscode.ProviderResult<McpStdioServerDefinition[]>;
      resolveMcpServerDefinition?(server: McpStdioServerDefinition, token: vscode.CancellationToken): vscode.ProviderResult<McpStdioServerDefinition>;
    },
  ): vscode.Disposable;
}
type McpStdioServerDefinitionClass = new (label: string, command: string, args?: string[], env?: Record<string, string | number | null>, version?: string) => McpStdioServerDefinition;

/** The MCP server as a child of the editor: its own Node (Electron as Node in desktop VS Code). */
export function mcpCommand(extensionPath: string): { command: string; args: string[]; env: Record<string, string> } {
  return { command: process.execPath, args: [path.join(extensionPath, 'dist', 'mcp.js')], env: { ELECTRON_RUN_AS_NODE: '1' } };
}

/**
 * The MCP server's `--root` arguments: the read tools read files under the workspace folders, as
 * the language model tools do without asking. Without a folder, not the process's working
 * directory (it may be / or the home folder): the server's own folder, which holds nothing of the
 * user's.
 */
export function mcpRoots(serverScript: string): string[] {
  const folders = (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath);
  return (folders.length ? folders : [path.dirname(serverScript)]).flatMap((f) => ['--root', f]);
}

/** A registration that fails (an API that changed under us) leaves the extension working without it. */
function safely<T>(register: () => T): T | undefined {
  try {
    return register();
  } catch (e) {
    console.warn(`svc: ${e instanceof Error ? e.message : String(e)}`);
    return undefined;
  }
}

/** What VS Code asked of a tool's stand-in, in order (the test host's record: src/boot/main.ts). */
export type ToolCallEvent = { tool: string; phase: 'prepare'; prepared: vscode.PreparedToolInvocation | null | undefined } | { tool: string; phase: 'invoke' };

export function registerAgents(context: vscode.ExtensionContext, load: Load, onCall?: (event: ToolCallEvent) => void): { agents: Pending<AgentsCore>; disposables: vscode.Disposable[] } {
  const agents = new Pending<AgentsCore>(load, 'agent tools');
  const disposables: vscode.Disposable[] = [];
  const lm = vscode.lm as Partial<typeof vscode.lm> | undefined;
  if (typeof lm?.registerTool === 'function') {
    const manifest = context.extension.packageJSON as Manifest;
    for (const { name } of manifest.contributes?.languageModelTools ?? []) {
      const real = async () => {
        const tool = (await agents.get()).tools.get(name);
        if (!tool) throw new Error(`svc: no tool ${name}`);
        return tool;
      };
      const registered = safely(() =>
        lm.registerTool!<unknown>(name, {
          prepareInvocation: async (options, token) => {
            const prepared = await (await real()).prepareInvocation?.(options, token);
            onCall?.({ tool: name, phase: 'prepare', prepared });
            return prepared;
          },
          invoke: async (options, token) => {
            onCall?.({ tool: name, phase: 'invoke' });
            return (await real()).invoke(options, token);
          },
        }),
      );
      if (registered) disposables.push(registered);
    }
  }
  const mcp = lm as Partial<McpApi> | undefined;
  const Definition = (vscode as unknown as { McpStdioServerDefinition?: McpStdioServerDefinitionClass }).McpStdioServerDefinition;
  // VS Code 1.100 has a proposed function of that name, which refuses our contribution: 1.101 or later only.
  if (typeof mcp?.registerMcpServerDefinitionProvider === 'function' && Definition && atLeast(vscode.version, 1, 101)) {
    const version = (context.extension.packageJSON as { version?: string }).version;
    const serverCommand = () => {
      const { command, args, env } = mcpCommand(context.extensionUri.fsPath);
      return { command, args: [...args, ...mcpRoots(args[0]!)], env };
    };
    const registered = safely(() =>
      mcp.registerMcpServerDefinitionProvider!(MCP_PROVIDER, {
        provideMcpServerDefinitions: () => {
          const { command, args, env } = serverCommand();
          return [new Definition('svc', command, args, env, version)];
        },
        // Called each time VS Code starts the server: the key goes into the child's environment
        // only. A new definition each time: VS Code hands back the same object on every start, and
        // a key written into it would outlive a sign-out (the next start would still carry it).
        // The same arguments as provided (the --root folders of now), never the bare command.
        resolveMcpServerDefinition: async (server) => {
          const { command, args, env } = serverCommand();
          return new Definition(server.label, command, args, { ...env, ...(await (await agents.get()).mcpEnvironment()) }, version);
        },
      }),
    );
    if (registered) disposables.push(registered);
  }
  return { agents, disposables };
}
