import * as vscode from 'vscode';
import { z } from 'zod';
import { InputError, callRef, THREAD_SORT_FIELDS, type SortBy, type ThreadRow } from '../api';
import { pickOrType, pickScope } from '../common/pick';
import { scriptArgs, type Commands } from '../ui/commands';
import { nonBlank, parseArgs, settingsScope } from '../ui/args';
import { isTreeNode } from '../ui/treeNodes';
import { checkDateBound, DATE_BOUND_HELP, parseDateBound, parseThreadIds, RELATIVE_PRESETS, sortLabel, type RelativePreset, type ThreadFilter } from './filter';
import type { ThreadsManager } from './manager';
import type { ThreadNode } from './provider';

/** A thread as a script names it (a row of the view is a tree node). */
const THREAD_ARGS = z.object({ threadId: nonBlank('select a thread in the Threads view first, or pass { threadId }') });

export interface ThreadsCommandsDeps {
  commands: Commands;
  manager: ThreadsManager;
}

/** The Threads view's commands and Select Project: thin, over the manager (arguments parsed, the rest asked). */
export function registerThreadsCommands({ commands, manager }: ThreadsCommandsDeps): vscode.Disposable[] {
  const { model } = manager;
  /**
   * The thread a command is about. A Threads view row (known by identity, src/ui/treeNodes.ts, not
   * by its fields) carries its row, so a click still works while the view reloads; a scripted
   * `{ threadId }` is looked up among the loaded rows of the current project.
   */
  const threadOf = (command: string, arg: unknown): { row: ThreadRow; project: string } => {
    const script = scriptArgs(arg);
    if (isTreeNode(arg)) {
      const node = arg as ThreadNode;
      if (node.kind === 'thread') return { row: node.row, project: node.project };
    } else if (script !== undefined) {
      const row = model.findRow(parseArgs(command, THREAD_ARGS, script).threadId);
      if (row) return { row, project: model.project };
    }
    throw new InputError('svc: select a thread in the Threads view first.');
  };
  const rowOf = (command: string, arg: unknown) => threadOf(command, arg).row;
  const copy = async (text: string, what: string) => {
    await vscode.env.clipboard.writeText(text);
    vscode.window.setStatusBarMessage(`svc: copied ${what}`, 3000);
    return text;
  };
  const copyTurnRef = async (arg: unknown, which: 'first' | 'last') => {
    const row = rowOf(which === 'first' ? 'svc.threads.copyFirstTurnRef' : 'svc.threads.copyLastTurnRef', arg);
    const id = which === 'first' ? row.first_turn_id : row.last_turn_id;
    if (!id) throw new InputError(`svc: thread ${row.thread_id} has no ${which} turn id.`, { field: `${which}_turn_id` });
    return copy(callRef(model.project, id), `the ${which} turn ref`);
  };

  return [
    registerProjectCommand(commands, manager),
    // The view-title commands get the focused row from VS Code; none of them reads it as arguments.
    commands.register('svc.threads.refresh', (how) => model.refresh(how)),
    commands.register('svc.threads.loadMore', (how) => model.loadMore(how)),
    commands.register('svc.threads.sortBy', (_how, arg?: unknown) => sortBy(manager, scriptArgs(arg))),
    commands.register('svc.threads.filter', (_how, arg?: unknown) => filter(manager, scriptArgs(arg))),
    commands.register('svc.threads.clearFilter', () => manager.filter(undefined)),
    commands.register('svc.threads.copyId', (_how, arg?: unknown) => {
      return copy(rowOf('svc.threads.copyId', arg).thread_id, 'the thread id');
    }),
    commands.register('svc.threads.copyFirstTurnRef', (_how, arg?: unknown) => copyTurnRef(arg, 'first')),
    commands.register('svc.threads.copyLastTurnRef', (_how, arg?: unknown) => copyTurnRef(arg, 'last')),
    commands.register('svc.threads.openDetails', async (_how, arg?: unknown) => {
      const { row, project } = threadOf('svc.threads.openDetails', arg);
      await manager.showThread(project, row);
      return undefined;
    }),
    // Show Thread after Import Calls: `{ threadIds, project? }`; one thread opens its details too.
    commands.register('svc.threads.show', (_how, arg?: unknown) => {
      const a = parseArgs('svc.threads.show', SHOW_ARGS, arg ?? {}, '{ threadIds: [...], project? }');
      return manager.showImported(a.project ?? model.project, a.threadIds);
    }),
    commands.register('svc.threads.openJson', async (_how, arg?: unknown) => {
      const { row, project } = threadOf('svc.threads.openJson', arg);
      return manager.openJson(project, row);
    }),
  ];
}

const SHOW_ARGS = z.object({ threadIds: z.array(z.string()).min(1), project: z.string().optional() });

/**
 * An object of `shape`'s keys only: anything else is refused naming the unknown keys, and a value
 * that is not an object names the keys the command takes.
 */
function argsObject<T extends z.core.$ZodLooseShape>(command: string, shape: T) {
  const keys = Object.keys(shape).join(', ');
  return z.strictObject(shape, {
    error: (issue) => {
      if (issue.code === 'unrecognized_keys') return `unknown argument${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `"${k}"`).join(', ')}; use ${keys}`;
      if (issue.code === 'invalid_type') return `${command} takes an object argument with ${keys}`;
      return undefined;
    },
  });
}

const SORT_FIELDS = `use one of ${THREAD_SORT_FIELDS.join(', ')}`;
const SORT_ARGS = argsObject('svc.threads.sortBy', {
  field: z.enum(THREAD_SORT_FIELDS, { error: (issue) => (issue.input === undefined ? `A sort field is needed; ${SORT_FIELDS}` : `Unknown sort field ${JSON.stringify(issue.input)}; ${SORT_FIELDS}`) }),
  direction: z.enum(['asc', 'desc'], { error: (issue) => `Unknown sort direction ${JSON.stringify(issue.input)}; use asc or desc` }).optional(),
});

/** A date bound: empty or null is no bound. */
const dateBound = (name: string) => z.string({ error: `${name} must be a string such as 2026-11-15 or 2026-11-15T09:00:00Z` }).nullable().optional();
const FILTER_FORMS = '{ preset }, { after, before } or { threadIds }';
/** `{ preset }`, `{ after?, before? }` (dates, see parseDateBound) or `{ threadIds }`: one form, as the filter the view applies. */
const FILTER_ARGS = argsObject('svc.threads.filter', {
  preset: z.enum(Object.keys(RELATIVE_PRESETS) as [RelativePreset, ...RelativePreset[]], { error: (issue) => `Unknown filter preset ${JSON.stringify(issue.input)}; use hour, day, week or month` }).optional(),
  after: dateBound('after'),
  before: dateBound('before'),
  threadIds: z.array(z.string(), { error: 'threadIds must be a non-empty list' }).min(1, { error: 'threadIds must be a non-empty list' }).optional(),
}).transform((a, ctx): ThreadFilter => {
  const refuse = (message: string, field?: string) => {
    ctx.issues.push({ code: 'custom', message, input: a, ...(field ? { path: [field] } : {}) });
    return z.NEVER;
  };
  const bounds = (['after', 'before'] as const).filter((k) => a[k] !== undefined && a[k] !== null && a[k] !== '');
  // The forms given, each named by its first field: a range may have both bounds.
  const given = [a.preset !== undefined ? 'preset' : undefined, bounds[0], a.threadIds !== undefined ? 'threadIds' : undefined].filter((f) => f !== undefined);
  if (given.length > 1) return refuse(`give one of ${FILTER_FORMS}, not ${given[0]} and ${given[1]}`, given[1]);
  if (a.preset !== undefined) return { kind: 'relative', preset: a.preset };
  if (a.threadIds !== undefined) return { kind: 'ids', threadIds: a.threadIds };
  if (!bounds.length) return refuse('A range needs after, before or both');
  const range: { kind: 'range'; after?: string; before?: string } = { kind: 'range' };
  for (const name of bounds) {
    const parsed = parseDateBound(a[name]!);
    if (!parsed.ok) return refuse(`${name} "${a[name]}": ${parsed.reason}`, name);
    range[name] = parsed.iso;
  }
  return range;
});

/** The sort picker's items: the current order first, marked, then the others. */
export function sortItems(current: SortBy): (vscode.QuickPickItem & { sort?: SortBy })[] {
  const isCurrent = (s: SortBy) => s.field === current.field && s.direction === current.direction;
  const all = THREAD_SORT_FIELDS.flatMap((field) => (['desc', 'asc'] as const).map((direction) => ({ field, direction })));
  const item = (sort: SortBy) => ({
    label: `${isCurrent(sort) ? '$(check) ' : ''}${sortLabel(sort.field)} ${sort.direction === 'asc' ? '↑ ascending' : '↓ descending'}`,
    description: isCurrent(sort) ? 'current order' : undefined,
    sort,
  });
  return [item(current), { label: '', kind: vscode.QuickPickItemKind.Separator }, ...all.filter((s) => !isCurrent(s)).map(item)];
}

async function sortBy(manager: ThreadsManager, args: unknown): Promise<void> {
  const { model } = manager;
  let next: SortBy | undefined;
  if (args !== undefined) {
    const sort = parseArgs('svc.threads.sortBy', SORT_ARGS, args);
    next = { field: sort.field, direction: sort.direction ?? 'desc' };
  } else {
    const pick = await vscode.window.showQuickPick(sortItems(model.sort), { title: 'svc: Sort threads by', placeHolder: 'Field and direction' });
    next = pick?.sort;
  }
  if (next) await manager.sortBy(next);
}

async function filter(manager: ThreadsManager, args: unknown): Promise<void> {
  if (args !== undefined) {
    await manager.filter(parseArgs('svc.threads.filter', FILTER_ARGS, args));
    return;
  }
  type Item = vscode.QuickPickItem & { id: RelativePreset | 'range' | 'ids' };
  const items: Item[] = [
    ...(Object.keys(RELATIVE_PRESETS) as RelativePreset[]).map((id) => ({ label: RELATIVE_PRESETS[id].label, id })),
    { label: 'Custom range…', description: 'after and/or before a date or date-time', id: 'range' },
    { label: 'Thread ids…', description: 'one or more thread ids', id: 'ids' },
  ];
  const pick = await vscode.window.showQuickPick(items, { title: 'svc: Filter threads' });
  if (!pick) return;
  if (pick.id === 'range') {
    const ask = (which: string) =>
      vscode.window.showInputBox({
        title: `svc: Threads with calls started ${which} (empty for no bound)`,
        prompt: `${DATE_BOUND_HELP}.`,
        placeHolder: '2026-11-15',
        validateInput: (v) => (v.trim() === '' ? undefined : checkDateBound(v)),
      });
    const after = await ask('after');
    if (after === undefined) return;
    const before = await ask('before');
    if (before === undefined) return;
    if (!after.trim() && !before.trim()) return;
    await manager.filter({ kind: 'range', after: after.trim() ? typedBound(after) : undefined, before: before.trim() ? typedBound(before) : undefined });
  } else if (pick.id === 'ids') {
    const text = await vscode.window.showInputBox({
      title: 'svc: Thread ids',
      prompt: 'Separated by commas or spaces',
      validateInput: (v) => (parseThreadIds(v).length ? undefined : 'Enter at least one thread id'),
    });
    if (text === undefined) return;
    await manager.filter({ kind: 'ids', threadIds: parseThreadIds(text) });
  } else {
    await manager.filter({ kind: 'relative', preset: pick.id });
  }
}

/** A bound typed in the range box (checked there by checkDateBound), as the query sends it. */
function typedBound(value: string): string {
  const parsed = parseDateBound(value);
  if (!parsed.ok) throw new InputError(parsed.reason);
  return parsed.iso;
}

const SELECT_PROJECT_ARGS = z.object({
  projectId: z.string({ error: 'projectId must be a string such as "acme/chatbot"' }).optional(),
  scope: settingsScope.optional(),
});

/** svc.selectProject (the Threads view's title menu, the palette, or `{ projectId, scope? }`). */
function registerProjectCommand(commands: Commands, manager: ThreadsManager): vscode.Disposable {
  return commands.register('svc.selectProject', async (how, arg?: unknown) => {
    // From the Threads view's title menu VS Code passes the focused row: that is a click, not a script.
    const raw = scriptArgs(arg);
    const args = raw === undefined ? undefined : parseArgs('svc.selectProject', SELECT_PROJECT_ARGS, raw, '{ projectId: "<entity>/<project>", scope? }');
    let projectId = args?.projectId?.trim();
    if (projectId === undefined) {
      if (args) throw new InputError('svc.selectProject needs { projectId }.');
      projectId = await pickOrType('svc: Select a project', '<entity>/<project>', manager.knownProjects());
      if (projectId === undefined) return undefined;
    }
    return manager.selectProject(projectId, args?.scope ?? (how.interactive ? () => pickScope('project') : 'user'));
  });
}
