import * as vscode from 'vscode';
import { z } from 'zod';
import { formatPath, InputError } from '../api';
import { isArgumentsObject, type Commands } from '../ui/commands';
import { nonBlank, parseArgs } from '../ui/args';
import { isTreeNode } from '../ui/treeNodes';
import type { DashboardOpener } from './opener';

/** A Checkpoints tree node (model or checkpoint), as VS Code passes the selection. */
type ModelRow = { modelId: string };

/** A row of the Checkpoints view: a node the tree handed to VS Code (known by identity), never a script's object of that shape. */
function isModelRow(x: unknown): x is ModelRow {
  return isTreeNode(x) && typeof (x as Partial<ModelRow>).modelId === 'string';
}

const COMPARE_USAGE = '{ runs: [{ modelId } | { file }, ...] } with at least two runs';
const COMPARE_ARGS = z.object({
  runs: z.array(z.union([z.object({ modelId: nonBlank() }), z.object({ file: nonBlank() })], { error: (issue) => `${formatPath(issue.path ?? [])} must be { modelId: string } or { file: string }` })),
});

export interface CompareDeps {
  commands: Commands;
  opener: DashboardOpener;
}

/** Compare Runs: thin, over the opener. */
export function registerCompareCommand({ commands, opener }: CompareDeps): vscode.Disposable {
  /**
   * From the Checkpoints view (the selected models), the explorer (the selected history.jsonl
   * files and model folders), the palette (a pick), or `{ runs: [...] }` (never prompts).
   */
  return commands.register('svc.dashboard.compare', (how, arg?: unknown, selection?: unknown) => {
    if (isArgumentsObject(arg)) return opener.compare(how, parseArgs('svc.dashboard.compare', COMPARE_ARGS, arg, COMPARE_USAGE).runs);
    const many = Array.isArray(selection) && selection.length ? (selection as unknown[]) : arg !== undefined ? [arg] : [];
    if (many.length && many.every((x) => x instanceof vscode.Uri)) return opener.compare(how, (many as vscode.Uri[]).map((uri) => ({ uri })));
    if (many.length && many.every(isModelRow)) return opener.compare(how, [...new Set((many as ModelRow[]).map((n) => n.modelId))].map((modelId) => ({ modelId })));
    if (arg !== undefined) throw new InputError('svc.dashboard.compare takes { runs: [{ modelId } | { file }, ...] }.');
    return opener.compare(how, how.interactive ? undefined : []);
  });
}
