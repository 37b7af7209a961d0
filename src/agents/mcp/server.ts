/**
 * The MCP server: the agents' tools (core/tools.ts) over the Model Context Protocol, on the
 * official SDK's low-level Server, so the tools' JSON Schemas and descriptions are exactly the ones
 * VS Code gets. Every call answers a text result; a failure is `isError`, never a crash.
 * No vscode import.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ToolHost } from '../core/host';
import { inputSchemaOf, READ_TOOLS, runTool, TOOLS } from '../core/tools';

/** Tools that read local files only: they reach nothing outside this machine. */
const LOCAL_TOOLS = new Set(['svc_summarize_trajectories', 'svc_explain_trajectory']);

export interface McpServerOptions {
  version: string;
  /** Leave out the write tools (feedback, upload). */
  readOnly: boolean;
}

export function createMcpServer(host: ToolHost, options: McpServerOptions): Server {
  const tools = options.readOnly ? READ_TOOLS : TOOLS;
  const server = new Server(
    { name: 'svc', version: options.version },
    {
      capabilities: { tools: {} },
      instructions:
        'Tools for the svc service: conversation threads, training checkpoints and run health, local trajectory files, feedback and trajectory uploads. ' +
        'Results are text with Markdown tables; long results say how to get the rest.' +
        (options.readOnly ? ' This server is read-only.' : ' Uploads and feedback write to the service.'),
    },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: tools.map((t) => ({
      name: t.name,
      title: t.title,
      description: t.description,
      inputSchema: inputSchemaOf(t) as { type: 'object'; [k: string]: unknown },
      annotations: { title: t.title, readOnlyHint: !t.write, destructiveHint: false, idempotentHint: !t.write, openWorldHint: !LOCAL_TOOLS.has(t.name) },
    })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const tool = tools.find((t) => t.name === request.params.name);
    if (!tool) {
      const why = TOOLS.some((t) => t.name === request.params.name) ? ' (this server was started with --read-only)' : '';
      return { content: [{ type: 'text', text: `Unknown tool "${request.params.name}"${why}. Tools: ${tools.map((t) => t.name).join(', ')}.` }], isError: true };
    }
    const result = await runTool(host, tool, request.params.arguments, extra.signal);
    return { content: [{ type: 'text', text: result.text }], isError: result.isError };
  });
  return server;
}
