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

export function languageModelTool(host: ToolHost, t: AgentTool): vscode.LanguageModelTool<unknown> {
  return {
    async prepareInvocation(options, token) {
      const { progress, confirmation } = await withSignal(token, (signal) => prepareTool(host, t, options.input, signal));
      return { invocationMessage: progress, ...(confirmation ? { confirmationMessages: confirmation } : {}) };
    },
    async invoke(options, token) {
      const result = await withSignal(token, (signal) => runTool(host, t, options.input, signal));
      return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(result.text)]);
    },
  };
}

/** Every tool, by name, for the stand-ins. */
export function languageModelTools(host: ToolHost): Map<string, vscode.LanguageModelTool<unknown>> {
  return new Map(TOOLS.map((t) => [t.name, languageModelTool(host, t)]));
}
