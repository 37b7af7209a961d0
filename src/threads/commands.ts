import * as vscode from 'vscode';
import { callRef, THREAD_SORT_FIELDS, type SortBy } from '../api';
import { registerCommand } from '../common/interaction';
import { checkDateTime, parseThreadIds, RELATIVE_PRESETS, sortLabel, type RelativePreset, type ThreadFilter } from './filter';
import { threadDetailsUri, type ThreadDetailsProvider } from './details';
import type { ThreadsModel } from './model';
import type { ThreadNode } from './provider';

/** A thread as commands receive it: a tree node, or `{ threadId }` when scripted. */
type ThreadArg = ThreadNode | { threadId: string } | undefined;

export type FilterArgs = { preset: RelativePreset } | { after?: string; before?: string } | { threadIds: string[] };

export function registerThreadCommands(model: ThreadsModel, details: ThreadDetailsProvider): vscode.Disposable[] {
  const rowOf = (arg: ThreadArg) => {
    // A tree node carries its row, so a click still works while the view reloads; a scripted
    // `{ threadId }` is looked up among the loaded rows.
    const row = arg && 'kind' in arg ? (arg.kind === 'thread' ? arg.row : undefined) : arg?.threadId !== undefined ? model.findRow(arg.threadId) : undefined;
    if (!row) void vscode.window.showWarningMessage('svc: select a thread in the Threads view first.');
    return row;
  };
  const copy = async (text: string, what: string) => {
    await vscode.env.clipboard.writeText(text);
    vscode.window.setStatusBarMessage(`svc: copied ${what}`, 3000);
    return text;
  };
  const copyTurnRef = async (arg: ThreadArg, which: 'first' | 'last') => {
    const row = rowOf(arg);
    if (!row) return undefined;
    const id = which === 'first' ? row.first_turn_id : row.last_turn_id;
    if (!id) {
      void vscode.window.showWarningMessage(`svc: thread ${row.thread_id} has no ${which} turn id.`);
      return undefined;
    }
    return copy(callRef(model.project, id), `the ${which} turn ref`);
  };

  return [
    registerCommand('svc.threads.refresh', (how) => {
      model.reset();
      return model.loadMore(how);
    }),
    registerCommand('svc.threads.loadMore', (how) => model.loadMore(how)),
    registerCommand('svc.threads.sortBy', (_how, args?: Partial<SortBy>) => sortBy(model, args)),
    registerCommand('svc.threads.filter', (_how, args?: FilterArgs) => filter(model, args)),
    registerCommand('svc.threads.clearFilter', () => model.setFilter(undefined)),
    registerCommand('svc.threads.copyId', (_how, arg: ThreadArg) => {
      const row = rowOf(arg);
      return row ? copy(row.thread_id, 'the thread id') : undefined;
    }),
    registerCommand('svc.threads.copyFirstTurnRef', (_how, arg: ThreadArg) => copyTurnRef(arg, 'first')),
    registerCommand('svc.threads.copyLastTurnRef', (_how, arg: ThreadArg) => copyTurnRef(arg, 'last')),
    registerCommand('svc.threads.openDetails', async (_how, arg: ThreadArg) => {
      const row = rowOf(arg);
      if (!row) return undefined;
      const uri = threadDetailsUri(model.project, row.thread_id);
      details.remember(model.project, row);
      const doc = await vscode.workspace.openTextDocument(uri);
      await vscode.languages.setTextDocumentLanguage(doc, 'json');
      await vscode.window.showTextDocument(doc, { preview: true });
      return doc.uri.toString();
    }),
  ];
}

async function sortBy(model: ThreadsModel, args?: Partial<SortBy>): Promise<void> {
  let next: SortBy | undefined;
  if (args?.field) {
    if (!(THREAD_SORT_FIELDS as readonly string[]).includes(args.field)) {
      throw new Error(`Unknown sort field "${args.field}"; use one of ${THREAD_SORT_FIELDS.join(', ')}.`);
    }
    next = { field: args.field, direction: args.direction === 'asc' ? 'asc' : 'desc' };
  } else {
    const current = model.sort;
    const items = THREAD_SORT_FIELDS.flatMap((field) =>
      (['desc', 'asc'] as const).map((direction) => ({
        label: `${sortLabel(field)} ${direction === 'asc' ? '↑ ascending' : '↓ descending'}`,
        description: field === current.field && direction === current.direction ? 'current' : field,
        sort: { field, direction },
      })),
    );
    const pick = await vscode.window.showQuickPick(items, { title: 'svc: Sort threads by', placeHolder: 'Field and direction' });
    next = pick?.sort;
  }
  if (next) await model.setSort(next);
}

async function filter(model: ThreadsModel, args?: FilterArgs): Promise<void> {
  if (args) {
    await model.setFilter(filterFromArgs(args));
    return;
  }
  type Item = vscode.QuickPickItem & { id: RelativePreset | 'range' | 'ids' };
  const items: Item[] = [
    ...(Object.keys(RELATIVE_PRESETS) as RelativePreset[]).map((id) => ({ label: RELATIVE_PRESETS[id].label, id })),
    { label: 'Custom range…', description: 'after and/or before an ISO date-time', id: 'range' },
    { label: 'Thread ids…', description: 'one or more thread ids', id: 'ids' },
  ];
  const pick = await vscode.window.showQuickPick(items, { title: 'svc: Filter threads' });
  if (!pick) return;
  if (pick.id === 'range') {
    const ask = (which: string) =>
      vscode.window.showInputBox({
        title: `svc: Threads with calls started ${which} (empty for no bound)`,
        placeHolder: '2026-11-20T09:00:00Z',
        validateInput: (v) => (v.trim() === '' ? undefined : checkDateTime(v)),
      });
    const after = await ask('after');
    if (after === undefined) return;
    const before = await ask('before');
    if (before === undefined) return;
    if (!after.trim() && !before.trim()) return;
    await model.setFilter(filterFromArgs({ after: after.trim() || undefined, before: before.trim() || undefined }));
  } else if (pick.id === 'ids') {
    const text = await vscode.window.showInputBox({
      title: 'svc: Thread ids',
      prompt: 'Separated by commas or spaces',
      validateInput: (v) => (parseThreadIds(v).length ? undefined : 'Enter at least one thread id'),
    });
    if (text === undefined) return;
    await model.setFilter({ kind: 'ids', threadIds: parseThreadIds(text) });
  } else {
    await model.setFilter({ kind: 'relative', preset: pick.id });
  }
}

export function filterFromArgs(args: FilterArgs): ThreadFilter {
  if ('preset' in args) {
    if (!(args.preset in RELATIVE_PRESETS)) throw new Error(`Unknown filter preset "${args.preset}"; use hour, day, week or month.`);
    return { kind: 'relative', preset: args.preset };
  }
  if ('threadIds' in args) {
    if (!Array.isArray(args.threadIds) || args.threadIds.length === 0) throw new Error('threadIds must be a non-empty list.');
    return { kind: 'ids', threadIds: args.threadIds.map(String) };
  }
  for (const value of [args.after, args.before]) {
    const problem = value ? checkDateTime(value) : undefined;
    if (problem) throw new Error(`"${value}": ${problem}`);
  }
  if (!args.after && !args.before) throw new Error('A range needs after, before or both.');
  return { kind: 'range', after: args.after, before: args.before };
}
