/**
 * The agents' tools as VS Code language model tools (contributes.languageModelTools). The
 * activation bundle registers a stand-in per tool (src/boot/agents.ts); these are the real ones it
 * passes every call to. Reads show an invocation message; writes ask for confirmation first.
 * Results and failures are both text: nothing a model sends throws into the host.
 */
import * as vscode from 'vscode';
import type { ToolHost } from './core/host';
import { prepareTool, runTool, TOOLS, type AgentTool } from './core/tools';

/** An AbortSignal that follows a cancellation token, for the duration of `run`. */
async function withSignal<T>(token: vscode.CancellationToken | undefined, run: (signal: AbortSignal | undefined) => Promise<T>): Promise<T> {
  if (!token) return run(undefined);
  const controller = new AbortController();
  if (token.isCancellationRequested) controller.abort();
  const listener = token.onCancellationRequested(() => controller.abort());
  try {
    return await run(controller.signal);
  } finally {
    listener.dispose();
  }
}

/** How long a confirmed read of a file outside the workspace stays allowed for the invocation that follows. */
const CONFIRMED_MS = 10 * 60 * 1000;

export function languageModelTool(host: ToolHost, t: AgentTool): vscode.LanguageModelTool<unknown> {
  // Real paths outside the workspace that a confirmation named: VS Code invokes a tool only once
  // its confirmation was accepted, and the run reads only what the confirmation named.
  const confirmed = new Map<string, number>();
  return {
    async prepareInvocation(options, token) {
      const { progress, confirmation, outside } = await withSignal(token, (signal) => prepareTool(host, t, options.input, signal));
      const now = Date.now();
      for (const [p, until] of confirmed) if (until < now) confirmed.delete(p);
      for (const p of outside ?? []) confirmed.set(p, now + CONFIRMED_MS);
      return { invocationMessage: progress, ...(confirmation ? { confirmationMessages: confirmation } : {}) };
    },
    async invoke(options, token) {
      const allowOutside = (p: string) => (confirmed.get(p) ?? 0) >= Date.now();
      const result = await withSignal(token, (signal) => runTool(host, t, options.input, signal, { allowOutside }));
      return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(result.text)]);
    },
  };
}

/** What the core hands over for the agents (to the activation bundle's stand-ins, src/boot/agents.ts). */
export interface AgentsCore {
  tools: Map<string, vscode.LanguageModelTool<unknown>>;
  /** The environment of the MCP server's process: URLs and, when it may go there, the key. */
  mcpEnvironment(): Promise<Record<string, string>>;
}

/** Every tool, by name, for the stand-ins. */
export function languageModelTools(host: ToolHost): Map<string, vscode.LanguageModelTool<unknown>> {
  return new Map(TOOLS.map((t) => [t.name, languageModelTool(host, t)]));
}
