/**
 * The svc Trajectory Viewer, a custom editor for trajectory files. It is a read-only custom
 * editor over the file's bytes rather than a CustomTextEditorProvider: VS Code does not hand
 * extensions the text of documents above 50 MB (a custom text editor cannot even open them,
 * microsoft/vscode#147000), and the workbench would first load the whole text model. Reading the
 * file by offsets opens any size at once. Unsaved edits in a text editor of the file still show
 * live (the session reads the open document's text). ART's Parquet step files open too (the
 * default editor of `.parquet` files under a `trajectories` folder, through package.json's
 * editorAssociations; Open With… for any other): they are read by rows (parquetIndex.ts).
 */
import type { ContextKeys } from '../ui/prompts';
import * as vscode from 'vscode';
import { z } from 'zod';
import { formatPath, InputError } from '../api';
import type { ErrorPresenter } from '../common/errors';
import type { Logger } from '../common/logger';
import { filesFromArgs, isArgumentsObject, type Commands } from '../ui/commands';
import { parseArgs } from '../ui/args';
import { Disposable } from '../common/disposable';
import { TranscriptStore } from './compare';
import { GroupFiles } from './groupFile';
import { ViewerSession } from './session';
import { background } from '../common/background';

import { TRAJECTORY_VIEWER } from '../common/ids';
import { looksLikeAtif } from '../harnesses/atif';

export const VIEW_TYPE = TRAJECTORY_VIEWER;

const NOT_A_BAND = '"reward" must be { min?: number, max?: number } (finite numbers)';
/** A reward band `{ min?, max? }` of a scripting object (the viewer's filter; the Runs view passes one too). */
export const rewardBandArg = z
  .object({ min: z.number({ error: NOT_A_BAND }).optional(), max: z.number({ error: NOT_A_BAND }).optional() }, { error: NOT_A_BAND })
  .refine((b) => b.min === undefined || b.max === undefined || b.min <= b.max, { error: (issue) => `"reward": min ${(issue.input as { min: number }).min} is above max ${(issue.input as { max: number }).max}` })
  .transform((b) => ({ ...(b.min !== undefined ? { min: b.min } : {}), ...(b.max !== undefined ? { max: b.max } : {}) }));

/** A place's index, 0-based; -1 is the last. */
const notAnIndex = (issue: { path?: PropertyKey[]; input?: unknown }) => `${formatPath(issue.path ?? [])} must be a 0-based integer, got ${JSON.stringify(issue.input)}`;
const placeIndex = z.int({ error: notAnIndex }).min(-1, { error: notAnIndex }).optional();
/** svc.openTrajectoryViewer's arguments object: the file (a path, or a list of them) is `filesFromArgs`' to read. */
const OPEN_ARGS = z
  .strictObject({ file: z.unknown().nonoptional(), reward: rewardBandArg.optional(), group: placeIndex, trajectory: placeIndex, message: placeIndex })
  .refine((a) => a.group !== undefined || (a.trajectory === undefined && a.message === undefined), { error: 'trajectory and message need a group', path: ['group'] });
const OPEN_USAGE = '{ file, reward?, group?, trajectory?, message? }';

/**
 * svc.openTrajectoryViewer's scripting argument: an arguments object, parsed whole (refused when
 * it has no `file` or an unknown key), or undefined for what menus pass (a Uri, nothing).
 */
export function openViewerArgs(clicked: unknown): z.output<typeof OPEN_ARGS> | undefined {
  return isArgumentsObject(clicked) ? parseArgs('svc.openTrajectoryViewer', OPEN_ARGS, clicked, OPEN_USAGE) : undefined;
}

export class TrajectoryViewerProvider extends Disposable implements vscode.CustomReadonlyEditorProvider {
  private readonly sessions = new Set<ViewerSession>();
  private readonly _onDidOpen = this._register(new vscode.EventEmitter<ViewerSession>());
  /** A viewer opened (for the tests and the bench). */
  readonly onDidOpen = this._onDidOpen.event;
  private readonly groupFiles = new GroupFiles();
  private readonly transcripts = new TranscriptStore();
  /** The transcripts the diff editor shows (the scenario view compares across files with the same store). */
  get transcriptStore(): TranscriptStore {
    return this.transcripts;
  }

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly log: Logger,
    private readonly errors: ErrorPresenter,
    /** `svc.trajectoryFile` (the editor title's Open in Viewer) is set here. */
    private readonly contextKeys: ContextKeys,
  ) {
    super();
    this._register({ dispose: () => background(this.groupFiles.dispose(), "Removing the viewer's group files") });
    // Disposed first (the base disposes in reverse): the sessions, then their group files.
    this._register({
      dispose: () => {
        for (const s of this.sessions) s.dispose();
        this.sessions.clear();
      },
    });
  }

  register(commands: Commands): vscode.Disposable[] {
    const sniff = () => background(this.contextKeys.set('svc.trajectoryFile', looksLikeTrajectories(vscode.window.activeTextEditor?.document)), 'setContext svc.trajectoryFile');
    sniff();
    return [
      this,
      // The editor title button shows on JSON files that look like trajectories, not on every JSON file.
      vscode.window.onDidChangeActiveTextEditor(sniff),
      this.transcripts.register(),
      commands.register('svc.openTrajectoryViewer', (_how, clicked?: unknown, selected?: unknown) => this.open(clicked, selected)),
      commands.register('svc.trajectoryViewer.showSource', (_how, resource?: unknown) => this.showSource(resource)),
    ];
  }

  openCustomDocument(uri: vscode.Uri): vscode.CustomDocument {
    return { uri, dispose: () => undefined };
  }

  resolveCustomEditor(document: vscode.CustomDocument, panel: vscode.WebviewPanel): void {
    const session = new ViewerSession(document.uri, panel, { extensionUri: this.extensionUri, log: this.log, errors: this.errors, groupFiles: this.groupFiles, transcripts: this.transcripts });
    this.sessions.add(session);
    panel.onDidDispose(() => {
      this.sessions.delete(session);
      session.dispose();
    });
    this._onDidOpen.fire(session);
  }

  /** The open viewers of a file. */
  sessionsFor(uri: vscode.Uri): ViewerSession[] {
    return [...this.sessions].filter((s) => s.uri.toString() === uri.toString());
  }

  /**
   * Opens a file in the viewer at a place (0-based group, trajectory and message; a run search's
   * hit), once the view has the file's groups. Resolves with the view.
   */
  async openAt(uri: vscode.Uri, place: ViewerPlace = {}): Promise<ViewerSession> {
    await vscode.commands.executeCommand('vscode.openWith', uri, VIEW_TYPE);
    const session = this.sessionsFor(uri)[0] ?? (await new Promise<ViewerSession>((resolve, reject) => {
      const timer = setTimeout(() => {
        sub.dispose();
        reject(new Error(`The trajectory viewer did not open ${uri.fsPath || uri.toString()}`));
      }, 30_000);
      const sub = this.onDidOpen((s) => {
        if (s.uri.toString() !== uri.toString()) return;
        clearTimeout(timer);
        sub.dispose();
        resolve(s);
      });
    }));
    if (place.group !== undefined) {
      await session.whenReady();
      const groups = session.index?.groups ?? 0;
      if (place.group < 0 || place.group >= groups) throw new InputError(`${uri.fsPath}: no group ${place.group + 1} (the file has ${groups})`);
      session.select(place.group, place.trajectory !== undefined && place.trajectory >= 0 ? place.trajectory : undefined, place.message !== undefined && place.message >= 0 ? place.message : undefined);
    }
    return session;
  }

  /** svc.openTrajectoryViewer: explorer/editor `(uri)`, `{ file, reward?, group?, trajectory?, message? }`, or the active editor's file. */
  private async open(clicked?: unknown, selected?: unknown): Promise<void> {
    const args = openViewerArgs(clicked);
    let uri: vscode.Uri | undefined;
    if (args) {
      // A script's file, and only it: never the active editor's instead.
      uri = filesFromArgs(args.file, undefined)[0];
      if (!uri) throw new InputError(`svc.openTrajectoryViewer: "file" must be a path, not ${JSON.stringify(args.file)}. svc.openTrajectoryViewer takes ${OPEN_USAGE}.`, { field: 'file' });
      if (args.group !== undefined) {
        await this.openAt(uri, { group: args.group, trajectory: args.trajectory, message: args.message });
        return;
      }
    } else {
      uri = filesFromArgs(clicked, selected)[0] ?? activeResource();
    }
    if (!uri) {
      if (clicked !== undefined) throw new InputError('svc.openTrajectoryViewer: no file given');
      const picked = await vscode.window.showOpenDialog({ canSelectMany: false, openLabel: 'Open', title: 'svc: Open trajectory file', filters: { Trajectories: ['json', 'jsonl', 'parquet', 'eval'] } });
      uri = picked?.[0];
      if (!uri) return;
    }
    await vscode.commands.executeCommand('vscode.openWith', uri, VIEW_TYPE);
    // `{ file, reward: { min?, max? } }`: the viewer shows only the trajectories in that reward band.
    const reward = args?.reward;
    if (reward) for (const s of this.sessionsFor(uri)) s.filterReward(reward);
  }

  /** The file of the viewer as text. */
  private async showSource(resource?: unknown): Promise<void> {
    const uri = filesFromArgs(resource, undefined)[0] ?? activeResource();
    if (uri) await vscode.commands.executeCommand('vscode.openWith', uri, 'default', { viewColumn: vscode.ViewColumn.Beside });
  }
}

/** A place in a trajectory file, 0-based as the viewer's select takes it. */
export interface ViewerPlace {
  group?: number;
  trajectory?: number;
  message?: number;
}

/** Whether a document's beginning names a trajectory field, or is an ATIF trajectory's (cheap: the first 64 KiB of text). */
export function looksLikeTrajectories(doc: vscode.TextDocument | undefined): boolean {
  if (!doc || !/\.(jsonl?|ndjson)$/i.test(doc.uri.path)) return false;
  const head = doc.getText(new vscode.Range(0, 0, Math.min(doc.lineCount, 2000), 0)).slice(0, 65536);
  return /"(trajectories|trajectory_groups|messages_and_choices|exchanges)"\s*:/.test(head) || looksLikeAtif(head);
}

function activeResource(): vscode.Uri | undefined {
  const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
  if (input instanceof vscode.TabInputText || input instanceof vscode.TabInputCustom) return input.uri;
  return vscode.window.activeTextEditor?.document.uri;
}
