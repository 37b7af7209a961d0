/**
 * What the trajectory viewer does for the user beyond showing the file: reveal a place in the text
 * editor, upload the file or one group (with the unsaved-changes modal), and compare two
 * trajectories (with the pickers that choose the other one).
 */
import * as vscode from 'vscode';
import { InputError } from '../api';
import { background } from '../common/background';
import type { UploadReport } from '../trajectories/report';
import { asGroup } from '../files/model';
import type { FromWebview, GroupRow } from './protocol';
import type { SessionDeps } from './session';
import type { GroupIndex } from './source';
import { transcript } from './transcript';
import { trajectoryView } from './views';

/** What the actions read from their viewer session. */
export interface ActionHost {
  readonly uri: vscode.Uri;
  readonly name: string;
  readonly deps: SessionDeps;
  readonly index: GroupIndex | undefined;
  whenIndexed(): Promise<void>;
  row(index: GroupIndex, i: number): GroupRow;
  openDocument(): vscode.TextDocument | undefined;
  trajectory(index: GroupIndex, group: number, t: number): Promise<unknown>;
}

/** Opens the file as text beside the viewer, at a problem's position or where an item starts. */
export async function reveal(s: ActionHost, m: Omit<Extract<FromWebview, { type: 'reveal' }>, 'type'>): Promise<void> {
  const index = s.index;
  // A Parquet file has no text to reveal (the webview shows no such button for one).
  if (!index || index.format === 'parquet' || index.format === 'eval') return;
  let pos: { line: number; column: number };
  if (m.line !== undefined) pos = { line: m.line, column: m.column ?? 1 };
  else {
    const p: (string | number)[] = [];
    if (m.trajectory !== undefined) {
      p.push('trajectories', m.trajectory);
      if (m.path) p.push(...m.path);
      else {
        if (m.history !== undefined && m.history >= 0) p.push('additional_histories', m.history);
        if (m.message !== undefined) p.push('messages_and_choices', m.message);
      }
    }
    pos = await index.positionOf(m.group, p);
  }
  const at = new vscode.Position(pos.line - 1, pos.column - 1);
  // 'default': the text editor, even where this viewer is the default editor of the file.
  await vscode.commands.executeCommand('vscode.openWith', s.uri, 'default', {
    selection: new vscode.Range(at, at),
    viewColumn: vscode.ViewColumn.Beside,
    preview: false,
  } satisfies vscode.TextDocumentShowOptions);
}

/** Uploads the file through svc.uploadTrajectories (after saving unsaved edits, if the user agrees). */
export async function uploadFile(s: ActionHost): Promise<UploadReport | undefined> {
  if (s.index?.format === 'eval') throw new InputError(`svc: ${s.name} is an Inspect log, not a trajectory file: convert it to ART trajectories first, or upload one group from the viewer (each is sent as the ART group shown)`);
  const doc = s.openDocument();
  if (doc?.isDirty) {
    const choice = await vscode.window.showWarningMessage(`${s.name} has unsaved changes; the upload sends the file on disk.`, { modal: true }, 'Save and Upload');
    if (choice !== 'Save and Upload') return undefined;
    await doc.save();
  }
  return vscode.commands.executeCommand<UploadReport>('svc.uploadTrajectories', s.uri);
}

/** Uploads one group through svc.uploadTrajectories (a file holding just its text). */
export async function uploadGroup(s: ActionHost, group: number): Promise<UploadReport | undefined> {
  await s.whenIndexed();
  const index = s.index;
  if (!index || group >= index.groups) return undefined;
  const row = s.row(index, group);
  const where = index.format === 'eval' ? `sample ${index.members(group)[0]?.id ?? group + 1}` : index.format === 'parquet' ? `rows ${row.line}–${row.endLine}` : `line ${row.line}`;
  const lossy = index.format === 'parquet' && index.notice;
  if (row.invalid || row.errors || lossy) {
    const why = lossy ? "is in ART's lossy Parquet format (version 1): it is not the group the client dumped" : row.invalid ? `cannot be read: ${row.invalid}` : `has ${row.errors} problem(s)`;
    background(s.deps.errors.showMessage(`svc: group ${group + 1} (${where}) ${why}; nothing was sent.`), 'Showing an error');
    return undefined;
  }
  const { text, error } = await index.readGroup(group);
  if (error) throw new InputError(`svc: group ${group + 1} (${where}) cannot be read: ${error}`);
  // A Parquet group goes as a one-line .jsonl of its exact JSON (group_json + trajectory_json).
  const file = await s.deps.groupFiles.write(s.uri.fsPath || s.uri.path, group, text, index.format === 'parquet' || index.format === 'eval' ? 'jsonl' : index.format);
  return vscode.commands.executeCommand<UploadReport>('svc.uploadTrajectories', vscode.Uri.file(file));
}

/** Opens two trajectories' transcripts in the diff editor; asks which other one when `to` is not given. */
export async function compare(s: ActionHost, from: { group: number; trajectory: number }, to?: { group: number; trajectory: number }): Promise<void> {
  await s.whenIndexed();
  const index = s.index;
  if (!index) return;
  const target = to ?? (await pickOther(s, index, from));
  if (!target) return;
  const side = async (p: { group: number; trajectory: number }) => {
    const t = await s.trajectory(index, p.group, p.trajectory);
    if (t === undefined) throw new InputError(`${s.name} has no trajectory ${p.trajectory + 1} in group ${p.group + 1}`);
    const title = `${s.name} · group ${p.group + 1} · trajectory ${p.trajectory + 1}`;
    return s.deps.transcripts.put(title, transcript(trajectoryView(t, p.group, p.trajectory), title));
  };
  const left = await side(from);
  const right = await side(target);
  await vscode.commands.executeCommand('vscode.diff', left, right, `${s.name}: ${from.group + 1}.${from.trajectory + 1} ↔ ${target.group + 1}.${target.trajectory + 1}`);
}

/** Lists the groups (number, size, reward mean) to pick the one to compare with. */
async function pickGroup(s: ActionHost, index: GroupIndex, current: number): Promise<number | undefined> {
  type Item = vscode.QuickPickItem & { group: number };
  const items: Item[] = [];
  for (let i = 0; i < index.groups; i++) {
    if (i === current) continue;
    items.push({ ...groupPickItem(s.row(index, i)), group: i });
  }
  const pick = await vscode.window.showQuickPick(items, { title: 'svc: Compare with a trajectory of group…', matchOnDescription: true });
  return pick?.group;
}

async function pickOther(s: ActionHost, index: GroupIndex, from: { group: number; trajectory: number }): Promise<{ group: number; trajectory: number } | undefined> {
  let group = from.group;
  for (;;) {
    const g = asGroup((await index.readGroup(group)).value);
    type Item = vscode.QuickPickItem & { trajectory?: number; other?: boolean };
    const items: Item[] = (g?.trajectories ?? [])
      .map((t, i): Item => ({ label: `Trajectory ${i + 1}`, description: `reward ${rewardOf(t)}`, trajectory: i }))
      .filter((it) => !(group === from.group && it.trajectory === from.trajectory));
    if (index.groups > 1) items.push({ label: 'Another group…', other: true, alwaysShow: true });
    const pick = await vscode.window.showQuickPick(items, { title: `svc: Compare trajectory ${from.group + 1}.${from.trajectory + 1} with (group ${group + 1})` });
    if (!pick) return undefined;
    if (pick.trajectory !== undefined) return { group, trajectory: pick.trajectory };
    const other = await pickGroup(s, index, group);
    if (other === undefined) return undefined;
    group = other;
  }
}

/** A group's line in the group picker: its number, size and reward mean. */
export function groupPickItem(row: GroupRow): { label: string; description: string; detail?: string } {
  const s = row.stats;
  const size = `${s.count} ${s.count === 1 ? 'trajectory' : 'trajectories'}`;
  const mean = s.mean === null ? 'no rewards' : `mean reward ${Number(s.mean.toPrecision(4))}`;
  return { label: `Group ${row.index + 1}`, description: `${size} · ${mean}`, ...(row.invalid ? { detail: row.invalid } : {}) };
}

/** A trajectory's reward for a label: the number, or 0 when it has none. */
function rewardOf(trajectory: unknown): number {
  const reward = (trajectory as { reward?: unknown } | undefined)?.reward;
  return typeof reward === 'number' ? reward : 0;
}
