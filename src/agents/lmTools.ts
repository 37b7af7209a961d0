/**
 * The agents' tools as VS Code language model tools (contributes.languageModelTools). The
 * activation bundle registers a stand-in per tool (src/boot/agents.ts); these are the real ones it
 * passes every call to. Reads show an invocation message; writes ask for confirmation first.
 * Results and failures are both text: nothing a model sends throws into the host.
 */
import * as vscode from 'vscode';
import type { ToolHost } from './core/host';
import { prepareTool, runTool, TOOLS, type AgentTool } from './core/tools';

function signalOf(token: vscode.CancellationToken | undefined): AbortSignal | undefined {
  if (!token) return undefined;
  const controller = new AbortController();
  if (token.isCancellationRequested) controller.abort();
  else token.onCancellationRequested(() => controller.abort());
  return controller.signal;
}

export function languageModelTool(host: ToolHost, t: AgentTool): vscode.LanguageModelTool<unknown> {
  return {
    async prepareInvocation(options, token) {
      const { progress, confirmation } = await prepareTool(host, t, options.input, signalOf(token));
      return { invocationMessage: progress, ...(confirmation ? { confirmationMessages: confirmation } : {}) };
    },
    async invoke(options, token) {
      const result = await runTool(host, t, options.input, signalOf(token));
      return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(result.text)]);
    },
  };
}

/** Every tool, by name, for the stand-ins. */
export function languageModelTools(host: ToolHost): Map<string, vscode.LanguageModelTool<unknown>> {
  return new Map(TOOLS.map((t) => [t.name, languageModelTool(host, t)]));
}
