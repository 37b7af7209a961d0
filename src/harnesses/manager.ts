/**
 * The flows of "svc: Convert to ART Trajectories…" and "svc: Open Harbor Job in Trajectory Viewer"
 * (commands.ts parses the arguments and calls here): a scripted conversion (nothing opens), the
 * asked one (the score to use as the reward, how to group, where to write), opening a job folder.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { InputError } from '../api/errors';
import { checkWriteTarget } from '../common/writeTarget';
import type { Invocation } from '../ui/commands';
import { withAbortableProgress, type Prompts } from '../ui/prompts';
import { TRAJECTORY_VIEWER } from '../common/ids';
import { background } from '../common/background';
import type { Logger } from '../common/logger';
import { convertToArt, detectHarness, HARNESS_FORMATS, type ConvertReport, type HarnessFormat } from './convert';
import { readTrials, scoreNames } from './atif';
import { EvalLog } from '../files/inspectEval';

export const CONVERT_COMMAND = 'svc.convertToArt';
export const OPEN_JOB_COMMAND = 'svc.openHarborJob';

/** A scripted conversion's arguments (commands.ts's schema): paths absolute or in the first workspace folder. */
export interface ConvertArgs {
  source: string;
  output: string;
  reward?: string;
  /** ATIF: task, trial or job; an Inspect log: a sample metadata key (default: one group per sample). */
  groupBy?: string;
}

export class HarnessesManager {
  constructor(
    private readonly log: Logger,
    /** The window's dialogs, picks, progress and messages. */
    private readonly prompts: Prompts,
  ) {}

  /** A scripted conversion: no prompt, the output checked as a write target of the workspace. */
  async convert(a: ConvertArgs): Promise<ConvertReport> {
    const target = await checkWriteTarget(a.output, workspaceFolders(), CONVERT_COMMAND);
    if (!target.ok) throw new InputError(target.reason, { field: 'output' });
    const report = await convertToArt({ source: resolveSource(a.source), output: target.path, reward: a.reward, groupBy: a.groupBy });
    this.log.info(`${CONVERT_COMMAND}: wrote ${report.output} (${report.groups} groups, ${report.trajectories} trajectories); left out: ${report.lost.join('; ') || 'nothing'}`);
    return report;
  }

  /**
   * The asked conversion of `clicked` (else the active editor's or custom editor's file, else one
   * picked): undefined when the user cancelled a question.
   */
  async convertInteractively(clicked?: vscode.Uri): Promise<ConvertReport | undefined> {
    let source: vscode.Uri | undefined = clicked ?? vscode.window.activeTextEditor?.document.uri;
    const tab = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
    if (!source && tab instanceof vscode.TabInputCustom) source = tab.uri;
    if (!source) {
      const picked = await this.prompts.showOpenDialog({ canSelectFiles: true, canSelectFolders: true, canSelectMany: false, openLabel: 'Convert', title: 'svc: Convert to ART Trajectories: an ATIF trajectory.json, a Harbor job folder or an Inspect .eval log' });
      source = picked?.[0];
      if (!source) return undefined;
    }
    if (source.scheme !== 'file') throw new InputError(`${source.toString(true)} is not a file on this machine's disk; only local files can be converted`);
    const format = await detectHarness(source.fsPath);
    if (!format) throw new InputError(`${source.fsPath} is not a trajectory file of a known harness (${HARNESS_FORMATS.map((f) => f.label).join(', ')})`, { file: source.fsPath });
    const isDir = (await vscode.workspace.fs.stat(source)).type === vscode.FileType.Directory;
    const scores = await scoresOf(format, source.fsPath, isDir);
    let reward: string | undefined;
    if (scores && scores.length > 1) {
      const items = scores.map((s) => ({ label: s, description: s === 'reward' ? 'the verifier\'s reward' : undefined }));
      const pick = await this.prompts.showQuickPick(items, { title: 'svc: Convert to ART: the score to use as the reward', placeHolder: 'Each trajectory\'s reward' });
      if (!pick) return undefined;
      reward = pick.label;
    }
    // An Inspect log: one group per sample, its epochs compared (groupBy, a metadata key, is for scripts).
    const groupPick =
      format.id === 'inspect'
        ? { label: undefined }
        : await this.prompts.showQuickPick(
            [
              { label: 'task', description: 'one group per task: the trials of a task compared (GRPO)' },
              { label: 'trial', description: 'one group per trial' },
              { label: 'job', description: 'one group for the whole job' },
            ],
            { title: 'svc: Convert to ART: how trajectories make groups' },
          );
    if (!groupPick) return undefined;
    const stem = isDir ? path.basename(source.fsPath) : format.id === 'inspect' ? path.basename(source.fsPath, '.eval') : path.basename(path.dirname(path.dirname(source.fsPath))) || path.basename(source.fsPath, '.json');
    const out = await this.prompts.showSaveDialog({
      defaultUri: vscode.Uri.file(path.join(isDir ? path.dirname(source.fsPath) : path.dirname(source.fsPath), `${stem}.art.jsonl`)),
      filters: { 'ART trajectories': ['jsonl'] },
      title: 'svc: Convert to ART: write the trajectory groups to',
    });
    if (!out) return undefined;
    const report = await withAbortableProgress(this.prompts, `svc: converting ${path.basename(source.fsPath)} to ART trajectories…`, (_p, abort) =>
      convertToArt({ source: source.fsPath, output: out.fsPath, reward, groupBy: groupPick.label }, abort.signal),
    );
    this.log.info(`${CONVERT_COMMAND}: wrote ${report.output} (${report.groups} groups, ${report.trajectories} trajectories); left out: ${report.lost.join('; ') || 'nothing'}`);
    const lost = report.lost.length ? ` Left out: ${report.lost.join('; ')}.` : '';
    // Not awaited: the notification stays until the user answers; the command is done.
    background(
      (async () => {
        const a = await this.prompts.showInformationMessage(`svc: wrote ${report.groups} groups (${report.trajectories} trajectories, reward: ${report.reward ?? '—'}) to ${path.basename(report.output)}.${lost}`, 'Open in Viewer', 'Upload…');
        if (a === 'Open in Viewer') await vscode.commands.executeCommand('vscode.openWith', vscode.Uri.file(report.output), TRAJECTORY_VIEWER);
        if (a === 'Upload…') await vscode.commands.executeCommand('svc.uploadTrajectories', vscode.Uri.file(report.output));
      })(),
      'Offering to open or upload the converted file',
    );
    return report;
  }

  /** Opens a Harbor job folder (`folder`: a path, absolute or in the first workspace folder) in the viewer; asks for one when none is given and a user called. */
  async openJob(how: Invocation, folder: vscode.Uri | string | undefined): Promise<void> {
    let uri = typeof folder === 'string' ? vscode.Uri.file(resolveSource(folder)) : folder;
    if (!uri) {
      if (!how.interactive) throw new InputError(`${OPEN_JOB_COMMAND}: no folder given (expected {folder})`, { field: 'folder' });
      const picked = await this.prompts.showOpenDialog({ canSelectFiles: false, canSelectFolders: true, canSelectMany: false, openLabel: 'Open', title: 'svc: Open a Harbor job folder' });
      uri = picked?.[0];
      if (!uri) return;
    }
    await vscode.commands.executeCommand('vscode.openWith', uri, TRAJECTORY_VIEWER);
  }
}

function workspaceFolders(): string[] {
  return (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath);
}

function resolveSource(source: string): string {
  const folders = workspaceFolders();
  return path.isAbsolute(source) || !folders.length ? path.resolve(source) : path.resolve(folders[0]!, source);
}

/** The scores a source has (ATIF: the trials' verifier rewards); undefined when the format does not say. */
async function scoresOf(format: HarnessFormat, source: string, isDir: boolean): Promise<string[] | undefined> {
  if (format.id === 'inspect') {
    const log = await EvalLog.open(source);
    try {
      return log.scoreNames;
    } finally {
      await log.close();
    }
  }
  if (format.id !== 'atif') return undefined;
  return scoreNames(await readTrials(source, { isDir }));
}

