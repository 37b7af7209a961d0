/**
 * The MCP server seen from VS Code: the environment of the server VS Code starts (the
 * connection's URLs, and its key when a command could send it there now, without asking), and the
 * command that copies a configuration for other clients.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Commands } from '../ui/commands';
import type { Logger } from '../common/logger';
import type { Connection } from '../service/connection';
import { mcpConfigSnippets } from './core/mcpSnippet';

/**
 * The child's environment. A key goes in only when the connection would send it to that origin
 * without a question; the trace key serves the model endpoints only where the connection lets it
 * (same origin, or the model endpoints' own approved key).
 */
export async function mcpEnvironment(connection: Connection, log: Logger): Promise<Record<string, string>> {
  const cfg = connection.config;
  // The server says how to sign in the VS Code way (svc: Sign In), not with SVC_API_KEY.
  const env: Record<string, string> = { SVC_MCP_CLIENT: 'vscode' };
  if (cfg.baseUrl) env.SVC_BASE_URL = cfg.baseUrl;
  if (cfg.trainingBaseUrl) env.SVC_TRAINING_BASE_URL = cfg.trainingBaseUrl;
  if (cfg.project) env.SVC_PROJECT = cfg.project;
  if (cfg.feedbackCreator) env.SVC_FEEDBACK_CREATOR = cfg.feedbackCreator;
  const allowed = async (base: 'trace' | 'training') => connection.authorize(base, { prompt: false }).catch(() => undefined);
  const trace = await allowed('trace');
  const training = await allowed('training');
  const sameOrigin = connection.originOf('trace') === connection.originOf('training');
  // The server reads one key for both origins; it must not carry the trace key where the
  // connection would not send it.
  if (trace && (sameOrigin || training)) {
    // An SVC_API_KEY inherited from the editor's environment would win over these: blank it.
    env.SVC_API_KEY = '';
    env.SVC_USERNAME = trace.credentials.username ?? 'api';
    if (trace.credentials.password) env.SVC_PASSWORD = trace.credentials.password;
    const token = (training ?? trace).credentials.accessToken;
    if (token) env.SVC_ACCESS_TOKEN = token;
  } else {
    log.info(`MCP server: started without a key (${trace ? 'the model endpoints are on another origin that the key may not go to' : 'not signed in, or the key is not approved for this service'}).`);
  }
  return env;
}

export function registerMcpConfigCommand({ commands, connection, extensionUri }: { commands: Commands; connection: Connection; extensionUri: vscode.Uri }): vscode.Disposable {
  return commands.register('svc.copyMcpConfig', async () => {
    const cfg = connection.config;
    const text = mcpConfigSnippets({
      serverPath: path.join(extensionUri.fsPath, 'dist', 'mcp.js'),
      baseUrl: cfg.baseUrl || undefined,
      trainingBaseUrl: cfg.trainingBaseUrl || undefined,
      project: cfg.project || undefined,
    });
    await vscode.env.clipboard.writeText(text);
    vscode.window.showInformationMessage('svc: MCP server configuration for VS Code, Claude Code and Cursor copied. It names the key by SVC_API_KEY; set that variable in your shell.');
    return text;
  });
}
