/**
 * The bytes a trajectory viewer shows and when they change: a Parquet file's index, or a text
 * file's over the unsaved text of an open document, else the file; and the events that call for a
 * new index (edits, saves, closes, changes on disk).
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { formatOf } from '../files';
import { FileBytes, MemoryBytes, TrajectoryIndex, type ByteSource } from '../files/groupIndex';
import { ParquetIndex } from '../files/parquetIndex';
import { looksLikeAtif } from '../harnesses/atif';
import { atifViewerGroups, headOf } from '../harnesses/convert';
import { EvalIndex, isEvalLog } from '../files/evalIndex';

/** A text file's index by byte offsets, a Parquet step file's by row range, or an Inspect log's by sample. */
export type GroupIndex = TrajectoryIndex | ParquetIndex | EvalIndex;

/** Indexes read by rows or samples, not text: no positions to reveal, groups read on demand. */
export const readByRows = (index: GroupIndex): index is ParquetIndex | EvalIndex => index.format === 'parquet' || index.format === 'eval';

export const textFormat = (path: string) => (formatOf(path) === 'jsonl' ? 'jsonl' : 'json');

/** Calls `changed` whenever the file's bytes may have changed; dispose what it returns to stop. A folder (a Harbor job): any JSON file under it. */
export function watchFile(uri: vscode.Uri, changed: () => void, folder = false): vscode.Disposable[] {
  if (folder) {
    const w = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(uri, '**/*.json'));
    return [w, w.onDidChange(changed), w.onDidCreate(changed), w.onDidDelete(changed)];
  }
  const same = (u: vscode.Uri) => u.toString() === uri.toString();
  const subs: vscode.Disposable[] = [];
  // Edits in a text editor of the same file show live (VS Code gives extensions the text of
  // documents up to 50 MB); saves and changes on disk come through the watcher.
  subs.push(vscode.workspace.onDidChangeTextDocument((e) => same(e.document.uri) && e.contentChanges.length && changed()));
  subs.push(vscode.workspace.onDidSaveTextDocument((d) => same(d.uri) && changed()));
  subs.push(vscode.workspace.onDidCloseTextDocument((d) => same(d.uri) && changed()));
  if (uri.scheme === 'file') {
    const w = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.file(path.dirname(uri.fsPath)), path.basename(uri.fsPath)));
    subs.push(w, w.onDidChange(changed), w.onDidCreate(changed), w.onDidDelete(changed));
  }
  return subs;
}

/** What a viewer opened: the index, the bytes when they are not the file's, and the harness whose files were read as ART trajectories. */
export interface OpenedIndex {
  index: GroupIndex;
  memory?: Buffer;
  /** "ATIF (Harbor)": the source is another harness's, shown as the ART groups it converts to (JSONL in `memory`). */
  harness?: string;
}

/**
 * Whether a file or folder is another harness's (an ATIF trajectory.json, a Harbor job folder):
 * the viewer shows it as the ART groups it reads as.
 */
export async function harnessOf(uri: vscode.Uri): Promise<{ label: string; isDir: boolean } | undefined> {
  if (uri.scheme !== 'file') return undefined;
  if (formatOf(uri.path) !== 'json') return undefined;
  let probe: { isDir: boolean; head?: string };
  try {
    probe = await headOf(uri.fsPath);
  } catch {
    return undefined;
  }
  if (probe.isDir) return { label: 'ATIF (Harbor)', isDir: true };
  return probe.head !== undefined && looksLikeAtif(probe.head) ? { label: 'ATIF (Harbor)', isDir: false } : undefined;
}

/** A Parquet file's index, or a text file's over its bytes (the unsaved text of an open document, else the file), or another harness's files as ART groups. */
export async function openIndex(uri: vscode.Uri, doc: vscode.TextDocument | undefined, signal?: AbortSignal): Promise<OpenedIndex> {
  if (isEvalLog(uri.path)) {
    if (uri.scheme !== 'file') throw new Error('the viewer reads Inspect logs on disk only');
    return { index: await EvalIndex.open(uri.fsPath) };
  }
  // Another harness's files are read from disk (an unsaved edit of a trajectory.json shows once saved).
  const harness = await harnessOf(uri);
  if (harness) {
    const groups = await atifViewerGroups(uri.fsPath, harness.isDir, signal);
    const bytes = Buffer.from(groups.map((g) => JSON.stringify(g)).join('\n') + '\n', 'utf8');
    return { index: new TrajectoryIndex(new MemoryBytes(bytes), 'jsonl'), memory: bytes, harness: harness.label };
  }
  if (formatOf(uri.path) === 'parquet') {
    if (uri.scheme !== 'file') throw new Error('the viewer reads Parquet files on disk only');
    return { index: await ParquetIndex.open(uri.fsPath) };
  }
  const { source, memory } = await openSource(uri, doc);
  return { index: new TrajectoryIndex(source, textFormat(uri.path)), memory };
}

async function openSource(uri: vscode.Uri, doc: vscode.TextDocument | undefined): Promise<{ source: ByteSource; memory?: Buffer }> {
  if (doc?.isDirty) {
    const bytes = Buffer.from(doc.getText(), 'utf8');
    return { source: new MemoryBytes(bytes), memory: bytes };
  }
  if (uri.scheme === 'file') return { source: await FileBytes.open(uri.fsPath) };
  const bytes = Buffer.from(await vscode.workspace.fs.readFile(uri));
  return { source: new MemoryBytes(bytes), memory: bytes };
}
