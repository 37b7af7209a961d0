/**
 * `node dist/mcp.js [--read-only] [--root <folder>]...`: the svc MCP server over stdio. The read
 * tools read files under the `--root` folders only (default: the working directory). Reads SVC_BASE_URL,
 * SVC_TRAINING_BASE_URL, SVC_API_KEY (or SVC_PASSWORD / SVC_ACCESS_TOKEN), SVC_PROJECT,
 * SVC_FEEDBACK_CREATOR, the netrc file (NETRC) and the proxy variables. stdout carries the protocol
 * only; messages go to stderr, without keys.
 */
import { statSync } from 'node:fs';
import * as path from 'node:path';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { EnvHost } from './host';
import { createMcpServer } from './server';

declare const SVC_VERSION: string | undefined;

const USAGE = `Usage: node dist/mcp.js [--read-only] [--root <folder>]...

The svc MCP server (stdio). Tools: svc_list_threads, svc_list_checkpoints, svc_summarize_run,
svc_summarize_trajectories, svc_explain_trajectory, svc_attach_feedback, svc_upload_trajectories.

  --read-only      leave out the two write tools (svc_attach_feedback, svc_upload_trajectories)
  --root <folder>  the read tools (svc_summarize_run's historyFile, svc_summarize_trajectories)
                   read regular files under this folder only, links resolved first; repeat it for
                   several folders. Default: the working directory. A file elsewhere is refused
                   by name. Relative paths given to the tools resolve against the working directory.
  --help           show this text

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
  const parsed = parseArgs(argv, process.cwd());
  if ('problem' in parsed) {
    process.stderr.write(`svc-mcp: ${parsed.problem}\n\n${USAGE}`);
    process.exitCode = 2;
    return;
  }
  const { readOnly, roots } = parsed;
  const host = new EnvHost({ env, cwd: process.cwd(), roots, userAgent: `svc-mcp/${version}` });
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
  process.stderr.write(`svc-mcp ${version}: ready${readOnly ? ' (read-only)' : ''}, service ${host.origin('trace') ?? 'not configured (SVC_BASE_URL)'}, reads files under ${host.readRoots().join(', ')}\n`);
}

/** The command line: `--read-only`, `--root <folder>` / `--root=<folder>` (repeatable, each an existing folder). */
export function parseArgs(argv: readonly string[], cwd: string): { readOnly: boolean; roots: string[] } | { problem: string } {
  let readOnly = false;
  const roots: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--read-only') readOnly = true;
    else if (a === '--root' || a.startsWith('--root=')) {
      const value = a === '--root' ? argv[++i] : a.slice('--root='.length);
      if (!value) return { problem: '--root needs a folder' };
      const root = path.resolve(cwd, value);
      let isFolder = false;
      try {
        isFolder = statSync(root).isDirectory();
      } catch {
        // Missing: said below.
      }
      if (!isFolder) return { problem: `--root ${value}: ${root} is not a folder` };
      roots.push(root);
    } else return { problem: `unknown argument ${a}` };
  }
  return { readOnly, roots: roots.length ? roots : [cwd] };
}

if (require.main === module) {
  main(process.argv.slice(2), process.env).catch((e: unknown) => {
    process.stderr.write(`svc-mcp: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  });
}
