/**
 * Copy Link: `svc.threads.copyLink` (a thread row, the thread details panel, or `{ threadId,
 * project? }`) and `svc.checkpoints.copyLink` (a model or checkpoint row, or `{ modelId, step? }`).
 * The link carries the receiving editor's scheme (vscode.env.uriScheme), so it opens in the
 * flavor of VS Code that whoever clicks it runs. Nothing here prompts.
 */
import * as vscode from 'vscode';
import { InputError } from '../api';
import { registerCommand, scriptArgs } from '../ui/commands';
import { linkFor, type LinkTarget } from './link';

export interface CopyLinkDeps {
  /** The selected project (a scripted thread link without one uses it). */
  project(): string;
  /** The thread on show in the details panel, if any. */
  currentThread(): { project: string; threadId: string } | undefined;
}

/** Puts the link to `target` on the clipboard and returns it. */
export async function copyLink(target: LinkTarget): Promise<string> {
  let link: string;
  try {
    link = linkFor(vscode.env.uriScheme, target);
  } catch (e) {
    throw new InputError(`No link can be made: ${e instanceof Error ? e.message : String(e)}.`);
  }
  await vscode.env.clipboard.writeText(link);
  vscode.window.setStatusBarMessage(`svc: copied the link to ${target.kind === 'thread' ? `thread ${target.threadId}` : target.kind === 'model' ? `model ${target.modelId}` : `step ${target.step} of ${target.modelId}`}`, 3000);
  return link;
}

const str = (v: unknown) => (typeof v === 'string' && v.trim() ? v.trim() : undefined);

export function registerLinkCommands(deps: CopyLinkDeps): vscode.Disposable[] {
  return [
    registerCommand('svc.threads.copyLink', (_how, arg?: unknown) => {
      const args = scriptArgs(arg) as { threadId?: unknown; project?: unknown } | undefined;
      if (args !== undefined) {
        if (typeof args !== 'object' || !str(args.threadId)) throw new InputError('svc.threads.copyLink takes a thread row or { threadId, project? }.', { field: 'threadId' });
        if (args.project !== undefined && !str(args.project)) throw new InputError('svc.threads.copyLink: "project" must be a project id such as acme/chatbot.', { field: 'project' });
        const project = str(args.project) ?? deps.project();
        if (!project) throw new InputError('svc.threads.copyLink: no project is selected; pass { project }.', { field: 'project' });
        return copyLink({ kind: 'thread', project, threadId: str(args.threadId)! });
      }
      const node = arg as { kind?: string; project?: string; row?: { thread_id: string } } | undefined;
      if (node?.kind === 'thread' && node.project && node.row) return copyLink({ kind: 'thread', project: node.project, threadId: node.row.thread_id });
      const current = deps.currentThread();
      if (!current) throw new InputError('svc: select a thread in the Threads view first.');
      return copyLink({ kind: 'thread', ...current });
    }),
    registerCommand('svc.checkpoints.copyLink', (_how, arg?: unknown) => {
      const args = scriptArgs(arg) as { modelId?: unknown; step?: unknown } | undefined;
      if (args !== undefined) {
        const modelId = typeof args === 'object' ? str(args.modelId) : undefined;
        if (!modelId) throw new InputError('svc.checkpoints.copyLink takes a model or checkpoint row, or { modelId, step? }.', { field: 'modelId' });
        if (args.step === undefined) return copyLink({ kind: 'model', modelId });
        if (typeof args.step !== 'number' || !Number.isSafeInteger(args.step) || args.step < 0) throw new InputError(`svc.checkpoints.copyLink: "step" must be a whole number of 0 or more, not ${JSON.stringify(args.step)}.`, { field: 'step' });
        return copyLink({ kind: 'checkpoint', modelId, step: args.step });
      }
      const node = arg as { kind?: string; modelId?: string; checkpoint?: { step: number } } | undefined;
      if (node?.kind === 'model' && node.modelId) return copyLink({ kind: 'model', modelId: node.modelId });
      if (node?.kind === 'checkpoint' && node.modelId && node.checkpoint) return copyLink({ kind: 'checkpoint', modelId: node.modelId, step: node.checkpoint.step });
      throw new InputError('svc.checkpoints.copyLink takes a model or checkpoint row, or { modelId, step? }.');
    }),
  ];
}
