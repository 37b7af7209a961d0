import * as vscode from 'vscode';
import { callRef, type ThreadRow } from '../api';
import { Disposable } from '../common/disposable';
import type { ErrorPresenter } from '../common/errors';
import type { Logger } from '../common/logger';
import { webviewHtml, webviewOptions } from '../ui/webview';
import { parseMessage } from '../webview/protocol';
import { FromWebviewSchema, threadDetails, ToWebviewSchema, type FromWebview, type ToWebview } from './detailsProtocol';
import type { ThreadsModel } from './model';
import { background } from '../common/background';
import { copyLink } from '../links/commands';
import { displayContent, kindLabel, type FeedbackRecord } from '../feedback/record';
import type { WebUi } from '../webUi/commands';

export const THREAD_DETAILS_VIEW_TYPE = 'svc.threadDetails';

interface Shown {
  project: string;
  row: ThreadRow;
  openJson: () => unknown;
}

/**
 * The details of a thread, formatted: one webview panel, reused for every thread opened (as a
 * preview editor is), that follows its row when the Threads view reloads it. A webview rather
 * than the markdown preview because the turn refs need working buttons (attach feedback, copy),
 * and the markdown preview runs no commands.
 */
export class ThreadDetailsPanel extends Disposable {
  private panel: vscode.WebviewPanel | undefined;
  private shown: Shown | undefined;
  private ready = false;
  /** The last message posted to the webview (for the in-host tests). */
  lastPosted: ToWebview | undefined;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly model: ThreadsModel,
    private readonly errors: ErrorPresenter,
    private readonly log: Logger,
    private readonly record: FeedbackRecord,
    private readonly webUi: WebUi,
  ) {
    super();
    this._register(model.onDidChange(() => this.follow()));
    this._register(record.onDidChange(() => this.post()));
    this._register({ dispose: () => { this.panel?.dispose(); } });
  }

  /** The thread on show, if the panel is open. */
  get current(): { project: string; threadId: string } | undefined {
    return this.panel && this.shown ? { project: this.shown.project, threadId: this.shown.row.thread_id } : undefined;
  }

  /** Shows a thread, opening the panel or reusing it. Focus stays where it was (the tree, after a click). */
  async show(project: string, row: ThreadRow, actions: { openJson: () => unknown }): Promise<void> {
    this.shown = { project, row, openJson: actions.openJson };
    if (!this.panel) this.panel = this.create();
    else this.panel.reveal(undefined, true);
    this.panel.title = `Thread ${row.thread_id}`;
    this.post();
  }

  /** Handles a message from the webview; anything that fails the schema is logged and dropped. */
  async handleMessage(raw: unknown): Promise<void> {
    const parsed = parseMessage(FromWebviewSchema, raw);
    if (!parsed.ok) {
      this.log.warn(`Thread details: ignored a message that is not in the protocol (${parsed.error}).`);
      return;
    }
    const msg: FromWebview = parsed.value;
    const shown = this.shown;
    if (msg.type === 'ready') {
      this.ready = true;
      this.post();
      return;
    }
    if (!shown) return;
    const turnId = (turn: 'first' | 'last') => (turn === 'first' ? shown.row.first_turn_id : shown.row.last_turn_id);
    try {
      switch (msg.type) {
        case 'attachFeedback': {
          const id = turnId(msg.turn);
          // A ref and no kind: the interactive flow, as from a ref link.
          if (id) await vscode.commands.executeCommand('svc.attachFeedback', { ref: callRef(shown.project, id), via: 'link' });
          break;
        }
        case 'copy': {
          if (msg.target === 'link') {
            await copyLink({ kind: 'thread', project: shown.project, threadId: shown.row.thread_id });
            this.post({ type: 'copied', target: msg.target });
            break;
          }
          const text = msg.target === 'threadId' ? shown.row.thread_id : turnId(msg.target) ? callRef(shown.project, turnId(msg.target)!) : undefined;
          if (!text) break;
          await vscode.env.clipboard.writeText(text);
          const what = msg.target === 'threadId' ? 'the thread id' : `the ${msg.target} turn ref`;
          vscode.window.setStatusBarMessage(`svc: copied ${what}`, 3000);
          this.post({ type: 'copied', target: msg.target });
          break;
        }
        case 'openJson':
          await shown.openJson();
          break;
        case 'openWebUi': {
          const threadId = shown.row.thread_id;
          const id = msg.target === 'thread' ? undefined : turnId(msg.target);
          await (id ? this.webUi.openTarget({ ref: callRef(shown.project, id), threadId }) : this.webUi.openThread(shown.project, shown.row));
          break;
        }
      }
    } catch (e) {
      background(this.errors.show(e, `Thread ${shown.row.thread_id}`), 'Showing an error');
    }
  }

  private create(): vscode.WebviewPanel {
    const panel = vscode.window.createWebviewPanel(
      THREAD_DETAILS_VIEW_TYPE,
      'Thread details',
      { viewColumn: vscode.ViewColumn.Active, preserveFocus: true },
      webviewOptions(this.extensionUri),
    );
    panel.iconPath = vscode.Uri.joinPath(this.extensionUri, 'media', 'svc.svg');
    this.ready = false;
    // A hidden panel's page is unloaded; when shown again it says "ready" and gets the thread again.
    panel.onDidChangeViewState(() => {
      if (!panel.visible) this.ready = false;
    });
    panel.webview.onDidReceiveMessage((m) => this.handleMessage(m));
    panel.onDidDispose(() => {
      if (this.panel === panel) {
        this.panel = undefined;
        this.shown = undefined;
        this.ready = false;
      }
    });
    panel.webview.html = webviewHtml(panel.webview, this.extensionUri, { entry: 'threadDetails', title: 'Thread details' });
    return panel;
  }

  /** Posts the thread (or `message`) once the page listens; checked against the schema like what comes back. */
  private post(message?: ToWebview): void {
    if (!this.panel || !this.shown) return;
    const msg = message ?? { type: 'show' as const, thread: this.details(this.shown) };
    const checked = ToWebviewSchema.parse(msg);
    if (checked.type === 'show') this.lastPosted = checked;
    if (this.ready) background(this.panel.webview.postMessage(checked), 'Posting to the thread details');
  }

  /** The thread for the webview, with the feedback this user attached to its turns from this workspace. */
  private details(shown: Shown) {
    const details = threadDetails(shown.project, shown.row, (id) => callRef(shown.project, id));
    const turnOf = new Map(details.turns.map((t) => [t.ref, t.label]));
    const feedback = this.record.forRefs([...turnOf.keys()]).map((e) => ({ turn: turnOf.get(e.ref) ?? e.ref, kind: kindLabel(e.kind), content: displayContent(e.content), time: e.time, id: e.id }));
    return { ...details, feedback, webUi: this.webUiConfigured() };
  }

  private webUiConfigured(): boolean {
    try {
      this.webUi.urlFor({ threadId: 'x', project: 'e/p' });
      return true;
    } catch {
      return false;
    }
  }

  /** After the view reloaded, shows the thread's new row (more turns, a later update). */
  private follow(): void {
    if (!this.shown || !this.panel || this.model.project !== this.shown.project) return;
    const row = this.model.findRow(this.shown.row.thread_id);
    if (!row || JSON.stringify(row) === JSON.stringify(this.shown.row)) return;
    this.shown = { ...this.shown, row };
    this.post();
  }
}
