// The tool host of the agents' read tools in the plain-Node tests: no service and no key; files
// under `roots` are read, any other refused by name (as the MCP server does).
import * as path from 'node:path';
import type { ToolHost } from '../../../src/agents/core/host';

/** `base`: what a relative path is resolved against (default the working directory). */
export function readHost(roots: readonly string[], base?: string): ToolHost {
  return {
    client: () => ({ problem: 'no service in this test' }),
    keyProblem: async () => 'no key in this test',
    origin: () => undefined,
    defaultProject: () => undefined,
    resolvePath: (f) => (base === undefined ? path.resolve(f) : path.resolve(base, f)),
    feedbackCreator: () => undefined,
    signInHint: '',
    readRoots: () => roots,
    outsideRoots: 'refuse',
    redact: (t) => t,
  };
}
