/**
 * The flows of Open Training Dashboard, Export CSV and Compare Runs (the commands in commands.ts
 * and compareCommand.ts parse their arguments and call one method here): which file or model, the
 * picks the palette shows, the key's approval for the model endpoints, the recent models.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { InputError } from '../api';
import { pickOrType, pushRecent, recent, RECENT_MODELS } from '../common/pick';
import type { Connection } from '../service/connection';
import type { Invocation } from '../ui/commands';
import type { Prompts } from '../ui/prompts';
import { pickWorkspaceRun, WHAT_A_RUN_IS } from '../ui/runPick';
import type { CompareRuns, RunSpec } from './compare';
import type { Dashboards } from './manager';

/**
 * The history.jsonl to open: the file itself, or the run folder (`.art/<project>/models/<model>/`)
 * that holds it. Rejects, naming the path, when it is neither.
 */
export async function historyFile(uri: vscode.Uri): Promise<vscode.Uri> {
  let stat: vscode.FileStat;
  try {
    stat = await vscode.workspace.fs.stat(uri);
  } catch {
    throw new InputError(`${uri.fsPath}: no such file.`, { file: uri.fsPath });
  }
  if (stat.type & vscode.FileType.Directory) {
    const inside = vscode.Uri.joinPath(uri, 'history.jsonl');
    try {
      await vscode.workspace.fs.stat(inside);
    } catch {
      throw new InputError(`${uri.fsPath} has no history.jsonl: open a model folder of a training run (.art/<project>/models/<model>/) or its history.jsonl.`, { file: uri.fsPath });
    }
    return inside;
  }
  return uri;
}

/** A path from a script: absolute, or relative to the first workspace folder. */
export function workspacePath(file: string): vscode.Uri {
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
  return path.isAbsolute(file) || !folder ? vscode.Uri.file(path.resolve(file)) : vscode.Uri.joinPath(folder, file);
}

const ADD_FILE = 'Add history.jsonl file…';

/** A run to compare as a command names it: a model, a file a script named, or a URI. */
export type CompareTarget = { modelId: string } | { file: string } | { uri: vscode.Uri };

export class DashboardOpener {
  constructor(
    private readonly dashboards: Dashboards,
    private readonly compareRuns: CompareRuns,
    private readonly connection: Connection,
    private readonly prompts: Pick<Prompts, 'showQuickPick' | 'showOpenDialog'>,
    /** The recent models live here. */
    private readonly globalState: vscode.Memento,
  ) {}

  /** A run's history.jsonl (ART), or its model folder, on this machine's disk: no service involved. Resolves with the dashboard's key. */
  async openHistory(uri: vscode.Uri): Promise<string> {
    // The file is read (and watched) on this machine's disk, as it grows.
    if (uri.scheme !== 'file') throw new InputError(`${uri.toString(true)}: the dashboard reads a history.jsonl on this machine's disk only.`, { file: uri.toString(true) });
    const panel = await this.dashboards.openFile(await historyFile(uri));
    return panel.modelId;
  }

  /**
   * A model's dashboard (`focus`: a checkpoint to select). No model from the palette: a pick of the
   * known models, or without a service, of the workspace's runs with a history.jsonl.
   */
  async openModel(how: Invocation, modelId: string | undefined, focus?: string): Promise<string | undefined> {
    const runs = this.dashboards.workspaceRuns;
    if (!this.connection.client && modelId === undefined && how.interactive && runs) {
      await runs.whenScanned();
      if (!runs.runs.some((r) => r.history)) {
        throw new InputError(`No ART run with a history.jsonl in the workspace folders, and no svc service configured. ${WHAT_A_RUN_IS}. Open the folder that holds the .art folder (File > Open Folder…), or run "svc: Set Service Base URL" for the dashboards of a service's models.`, {}, { fix: { title: 'Open Folder…', command: 'vscode.openFolder' } });
      }
      const run = await pickWorkspaceRun(runs, { title: 'svc: Open the dashboard of which run?', having: 'with a history.jsonl', filter: (r) => r.history });
      if (!run) return undefined;
      return (await this.dashboards.openFile(vscode.Uri.file(path.join(run.dir, 'history.jsonl')))).modelId;
    }
    if (!this.connection.client) throw new InputError('No svc service is configured: run "svc: Set Service Base URL" first.');
    if (modelId === undefined) {
      const known = [...new Set([...this.connection.config.models, ...recent(this.globalState, RECENT_MODELS)])];
      modelId = (await pickOrType('svc: Open the training dashboard of a model', 'Model id', known))?.trim();
      if (!modelId) return undefined;
    }
    if (!modelId) throw new InputError('The model id is empty.');
    // A user's action may be asked here whether the key may go to the model endpoints; the
    // dashboard's own requests never ask.
    if (how.interactive) await this.connection.prepare('training');
    this.dashboards.open(modelId, focus);
    await pushRecent(this.globalState, RECENT_MODELS, modelId);
    return modelId;
  }

  /** `{ modelId, path }`: writes without a prompt, inside a workspace folder only; none: the active dashboard and a save dialog. */
  async exportCsv(target?: { modelId: string; path: string }): Promise<string | undefined> {
    if (target) return (await this.dashboards.exportCsv(target.modelId, target.path))?.fsPath;
    const active = this.dashboards.active();
    if (!active) throw new InputError('Open a training dashboard first.');
    return (await this.dashboards.exportCsv(active))?.fsPath;
  }

  /** Compares the runs (none from the palette: a pick); resolves with each source's model id or file key. */
  async compare(how: Invocation, targets: readonly CompareTarget[] | undefined): Promise<string[] | undefined> {
    let runs: RunSpec[] | undefined;
    if (targets) {
      runs = [];
      for (const t of targets) runs.push('modelId' in t ? { modelId: t.modelId.trim() } : await this.fileRun('uri' in t ? t.uri : workspacePath(t.file)));
    } else if (how.interactive) {
      runs = await this.pickRuns();
      if (!runs) return undefined;
    }
    if (!runs || runs.length < 2) throw new InputError(`Compare Runs needs at least two runs: ${how.interactive ? 'select two or more models or history.jsonl files' : 'pass { runs: [...] } with two or more'} (got ${runs?.length ?? 0}).`, { field: 'runs' });
    if (how.interactive && runs.some((r) => 'modelId' in r)) await this.connection.prepare('training');
    const panel = await this.compareRuns.open(runs);
    return panel.sources.map((s) => s.modelId);
  }

  /** A history.jsonl or a model folder, on this machine's disk. */
  private async fileRun(uri: vscode.Uri): Promise<RunSpec> {
    if (uri.scheme !== 'file') throw new InputError(`${uri.toString(true)}: Compare Runs reads a history.jsonl on this machine's disk only.`, { file: uri.toString(true) });
    return { file: await historyFile(uri) };
  }

  /**
   * The palette: a multi-select pick of the known models and of the history.jsonl files whose
   * dashboard is open, and more history files picked from disk.
   */
  private async pickRuns(): Promise<RunSpec[] | undefined> {
    const known = [...new Set([...this.connection.config.models, ...recent(this.globalState, RECENT_MODELS)])];
    type Item = vscode.QuickPickItem & { run?: RunSpec };
    const runName = (f: string) => path.basename(path.dirname(f));
    const items: Item[] = [
      ...known.map((m): Item => ({ label: m, description: 'model checkpoints', run: { modelId: m } })),
      ...this.dashboards.openHistoryFiles().map((f): Item => ({ label: runName(f), description: `history.jsonl · dashboard open`, detail: vscode.workspace.asRelativePath(f), run: { file: vscode.Uri.file(f) } })),
      { label: ADD_FILE, description: 'ART run history', alwaysShow: true },
    ];
    const picked = await this.prompts.showQuickPick(items, { canPickMany: true, title: 'svc: Compare Runs', placeHolder: 'Pick two or more runs (models, and history.jsonl files)' });
    if (!picked) return undefined;
    // canPickMany: the pick resolves with the picked items.
    const chosen = picked as unknown as Item[];
    const runs: RunSpec[] = chosen.flatMap((p) => (p.run ? [p.run] : []));
    if (chosen.some((p) => p.label === ADD_FILE)) {
      const defaultUri = await dialogStart();
      const files = await this.prompts.showOpenDialog({ canSelectMany: true, canSelectFiles: true, canSelectFolders: true, title: 'svc: history.jsonl files (or model folders) to compare', filters: { 'ART history': ['jsonl'] }, ...(defaultUri ? { defaultUri } : {}) });
      if (!files) return undefined;
      for (const f of files) runs.push(await this.fileRun(f));
    }
    return runs;
  }
}

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
