/**
 * `node dist/mcp.js [--read-only]`: the svc MCP server over stdio. Reads SVC_BASE_URL,
 * SVC_TRAINING_BASE_URL, SVC_API_KEY (or SVC_PASSWORD / SVC_ACCESS_TOKEN), SVC_PROJECT,
 * SVC_FEEDBACK_CREATOR, the netrc file (NETRC) and the proxy variables. stdout carries the protocol
 * only; messages go to stderr, without keys.
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { EnvHost } from './host';
import { createMcpServer } from './server';

declare const SVC_VERSION: string | undefined;

const USAGE = `Usage: node dist/mcp.js [--read-only]

The svc MCP server (stdio). Tools: svc_list_threads, svc_list_checkpoints, svc_summarize_run,
svc_summarize_trajectories, svc_explain_trajectory, svc_attach_feedback, svc_upload_trajectories.

  --read-only   leave out the two write tools (svc_attach_feedback, svc_upload_trajectories)
  --help        show this text

Environment:
  SVC_BASE_URL           the service (trace endpoints), e.g. https://svc.example.com
  SVC_TRAINING_BASE_URL  the model endpoints, when not at SVC_BASE_URL
  SVC_API_KEY            the API key (or SVC_PASSWORD / SVC_ACCESS_TOKEN, SVC_USERNAME)
                         else the netrc entry "machine <host>" (a "default" entry is never used)
  SVC_PROJECT            the project svc_list_threads uses when none is given
  SVC_FEEDBACK_CREATOR   the creator name sent with feedback
`;

export async function main(argv: readonly string[], env: NodeJS.ProcessEnv): Promise<void> {
  const version = typeof SVC_VERSION === 'string' ? SVC_VERSION : '0.0.0';
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(USAGE);
    return;
  }
  if (argv.includes('--version')) {
    process.stdout.write(`${version}\n`);
    return;
  }
  const unknown = argv.filter((a) => a !== '--read-only');
  if (unknown.length) {
    process.stderr.write(`svc-mcp: unknown argument ${unknown.join(' ')}\n\n${USAGE}`);
    process.exitCode = 2;
    return;
  }
  const readOnly = argv.includes('--read-only');
  const host = new EnvHost({ env, cwd: process.cwd(), userAgent: `svc-mcp/${version}` });
  const server = createMcpServer(host, { version, readOnly });
  const transport = new StdioServerTransport();
  const stop = () => {
    host.close().then(
      () => process.exit(0),
      () => process.exit(0),
    );
  };
  // The client went away (stdin closed) or the server was closed: nothing is left to answer.
  server.onclose = stop;
  process.stdin.on('end', stop);
  process.stdin.on('close', stop);
  process.on('SIGTERM', stop);
  await server.connect(transport);
  process.stderr.write(`svc-mcp ${version}: ready${readOnly ? ' (read-only)' : ''}, service ${host.origin('trace') ?? 'not configured (SVC_BASE_URL)'}\n`);
}

if (require.main === module) {
  main(process.argv.slice(2), process.env).catch((e: unknown) => {
    process.stderr.write(`svc-mcp: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  });
}
