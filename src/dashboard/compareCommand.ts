import * as path from 'path';
import * as vscode from 'vscode';
import { z } from 'zod';
import { formatPath, InputError } from '../api';
import { isArgumentsObject, type Commands } from '../ui/commands';
import { nonBlank, parseArgs } from '../ui/args';
import { isTreeNode } from '../ui/treeNodes';
import { recent, RECENT_MODELS } from '../common/pick';
import type { Connection } from '../service/connection';
import { historyFile } from './commands';
import type { CompareRuns, RunSpec } from './compare';

/** A Checkpoints tree node (model or checkpoint), as VS Code passes the selection. */
type ModelRow = { modelId: string };

/** A row of the Checkpoints view: a node the tree handed to VS Code (known by identity), never a script's object of that shape. */
function isModelRow(x: unknown): x is ModelRow {
  return isTreeNode(x) && typeof (x as Partial<ModelRow>).modelId === 'string';
}

/** A history.jsonl or a model folder, on this machine's disk. */
async function fileRun(uri: vscode.Uri): Promise<RunSpec> {
  if (uri.scheme !== 'file') throw new InputError(`${uri.toString(true)}: Compare Runs reads a history.jsonl on this machine's disk only.`, { file: uri.toString(true) });
  return { file: await historyFile(uri) };
}

const COMPARE_USAGE = '{ runs: [{ modelId } | { file }, ...] } with at least two runs';
const COMPARE_ARGS = z.object({
  runs: z.array(z.union([z.object({ modelId: nonBlank() }), z.object({ file: nonBlank() })], { error: (issue) => `${formatPath(issue.path ?? [])} must be { modelId: string } or { file: string }` })),
});

/** `{ runs: [{ modelId } | { file }, ...] }` as run specs; rejects, naming the run, on anything else. */
async function scriptedRuns(arg: unknown): Promise<RunSpec[]> {
  const { runs } = parseArgs('svc.dashboard.compare', COMPARE_ARGS, arg, COMPARE_USAGE);
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
  const out: RunSpec[] = [];
  for (const run of runs) {
    if ('modelId' in run) out.push({ modelId: run.modelId.trim() });
    else {
      const uri = path.isAbsolute(run.file) || !folder ? vscode.Uri.file(path.resolve(run.file)) : vscode.Uri.joinPath(folder, run.file);
      out.push(await fileRun(uri));
    }
  }
  return out;
}

const ADD_FILE = 'Add history.jsonl file…';

/** Where the file dialog starts: the workspace's `.art` folder when there is one, else the workspace folder. */
async function dialogStart(): Promise<vscode.Uri | undefined> {
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
  if (!folder) return undefined;
  const art = vscode.Uri.joinPath(folder, '.art');
  try {
    if ((await vscode.workspace.fs.stat(art)).type & vscode.FileType.Directory) return art;
  } catch {
    // No .art folder: the workspace.
  }
  return folder;
}

/**
 * The palette: a multi-select pick of the known models and of the history.jsonl files whose
 * dashboard is open, and more history files picked from disk.
 */
async function pickRuns(connection: Connection, globalState: vscode.Memento, openFiles: () => readonly string[]): Promise<RunSpec[] | undefined> {
  const known = [...new Set([...connection.config.models, ...recent(globalState, RECENT_MODELS)])];
  type Item = vscode.QuickPickItem & { run?: RunSpec };
  const runName = (f: string) => path.basename(path.dirname(f));
  const items: Item[] = [
    ...known.map((m): Item => ({ label: m, description: 'model checkpoints', run: { modelId: m } })),
    ...openFiles().map((f): Item => ({ label: runName(f), description: `history.jsonl · dashboard open`, detail: vscode.workspace.asRelativePath(f), run: { file: vscode.Uri.file(f) } })),
    { label: ADD_FILE, description: 'ART run history', alwaysShow: true },
  ];
  const picked = await vscode.window.showQuickPick(items, { canPickMany: true, title: 'svc: Compare Runs', placeHolder: 'Pick two or more runs (models, and history.jsonl files)' });
  if (!picked) return undefined;
  const runs: RunSpec[] = picked.flatMap((p) => (p.run ? [p.run] : []));
  if (picked.some((p) => p.label === ADD_FILE)) {
    const defaultUri = await dialogStart();
    const files = await vscode.window.showOpenDialog({ canSelectMany: true, canSelectFiles: true, canSelectFolders: true, title: 'svc: history.jsonl files (or model folders) to compare', filters: { 'ART history': ['jsonl'] }, ...(defaultUri ? { defaultUri } : {}) });
    if (!files) return undefined;
    for (const f of files) runs.push(await fileRun(f));
  }
  return runs;
}

export interface CompareDeps {
  commands: Commands;
  compare: CompareRuns;
  connection: Connection;
  globalState: vscode.Memento;
  /** The history.jsonl files whose dashboard is open (the palette's pick offers them). */
  openFiles?: () => readonly string[];
}

/** Compare Runs. */
export function registerCompareCommand({ commands, compare, connection, globalState, openFiles = () => [] }: CompareDeps): vscode.Disposable {
  /**
   * From the Checkpoints view (the selected models), the explorer (the selected history.jsonl
   * files and model folders), the palette (a pick), or `{ runs: [...] }` (never prompts).
   */
  return commands.register('svc.dashboard.compare', async (how, arg?: unknown, selection?: unknown) => {
    let runs: RunSpec[] | undefined;
    const many = Array.isArray(selection) && selection.length ? (selection as unknown[]) : arg !== undefined ? [arg] : [];
    if (isArgumentsObject(arg)) {
      runs = await scriptedRuns(arg);
    } else if (many.length && many.every((x) => x instanceof vscode.Uri)) {
      runs = [];
      for (const u of many as vscode.Uri[]) runs.push(await fileRun(u));
    } else if (many.length && many.every(isModelRow)) {
      runs = [...new Set((many as ModelRow[]).map((n) => n.modelId))].map((modelId) => ({ modelId }));
    } else if (arg !== undefined) {
      throw new InputError('svc.dashboard.compare takes { runs: [{ modelId } | { file }, ...] }.');
    } else if (how.interactive) {
      runs = await pickRuns(connection, globalState, openFiles);
      if (!runs) return undefined;
    }
    if (!runs || runs.length < 2) throw new InputError(`Compare Runs needs at least two runs: ${how.interactive ? 'select two or more models or history.jsonl files' : 'pass { runs: [...] } with two or more'} (got ${runs?.length ?? 0}).`, { field: 'runs' });
    if (how.interactive && runs.some((r) => 'modelId' in r)) await connection.prepare('training');
    const panel = await compare.open(runs);
    return panel.sources.map((s) => s.modelId);
  });
}
