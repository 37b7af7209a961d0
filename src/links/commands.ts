/**
 * Copy Link: `svc.threads.copyLink` (a thread row, the thread details panel, or `{ threadId,
 * project? }`) and `svc.checkpoints.copyLink` (a model or checkpoint row, or `{ modelId, step? }`).
 * The link carries the receiving editor's scheme (vscode.env.uriScheme), so it opens in the
 * flavor of VS Code that whoever clicks it runs. Nothing here prompts.
 */
import * as vscode from 'vscode';
import { z } from 'zod';
import { InputError } from '../api';
import { scriptArgs, type Commands } from '../ui/commands';
import { nonBlank, parseArgs } from '../ui/args';
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

const THREAD_LINK_USAGE = 'a thread row or { threadId, project? }';
const THREAD_LINK_ARGS = z.object({ threadId: nonBlank(), project: nonBlank('"project" must be a project id such as acme/chatbot').optional() });
const CHECKPOINT_LINK_USAGE = 'a model or checkpoint row, or { modelId, step? }';
const notAStep = (issue: { input?: unknown }) => `"step" must be a whole number of 0 or more, not ${JSON.stringify(issue.input)}`;
const CHECKPOINT_LINK_ARGS = z.object({ modelId: nonBlank(), step: z.int({ error: notAStep }).min(0, { error: notAStep }).optional() });

/** Copy Link's commands. */
export function registerCopyLinkCommands(commands: Commands, deps: CopyLinkDeps): vscode.Disposable[] {
  return [
    commands.register('svc.threads.copyLink', (_how, arg?: unknown) => {
      const script = scriptArgs(arg);
      if (script !== undefined) {
        const args = parseArgs('svc.threads.copyLink', THREAD_LINK_ARGS, script, THREAD_LINK_USAGE);
        const project = args.project?.trim() ?? deps.project();
        if (!project) throw new InputError('svc.threads.copyLink: no project is selected; pass { project }.', { field: 'project' });
        return copyLink({ kind: 'thread', project, threadId: args.threadId.trim() });
      }
      const node = arg as { kind?: string; project?: string; row?: { thread_id: string } } | undefined;
      if (node?.kind === 'thread' && node.project && node.row) return copyLink({ kind: 'thread', project: node.project, threadId: node.row.thread_id });
      const current = deps.currentThread();
      if (!current) throw new InputError('svc: select a thread in the Threads view first.');
      return copyLink({ kind: 'thread', ...current });
    }),
    commands.register('svc.checkpoints.copyLink', (_how, arg?: unknown) => {
      const script = scriptArgs(arg);
      if (script !== undefined) {
        const { modelId, step } = parseArgs('svc.checkpoints.copyLink', CHECKPOINT_LINK_ARGS, script, CHECKPOINT_LINK_USAGE);
        return step === undefined ? copyLink({ kind: 'model', modelId: modelId.trim() }) : copyLink({ kind: 'checkpoint', modelId: modelId.trim(), step });
      }
      const node = arg as { kind?: string; modelId?: string; checkpoint?: { step: number } } | undefined;
      if (node?.kind === 'model' && node.modelId) return copyLink({ kind: 'model', modelId: node.modelId });
      if (node?.kind === 'checkpoint' && node.modelId && node.checkpoint) return copyLink({ kind: 'checkpoint', modelId: node.modelId, step: node.checkpoint.step });
      throw new InputError(`svc.checkpoints.copyLink takes ${CHECKPOINT_LINK_USAGE}.`);
    }),
  ];
}
