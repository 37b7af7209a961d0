/**
 * "svc: Convert to ART Trajectories…": another harness's trajectories (an ATIF trajectory.json, a
 * Harbor job folder; the formats of convert.ts) written as an ART trajectory JSONL file the upload
 * accepts. From the explorer, the palette or the viewer it asks for the score to use as the reward,
 * how to group and where to write; a script passes `{source, output, reward?, groupBy?}` and nothing
 * opens. "svc: Open Harbor Job in Trajectory Viewer" opens a job folder in the viewer.
 */
import { feature, type Feature, type FeatureDeps } from '../service/feature';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { z } from 'zod';
import { InputError } from '../api/errors';
import { checkWriteTarget } from '../common/writeTarget';
import { filesFromArgs, isArgumentsObject, type Invocation } from '../ui/commands';
import { nonBlank, parseArgs } from '../ui/args';
import { TRAJECTORY_VIEWER } from '../common/ids';
import { background } from '../common/background';
import { convertToArt, detectHarness, HARNESS_FORMATS, type ConvertReport, type HarnessFormat } from './convert';
import { readTrials, scoreNames } from './atif';
import { EvalLog } from '../files/inspectEval';

export const CONVERT_COMMAND = 'svc.convertToArt';
export const OPEN_JOB_COMMAND = 'svc.openHarborJob';

/** The arguments object of a scripted call. */
export const ConvertArgsSchema = z.strictObject({
  source: z.string().min(1),
  output: z.string().min(1),
  reward: z.string().min(1).optional(),
  // ATIF: task, trial or job; an Inspect log: a sample metadata key (default: one group per sample).
  groupBy: z.string().min(1).max(200).optional(),
});
const OPEN_JOB_ARGS = z.strictObject({ folder: nonBlank() });

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

/** Convert to ART and Open Harbor Job (no model or view: the commands are the feature). */
export function activateHarnesses({ commands, log }: Pick<FeatureDeps, 'commands' | 'log'>): Feature {
  const convert = async (how: Invocation, clicked?: unknown, selected?: unknown): Promise<ConvertReport | undefined> => {
    if (!how.interactive) {
      const a = parseArgs(CONVERT_COMMAND, ConvertArgsSchema, clicked, '{ source, output, reward?, groupBy? }');
      const target = await checkWriteTarget(a.output, workspaceFolders(), CONVERT_COMMAND);
      if (!target.ok) throw new InputError(target.reason, { field: 'output' });
      const report = await convertToArt({ source: resolveSource(a.source), output: target.path, reward: a.reward, groupBy: a.groupBy });
      log.info(`${CONVERT_COMMAND}: wrote ${report.output} (${report.groups} groups, ${report.trajectories} trajectories); left out: ${report.lost.join('; ') || 'nothing'}`);
      return report;
    }
    let source: vscode.Uri | undefined = filesFromArgs(clicked, selected)[0] ?? vscode.window.activeTextEditor?.document.uri;
    const tab = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
    if (!source && tab instanceof vscode.TabInputCustom) source = tab.uri;
    if (!source) {
      const picked = await vscode.window.showOpenDialog({ canSelectFiles: true, canSelectFolders: true, canSelectMany: false, openLabel: 'Convert', title: 'svc: Convert to ART Trajectories: an ATIF trajectory.json, a Harbor job folder or an Inspect .eval log' });
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
      const pick = await vscode.window.showQuickPick(items, { title: 'svc: Convert to ART: the score to use as the reward', placeHolder: 'Each trajectory\'s reward' });
      if (!pick) return undefined;
      reward = pick.label;
    }
    // An Inspect log: one group per sample, its epochs compared (groupBy, a metadata key, is for scripts).
    const groupPick =
      format.id === 'inspect'
        ? { label: undefined }
        : await vscode.window.showQuickPick(
            [
              { label: 'task', description: 'one group per task: the trials of a task compared (GRPO)' },
              { label: 'trial', description: 'one group per trial' },
              { label: 'job', description: 'one group for the whole job' },
            ],
            { title: 'svc: Convert to ART: how trajectories make groups' },
          );
    if (!groupPick) return undefined;
    const stem = isDir ? path.basename(source.fsPath) : format.id === 'inspect' ? path.basename(source.fsPath, '.eval') : path.basename(path.dirname(path.dirname(source.fsPath))) || path.basename(source.fsPath, '.json');
    const out = await vscode.window.showSaveDialog({
      defaultUri: vscode.Uri.file(path.join(isDir ? path.dirname(source.fsPath) : path.dirname(source.fsPath), `${stem}.art.jsonl`)),
      filters: { 'ART trajectories': ['jsonl'] },
      title: 'svc: Convert to ART: write the trajectory groups to',
    });
    if (!out) return undefined;
    const report = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `svc: converting ${path.basename(source.fsPath)} to ART trajectories…`, cancellable: true },
      (_p, token) => {
        const abort = new AbortController();
        token.onCancellationRequested(() => abort.abort());
        return convertToArt({ source: source.fsPath, output: out.fsPath, reward, groupBy: groupPick.label }, abort.signal);
      },
    );
    log.info(`${CONVERT_COMMAND}: wrote ${report.output} (${report.groups} groups, ${report.trajectories} trajectories); left out: ${report.lost.join('; ') || 'nothing'}`);
    const lost = report.lost.length ? ` Left out: ${report.lost.join('; ')}.` : '';
    // Not awaited: the notification stays until the user answers; the command is done.
    background(
      (async () => {
        const a = await vscode.window.showInformationMessage(`svc: wrote ${report.groups} groups (${report.trajectories} trajectories, reward: ${report.reward ?? '—'}) to ${path.basename(report.output)}.${lost}`, 'Open in Viewer', 'Upload…');
        if (a === 'Open in Viewer') await vscode.commands.executeCommand('vscode.openWith', vscode.Uri.file(report.output), TRAJECTORY_VIEWER);
        if (a === 'Upload…') await vscode.commands.executeCommand('svc.uploadTrajectories', vscode.Uri.file(report.output));
      })(),
      'Offering to open or upload the converted file',
    );
    return report;
  };
  const openJob = async (how: Invocation, clicked?: unknown, selected?: unknown): Promise<void> => {
    const args = isArgumentsObject(clicked) ? parseArgs(OPEN_JOB_COMMAND, OPEN_JOB_ARGS, clicked, '{ folder }') : undefined;
    let uri: vscode.Uri | undefined = args ? vscode.Uri.file(resolveSource(args.folder)) : filesFromArgs(clicked, selected)[0];
    if (!uri) {
      if (!how.interactive) throw new InputError(`${OPEN_JOB_COMMAND}: no folder given (expected {folder})`, { field: 'folder' });
      const picked = await vscode.window.showOpenDialog({ canSelectFiles: false, canSelectFolders: true, canSelectMany: false, openLabel: 'Open', title: 'svc: Open a Harbor job folder' });
      uri = picked?.[0];
      if (!uri) return;
    }
    await vscode.commands.executeCommand('vscode.openWith', uri, TRAJECTORY_VIEWER);
  };
  return feature(undefined, [commands.register(CONVERT_COMMAND, convert), commands.register(OPEN_JOB_COMMAND, openJob)]);
}
