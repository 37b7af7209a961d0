/**
 * The MCP server's configuration for VS Code, Claude Code and Cursor, as the clipboard text of
 * "svc: Copy MCP Server Configuration". The key is named by its environment variable
 * (SVC_API_KEY), never written. Pure: no vscode import.
 */

export interface McpSnippetOptions {
  /** The absolute path of dist/mcp.js. */
  serverPath: string;
  baseUrl?: string;
  trainingBaseUrl?: string;
  project?: string;
}

function env(o: McpSnippetOptions, key: string): Record<string, string> {
  // eslint-disable-next-line svc/null-prototype-records -- fixed names written here (environment variables), not data
  const out: Record<string, string> = {};
  if (o.baseUrl) out.SVC_BASE_URL = o.baseUrl;
  if (o.trainingBaseUrl) out.SVC_TRAINING_BASE_URL = o.trainingBaseUrl;
  if (o.project) out.SVC_PROJECT = o.project;
  out.SVC_API_KEY = key;
  return out;
}

const json = (v: unknown) => JSON.stringify(v, null, 2);

export function mcpConfigSnippets(o: McpSnippetOptions): string {
  const args = [o.serverPath];
  return [
    '# svc MCP server (stdio): node dist/mcp.js [--read-only] [--root <folder>]...',
    '# The key comes from the SVC_API_KEY environment variable: set it in your shell profile, not in these files.',
    '# (Or a "machine <host> login user password <key>" entry in ~/.netrc.) Add "--read-only" to args to leave out uploads and feedback.',
    '# The read tools read files under the server\'s working directory only (the project folder where the client starts it there);',
    '# add "--root", "<folder>" to args for each other folder they may read.',
    `# The path is this extension's installed copy (${o.serverPath}); it changes when the extension updates.`,
    '',
    '## VS Code: .vscode/mcp.json (VS Code 1.101+ also lists "svc" by itself, signed in as in the extension)',
    json({ servers: { svc: { type: 'stdio', command: 'node', args: [...args, '--root', '${workspaceFolder}'], env: env(o, '${env:SVC_API_KEY}') } } }),
    '',
    '## Claude Code: .mcp.json in the project (or: claude mcp add svc -- node <path>)',
    json({ mcpServers: { svc: { type: 'stdio', command: 'node', args, env: env(o, '${SVC_API_KEY}') } } }),
    '',
    '## Cursor: .cursor/mcp.json (or ~/.cursor/mcp.json)',
    json({ mcpServers: { svc: { command: 'node', args, env: env(o, '${env:SVC_API_KEY}') } } }),
    '',
  ].join('\n');
}
